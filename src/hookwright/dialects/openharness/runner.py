"""The engine-facing handler of one OpenHarness hook: envelope -> transport -> HookResult.

Never raises for anything the hook does: every failure is a `HookResult` with status
error/timeout and a notice (see `notices.py`).
"""

from __future__ import annotations

import json
from typing import Any

from hookwright.core.events import HookInput
from hookwright.core.results import HookResult
from hookwright.core.spec import RunContext
from hookwright.dialects.openharness.binding import HookBinding
from hookwright.dialects.openharness.envelope import build_envelope
from hookwright.dialects.openharness.notices import failure
from hookwright.dialects.openharness.output import OutputError, blocked, parse_output, to_result
from hookwright.dialects.openharness.reply import Block, Failure, Transport
from hookwright.engine.services import services_of


class OpenHarnessHandler:
    __slots__ = ("binding", "transport")

    def __init__(self, binding: HookBinding, transport: Transport) -> None:
        self.binding = binding
        self.transport = transport

    def envelope(self, inp: HookInput) -> dict[str, Any]:
        """The JSON envelope this hook is sent for `inp` (plain JSON values only)."""
        b = self.binding
        raw = build_envelope(inp, oh_event=b.oh_event, workspace_root=b.workspace_root)
        loaded: dict[str, Any] = json.loads(json.dumps(raw, default=str))
        return loaded

    async def __call__(self, inp: HookInput, ctx: RunContext) -> HookResult:
        b = self.binding
        envelope = self.envelope(inp)
        reply = await self.transport(envelope, b, services_of(ctx))
        if isinstance(reply, Failure):
            return failure(
                b,
                reply.message,
                timed_out=reply.timed_out,
                code=reply.code,
                exit_code=reply.exit_code,
                stderr=reply.stderr,
            )
        if isinstance(reply, Block):
            result = blocked(b, reply.reason)
        elif not reply.text.strip():
            if not reply.empty_ok:
                return failure(b, "returned no output", exit_code=reply.exit_code)
            result = HookResult()
        else:
            try:
                parsed = parse_output(reply.text)
            except OutputError as exc:
                return failure(b, str(exc), exit_code=reply.exit_code, stderr=reply.stderr)
            result = to_result(parsed, b, inp, envelope)
        result.exit_code = reply.exit_code
        if reply.stderr:
            result.stderr = b.redact(reply.stderr)
        return result
