"""The codec of one Gemini `command` hook, run as `Handler(ProcessTransport(), GeminiCodec)`.

Gemini CLI runs ``bash -c COMMAND`` in the session's directory, after replacing
``$GEMINI_PROJECT_DIR``, ``$GEMINI_CWD``, ``$GEMINI_SESSION_ID`` and ``$CLAUDE_PROJECT_DIR``
in the command by their quoted values, with those variables also in the environment; it
writes the input without a trailing newline and kills the hook after `timeout` milliseconds
(default 60000). A hook that timed out, could not start or exited other than 0 without saying
anything changes nothing: Gemini fails open.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field

from hookwright.core.events import HookInput
from hookwright.core.results import HookResult, Status
from hookwright.core.run_context import RunContext
from hookwright.dialects.base import Handler
from hookwright.dialects.gemini.output import answer_of, decode_answer
from hookwright.dialects.gemini.stdin import encode_stdin
from hookwright.transports.base import Block, Caps, Envelope, Failure, Output, Reply
from hookwright.transports.process import ProcessTransport

DEFAULT_TIMEOUT_MS = 60_000
#: Bytes of an answer read before the rest is dropped.
MAX_ANSWER_BYTES = 1 << 20
_CAPS = Caps(max_output=MAX_ANSWER_BYTES)
_PLACEHOLDERS = ("GEMINI_PROJECT_DIR", "GEMINI_CWD", "GEMINI_SESSION_ID", "CLAUDE_PROJECT_DIR")


@dataclass(frozen=True, slots=True)
class GeminiCommand:
    """One `{"type": "command", ...}` entry of a settings file's `hooks`."""

    command: str
    event_name: str
    name: str | None = None
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    description: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """Gemini's name for the hook (what `hooksConfig.disabled` lists)."""
        return self.name or self.command


class GeminiCodec:
    def __init__(self, hook: GeminiCommand, project_dir: str) -> None:
        self.hook = hook
        self.project_dir = project_dir

    def encode(self, inp: HookInput, ctx: RunContext) -> Envelope:
        cwd = inp.cwd if inp.cwd and os.path.isdir(inp.cwd) else self.project_dir
        values = {
            "GEMINI_PROJECT_DIR": cwd,
            "GEMINI_CWD": cwd,
            "GEMINI_SESSION_ID": inp.session_id or "",
            "CLAUDE_PROJECT_DIR": cwd,
        }
        command = self.hook.command
        for name in _PLACEHOLDERS:
            command = command.replace(f"${name}", shlex.quote(values[name]))
        env = {**os.environ, **values, **self.hook.env}
        return Envelope(
            body=encode_stdin(inp, self.hook.event_name),
            command=command,
            shell="bash",
            cwd=cwd,
            env=env,
            timeout=self.hook.timeout_ms / 1000,
            caps=_CAPS,
        )

    def decode(self, reply: Reply, sent: Envelope, inp: HookInput, ctx: RunContext) -> HookResult:
        if isinstance(reply, Failure):
            return self._failed(reply)
        if isinstance(reply, Block):
            reply = Output(reply.reason, code=reply.code, stderr=reply.stderr)
        code = reply.code if reply.code is not None else 0
        answer = answer_of(reply.text, reply.stderr, code)
        event_name = self.hook.event_name
        result = HookResult() if answer is None else decode_answer(answer, event_name, inp)
        result.exit_code = code
        result.stderr = reply.stderr or None
        if code != 0 and result.decision is None:
            result.status = Status.error
            result.error = f"hook {self.hook.label} exited {code}"
        return result

    def _failed(self, failure: Failure) -> HookResult:
        if failure.kind == "timeout":
            return HookResult(
                status=Status.timeout,
                error=f"Hook timed out after {self.hook.timeout_ms}ms",
                stderr=failure.stderr or None,
            )
        return HookResult(status=Status.error, error=f"cannot run hook: {failure.reason}")

    async def aclose(self) -> None:
        return None

    def __repr__(self) -> str:
        return f"GeminiCodec({self.hook.event_name}: {self.hook.label!r})"


def command_handler(hook: GeminiCommand, project_dir: str) -> Handler:
    return Handler(ProcessTransport(), GeminiCodec(hook, project_dir), enforces_timeout=True)
