"""One Codex command hook as `Handler(ProcessTransport(), CodexCodec(...))`.

The command runs as Codex runs it: ``$SHELL -lc <command>`` (the user's login shell) in the
session's working directory, with ``CODEX_HOME`` set, reading the Codex input JSON on stdin
(`stdin`). Its answer is read by `answer`. A handler with ``async: true`` is started in the
background and not waited for, as Codex CLI 0.171.0 does (measured): it cannot block, its
``additionalContext`` reaches the model at the next request after it ends, and it is killed
when the agent exits (`dialects.async_runs`). An async SessionEnd handler is waited for as any
other (`config.AWAITED_ASYNC_EVENTS`).
"""

from __future__ import annotations

import functools
import os
import pwd
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from hookwright.core.events import Event, HookInput
from hookwright.core.results import HookResult, Status
from hookwright.core.run_context import RunContext
from hookwright.core.spec import HookSpec
from hookwright.dialects.async_runs import AsyncRuns, run_record
from hookwright.dialects.base import Handler
from hookwright.dialects.codex.answer import (
    block,
    decode_interrupt,
    decode_json,
    decode_plain,
    failed,
)
from hookwright.dialects.codex.stdin import encode_stdin
from hookwright.engine.async_delivery import AsyncDelivery
from hookwright.transports.base import Block, Caps, Envelope, Failure, Output, Reply
from hookwright.transports.process import ProcessTransport

#: The most a hook may print on each of stdout and stderr.
MAX_OUTPUT: Final = 10_000_000
_CAPS: Final = Caps(max_output=MAX_OUTPUT)
_BACKGROUND: Final = Caps(max_output=MAX_OUTPUT, background=True)


def login_shell() -> str:
    """``$SHELL``, else the user's shell from the password database, else ``/bin/sh``."""
    shell = os.environ.get("SHELL", "").strip()
    if shell:
        return shell
    try:
        return pwd.getpwuid(os.getuid()).pw_shell or "/bin/sh"
    except KeyError:
        return "/bin/sh"


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


class CodexCodec:
    """What a Codex command hook reads and what its answer means."""

    def __init__(
        self,
        command: str,
        *,
        timeout: float,
        codex_home: Path,
        project: Path,
        run_id: str,
        env: Mapping[str, str] | None = None,
        background: bool = False,
    ) -> None:
        self.command = command
        #: ``async: true``: started and not waited for; its answer is never read.
        self.background = background
        self._runs = AsyncRuns()
        #: Set for the command on top of hookwright's environment (a plugin's folders).
        self.env = dict(env or {})
        #: Codex's name for a run of this hook, ``<event label>:<order>:<source file>``.
        self.run_id = run_id
        self.timeout = timeout
        self.codex_home = codex_home
        self.project = project

    def encode(self, inp: HookInput, ctx: RunContext) -> Envelope:
        timeout = self.timeout if self.background or ctx.timeout is None else ctx.timeout
        cwd = inp.cwd if inp.cwd and os.path.isdir(inp.cwd) else self.project
        return Envelope(
            body=encode_stdin(inp),
            argv=(login_shell(), "-lc", self.command),
            cwd=cwd,
            env={**os.environ, **self.env, "CODEX_HOME": str(self.codex_home)},
            timeout=timeout,
            caps=_BACKGROUND if self.background else _CAPS,
        )

    def decode(
        self, reply: Reply, sent: Envelope, inp: HookInput, ctx: RunContext
    ) -> HookResult | None:
        if isinstance(reply, Output) and reply.later is not None:
            finish = functools.partial(self._delivery, inp, ctx.spec)
            return self._runs.start(ctx, inp, reply.later, finish)
        if isinstance(reply, Failure):
            if reply.kind == "timeout":
                return HookResult(
                    status=Status.timeout,
                    error=f"timed out after {sent.timeout:g}s",
                    stderr=reply.stderr or None,
                )
            return failed(f"cannot run hook: {reply.reason}")
        if isinstance(reply, Block):
            reply = Output(reply.reason, code=reply.code, stderr=reply.stderr)
        return self._decode(inp, reply)

    def _decode(self, inp: HookInput, output: Output) -> HookResult:
        code = output.code if output.code is not None else 0
        stdout, stderr = output.text, output.stderr
        if inp.event is Event.Interrupt:
            return decode_interrupt(code, stdout, stderr)
        if code == 0:
            result = HookResult(exit_code=0, stderr=stderr or None)
            if not stdout.strip():
                return result
            if stdout.lstrip().startswith(("{", "[")):
                return decode_json(inp, stdout, result, self.run_id)
            return decode_plain(inp, stdout, result)
        if code == 2:
            reason = stderr.strip()
            if not reason:
                return failed("hook exited with code 2 without a reason on stderr", exit_code=2)
            return block(inp, reason, HookResult(exit_code=2, stderr=stderr), self.run_id)
        detail = _first_line(stderr) or "no stderr output"
        return failed(f"hook exited with code {code}: {detail}", exit_code=code, stderr=stderr)

    def _delivery(self, inp: HookInput, spec: HookSpec, final: Reply) -> AsyncDelivery:
        """A background run once it ends: the ``additionalContext`` of an exit 0 goes in
        front of the model at its next request, as in Codex; nothing else of its answer
        counts (it cannot block, the run went on)."""
        result = run_record(final, spec)
        context = None
        if isinstance(final, Output):
            context = self._decode(inp, final).additional_context if final.code == 0 else None
        else:
            result.status, result.error = Status.error, f"async hook did not finish: {final.reason}"
        return AsyncDelivery(inp.session_id, inp.agent_id, inp.event, result, context)

    async def aclose(self) -> None:
        """Kill this hook's background runs still going (the agent exits, as Codex kills
        them when it exits)."""
        await self._runs.aclose()

    def __repr__(self) -> str:
        return f"CodexCodec({self.command!r})"


def command_handler(
    command: str,
    *,
    timeout: float,
    codex_home: Path,
    project: Path,
    run_id: str,
    env: Mapping[str, str] | None = None,
    background: bool = False,
) -> Handler:
    codec = CodexCodec(
        command,
        timeout=timeout,
        codex_home=codex_home,
        project=project,
        run_id=run_id,
        env=env,
        background=background,
    )
    return Handler(ProcessTransport(), codec)
