"""A fifth dialect built only from a `Codec` and the existing process transport.

The "line" dialect: a hook program reads one JSON line ``{"ev": ..., "tool": ...}`` on stdin and
answers ``ALLOW`` or ``DENY <reason>`` on stdout. This file is the whole dialect; the walkthrough
"Adding a dialect" in docs/architecture.md shows it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hookwright.core.events import Event, HookInput
from hookwright.core.results import Decision, HookResult, Status, allow, deny
from hookwright.core.run_context import RunContext
from hookwright.core.spec import HookSpec
from hookwright.dialects.base import Handler
from hookwright.engine.kernel import HookEngine
from hookwright.transports.base import Envelope, Failure, Output, Reply
from hookwright.transports.process import ProcessTransport


class LineCodec:
    """What the line dialect's bytes mean."""

    def __init__(self, program: Path, timeout: float = 10.0) -> None:
        self.program = program
        self.timeout = timeout

    def encode(self, inp: HookInput, ctx: RunContext) -> Envelope:
        line = json.dumps({"ev": inp.event.value, "tool": inp.tool_name}) + "\n"
        argv = (sys.executable, str(self.program))
        return Envelope(body=line.encode(), argv=argv, timeout=self.timeout)

    def decode(self, reply: Reply, sent: Envelope, inp: HookInput, ctx: RunContext) -> HookResult:
        if isinstance(reply, Failure):
            return HookResult(status=Status.error, error=f"line hook {reply.kind}: {reply.reason}")
        if not isinstance(reply, Output) or reply.code != 0:
            return HookResult(status=Status.error, error=f"line hook exited {reply.code}")
        word, _, reason = reply.text.strip().partition(" ")
        if word == "ALLOW":
            return allow()
        if word == "DENY":
            return deny(reason or "denied")
        return HookResult(status=Status.error, error=f"line hook answered {reply.text!r}")

    async def aclose(self) -> None:
        return None


GUARD = """\
import json, sys
asked = json.loads(sys.stdin.readline())
print("DENY no shell here" if asked["tool"] == "Bash" else "ALLOW")
"""


def line_hook(program: Path) -> HookSpec:
    return HookSpec(
        name=program.stem,
        event=Event.PreToolUse,
        handler=Handler(ProcessTransport(), LineCodec(program)),
        dialect="line",
    )


def engine_with(tmp_path: Path, source: str) -> HookEngine:
    program = tmp_path / "guard.py"
    program.write_text(source)
    engine = HookEngine()
    engine.register(line_hook(program))
    return engine


def tool_call(tool: str) -> HookInput:
    return HookInput(Event.PreToolUse, session_id="s", payload={"tool_name": tool})


async def test_a_deny_from_the_hook_program_reaches_the_verdict(tmp_path: Path) -> None:
    engine = engine_with(tmp_path, GUARD)
    try:
        denied = await engine.dispatch(tool_call("Bash"))
        allowed = await engine.dispatch(tool_call("Read"))
    finally:
        await engine.aclose()
    assert denied.decision is Decision.deny
    assert denied.reason == "no shell here"
    assert allowed.decision is Decision.allow


async def test_a_crashing_hook_program_is_a_failure_value(tmp_path: Path) -> None:
    engine = engine_with(tmp_path, "raise SystemExit(3)\n")
    try:
        verdict = await engine.dispatch(tool_call("Bash"))
    finally:
        await engine.aclose()
    (result,) = verdict.results
    assert result.status is Status.error
    assert result.error == "line hook exited 3"
    assert verdict.decision is None
