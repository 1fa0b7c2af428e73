"""The codec of one OpenHarness hook: the JSON envelope out, the unified output back.

Every handler type sends the same envelope (`envelope.py`) and answers with the same unified
output (`output.py`); what differs is how the envelope travels and how the transport's reply
reads, which a `Channel` says: `command.py` (the process transport), `http.py` (HTTP) and
`prompt.py` (the workspace's prompt files, then the model transport). A hook is
`Handler(transport, OpenHarnessCodec(binding, channel))`.

Never raises for anything the hook does: every failure is a `HookResult` with status
error/timeout and a notice (see `notices.py`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

from hookwright.core.actions import WIRE_FIELD, actions_json
from hookwright.core.events import HookInput
from hookwright.core.results import HookResult
from hookwright.core.run_context import RunContext
from hookwright.dialects.openharness.binding import HookBinding
from hookwright.dialects.openharness.envelope import build_envelope
from hookwright.dialects.openharness.notices import ANSWER_AS_JSON, failure
from hookwright.dialects.openharness.output import OutputError, blocked, parse_output, to_result
from hookwright.engine.services import Services, services_of
from hookwright.transports.base import Envelope, Reply


@dataclass(slots=True, frozen=True)
class Answer:
    """Text to decode as the unified output. `empty_ok`: blank text means "no effect" (command
    stdout, http body) rather than a failure (a model's reply)."""

    text: str
    empty_ok: bool
    exit_code: int | None = None
    stderr: str | None = None


@dataclass(slots=True, frozen=True)
class Refusal:
    """Exit code 2: block with `reason`."""

    reason: str
    exit_code: int | None = None
    stderr: str | None = None


@dataclass(slots=True, frozen=True)
class Failed:
    """The hook failed; the run goes on (fail-open) with a notice."""

    message: str
    timed_out: bool = False
    code: str = "hook_execution_failed"
    exit_code: int | None = None
    stderr: str | None = None
    #: What the hook's author changes to make it work (see `notices.failure`).
    fix: str | None = None


Reading = Answer | Refusal | Failed


class Channel(Protocol):
    """How one handler type's envelope travels, and what its transport's replies mean."""

    def envelope(self, payload: dict[str, Any], services: Services) -> Envelope:
        """The envelope that sends `payload` (the hook's JSON envelope)."""
        ...

    def payload_of(self, sent: Envelope) -> dict[str, Any]:
        """The JSON envelope `sent` carries."""
        ...

    def read(self, reply: Reply) -> Reading:
        """What the transport's reply says, in this handler type's words."""
        ...


class OpenHarnessCodec:
    __slots__ = ("binding", "channel")

    def __init__(self, binding: HookBinding, channel: Channel) -> None:
        self.binding = binding
        self.channel = channel

    def payload(self, inp: HookInput) -> dict[str, Any]:
        """The JSON envelope this hook is sent for `inp` (plain JSON values only)."""
        b = self.binding
        raw = build_envelope(inp, oh_event=b.oh_event, workspace_root=b.workspace_root)
        loaded: dict[str, Any] = json.loads(json.dumps(raw, default=str))
        if b.actions and inp.tool_name:
            loaded[WIRE_FIELD] = actions_json(inp.actions)
        return loaded

    def encode(self, inp: HookInput, ctx: RunContext) -> Envelope:
        return self.channel.envelope(self.payload(inp), services_of(ctx))

    def decode(self, reply: Reply, sent: Envelope, inp: HookInput, ctx: RunContext) -> HookResult:
        b = self.binding
        reading = self.channel.read(reply)
        if isinstance(reading, Failed):
            return failure(
                b,
                reading.message,
                timed_out=reading.timed_out,
                code=reading.code,
                exit_code=reading.exit_code,
                stderr=reading.stderr,
                fix=reading.fix,
            )
        if isinstance(reading, Refusal):
            result = blocked(b, reading.reason)
        elif not reading.text.strip():
            if not reading.empty_ok:
                return failure(
                    b, "returned no output", exit_code=reading.exit_code, fix=ANSWER_AS_JSON
                )
            result = HookResult()
        else:
            try:
                parsed = parse_output(reading.text)
            except OutputError as exc:
                return failure(
                    b,
                    str(exc),
                    exit_code=reading.exit_code,
                    stderr=reading.stderr,
                    fix=ANSWER_AS_JSON,
                )
            result = to_result(parsed, b, inp, self.channel.payload_of(sent))
        result.exit_code = reading.exit_code
        if reading.stderr:
            result.stderr = b.redact(reading.stderr)
        return result

    async def aclose(self) -> None:
        return None

    def __repr__(self) -> str:
        b = self.binding
        return f"OpenHarnessCodec({b.name!r}, {b.oh_event}, {b.handler_type})"
