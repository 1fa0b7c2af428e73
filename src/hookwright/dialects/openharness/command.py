"""`type: command` handlers: a shell command fed the envelope on stdin.

Runs `sh -c <command>` in `cwd` (resolved inside the workspace by the loader; the workspace
root by default) with the process environment plus `environment`, through the process
transport. When the host provides workspace access, the command runs under a read lease of
the workspace's files, in the same place inside the lease's root (`LeasedTransport`, see
`lease.py`). Exit 0: stdout is the unified output (blank = no effect). Exit 2: block, stderr
is the reason (else "Hook blocked execution: <command>"). Any other exit, a timeout (default
30 s; upstream has none), a failure to start or to lease the files: logged, and the run goes
on.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hookwright.dialects.openharness.codec import Answer, Failed, Reading, Refusal
from hookwright.dialects.openharness.notices import ANSWER_AS_JSON, timeout_fix
from hookwright.engine.services import Services
from hookwright.transports.base import Block, Caps, Envelope, Failure, Reply

_BLOCK_ON_2 = Caps(block_exit=2)
_EXIT_CODES = "exit 0 (with a JSON answer, or none) to go on, or 2 to block (the reason on stderr)"
_START = "correct handler.command: `sh -c` could not run it"


class CommandChannel:
    __slots__ = ("command", "cwd", "environment", "timeout")

    def __init__(
        self, command: str, cwd: Path, environment: dict[str, str], timeout: float
    ) -> None:
        self.command = command
        self.cwd = cwd
        self.environment = environment
        self.timeout = timeout

    def envelope(self, payload: dict[str, Any], services: Services) -> Envelope:
        return Envelope(
            body=json.dumps(payload).encode("utf-8"),
            json=payload,
            command=self.command,
            shell="sh",
            cwd=self.cwd,
            env={**os.environ, **self.environment},
            timeout=self.timeout,
            caps=_BLOCK_ON_2,
            warm=services.warm_python,
            files=services.workspace_access,
        )

    def payload_of(self, sent: Envelope) -> dict[str, Any]:
        payload: dict[str, Any] = sent.json
        return payload

    def read(self, reply: Reply) -> Reading:
        stderr = reply.stderr.strip()
        if isinstance(reply, Failure):
            return self._failed(reply, stderr)
        if isinstance(reply, Block):
            reason = stderr or f"Hook blocked execution: {self.command}"
            return Refusal(reason, exit_code=2, stderr=stderr)
        code = reply.code
        if code != 0:
            detail = f": {stderr}" if stderr else ""
            return Failed(
                f"Command hook exited with code {code}{detail}",
                exit_code=code,
                stderr=stderr,
                fix=_EXIT_CODES,
            )
        if reply.truncated:
            return Failed(
                "Command hook output is too large", exit_code=0, stderr=stderr, fix=ANSWER_AS_JSON
            )
        return Answer(reply.text, empty_ok=True, exit_code=0, stderr=stderr or None)

    def _failed(self, reply: Failure, stderr: str) -> Failed:
        if reply.kind == "unstarted":
            return Failed(f"Command hook could not start: {reply.reason}", fix=_START)
        if reply.kind == "timeout":
            message = f"Command hook timed out after {self.timeout:g}s"
            return Failed(message, timed_out=True, stderr=stderr, fix=timeout_fix(self.timeout))
        if reply.kind == "killed":
            detail = f": {stderr}" if stderr else ""
            return Failed(f"Command hook was killed{detail}", stderr=stderr)
        return Failed(f"Command hook failed: {reply.reason}", stderr=stderr)
