"""`type: command` handlers: a shell command fed the envelope on stdin.

Runs `sh -c <command>` in `cwd` (resolved inside the workspace by the loader; the workspace
root by default) with the process environment plus `environment`. When the host provides
workspace access, the command runs under a read lease of the workspace's files, in the same
place inside the lease's root (see `lease.py`). Exit 0: stdout is the unified output (blank =
no effect). Exit 2: block, stderr is the reason (else "Hook blocked execution: <command>").
Any other exit, a timeout (default 30 s; upstream has none), a failure to start or to lease the
files: logged, and the run goes on.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hookwright.dialects.openharness.binding import HookBinding
from hookwright.dialects.openharness.lease import LeaseError, moved, workspace_files
from hookwright.dialects.openharness.reply import Block, Failure, Output, Reply
from hookwright.engine.services import Services
from hookwright.transports.process import run_process


class CommandTransport:
    __slots__ = ("command", "cwd", "environment", "timeout")

    def __init__(
        self, command: str, cwd: Path, environment: dict[str, str], timeout: float
    ) -> None:
        self.command = command
        self.cwd = cwd
        self.environment = environment
        self.timeout = timeout

    async def __call__(
        self, envelope: dict[str, Any], binding: HookBinding, services: Services
    ) -> Reply:
        root = binding.workspace_root
        try:
            async with workspace_files(services, root) as files:
                outcome = await run_process(
                    command=self.command,
                    shell="sh",
                    stdin_data=json.dumps(envelope).encode("utf-8"),
                    cwd=moved(self.cwd, root, files),
                    env={**os.environ, **self.environment},
                    timeout=self.timeout,
                    warm=services.warm_python,
                )
        except LeaseError as exc:
            return Failure(f"Command hook could not start: {exc}")
        stderr = outcome.stderr.strip()
        if outcome.spawn_error is not None:
            return Failure(f"Command hook could not start: {outcome.spawn_error}")
        if outcome.timed_out:
            return Failure(
                f"Command hook timed out after {self.timeout:g}s", timed_out=True, stderr=stderr
            )
        code = outcome.exit_code
        if code == 2:
            reason = stderr or f"Hook blocked execution: {self.command}"
            return Block(reason, exit_code=2, stderr=stderr)
        if code != 0:
            detail = f": {stderr}" if stderr else ""
            what = "was killed" if code is None else f"exited with code {code}"
            return Failure(f"Command hook {what}{detail}", exit_code=code, stderr=stderr)
        if outcome.stdout_truncated:
            return Failure("Command hook output is too large", exit_code=0, stderr=stderr)
        return Output(outcome.stdout, empty_ok=True, exit_code=0, stderr=stderr or None)
