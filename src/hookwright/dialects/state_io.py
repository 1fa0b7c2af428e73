"""The session state on the wire of every dialect's command, http and JSON-RPC hooks.

A hook updates the state by adding one namespaced field to the JSON object it answers with:
``{"hookwright": {"state": {"incr": {...}, "set": {...}, "add": {...}, "delete": [...],
"ttl": {...}}}}``. Its dialect's codec never reads that field; `Handler` applies it after the
codec decoded the answer. An update that is malformed, too large or of the wrong kind stores
nothing and turns the hook's result into an error naming the hook (its decision stands).

A hook reads the state only when it opted in (Claude Code: ``"hookwright": {"state": true}``
on the hook's entry): its input object then carries ``"hookwright": {"state": {...}}``, added
after the dialect's own fields. A hook that did not opt in gets its dialect's bytes unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from hookwright.config.safeparse import ParseError, load_json_text
from hookwright.core.events import HookInput
from hookwright.core.results import HookResult, Status
from hookwright.core.run_context import RunContext
from hookwright.core.state import StateError
from hookwright.engine.services import services_of
from hookwright.transports.base import Envelope, Output

FIELD: Final = "hookwright"
_MARK: Final = f'"{FIELD}"'
ABSENT: Final = object()


def reads_state(extra: Mapping[str, Any] | None) -> bool:
    """Whether a hook's declaration opts in: ``"hookwright": {"state": true}``."""
    own = (extra or {}).get(FIELD)
    return isinstance(own, Mapping) and own.get("state") is True


def with_state(envelope: Envelope, inp: HookInput, ctx: RunContext) -> Envelope:
    """`envelope` with the session state added to the JSON object it sends (stdin or body,
    else its JSON value); anything else is sent as it is."""
    state = {FIELD: {"state": services_of(ctx).state.snapshot(inp.session_id)}}
    body = envelope.body.rstrip()
    if body.startswith(b"{") and body.endswith(b"}"):
        extra = json.dumps(state, ensure_ascii=False, separators=(",", ":")).encode()[1:-1]
        joint = b"" if body[1:-1].strip() == b"" else b","
        return envelope._replace(body=body[:-1] + joint + extra + b"}")
    if not envelope.body and isinstance(envelope.json, dict):
        return envelope._replace(json={**envelope.json, **state})
    return envelope


def state_answer(reply: Output) -> object:
    """The ``hookwright`` field of a hook's JSON answer, `ABSENT`, or a `StateError` for a
    JSON object answer that cannot be read."""
    value = reply.value
    if isinstance(value, dict):
        return value.get(FIELD, ABSENT)
    if _MARK not in reply.text:
        return ABSENT
    text = reply.text.strip()
    try:
        parsed = load_json_text(text)
    except ParseError as exc:
        # A JSON object naming the field that cannot be read within bounds (too deep, too
        # long) is a broken update; other text merely mentions the name.
        return StateError(f"unreadable answer: {exc.reason}") if text.startswith("{") else ABSENT
    return parsed.get(FIELD, ABSENT) if isinstance(parsed, dict) else ABSENT


async def apply_answer(
    result: HookResult | None, own: object, inp: HookInput, ctx: RunContext
) -> HookResult | None:
    """Apply a hook's ``hookwright`` answer field to the session state; on any problem the
    hook's result carries a one-line error naming the hook, and nothing is stored."""
    if isinstance(own, dict) and "state" not in own:
        return result
    try:
        if isinstance(own, StateError):
            raise own
        if not isinstance(own, dict):
            raise ValueError("expected an object")
        store = services_of(ctx).state
        await ctx.services.workers.run(
            store.change, inp.session_id, own["state"], name=ctx.spec.name
        )
    except Exception as exc:
        reason = " ".join(str(exc).split())[:300] or type(exc).__name__
        message = f"hook {ctx.spec.name}: {FIELD}.state: {reason}; nothing stored"
        if result is None:
            return HookResult(status=Status.error, error=message)
        return replace(result, status=Status.error, error=message)
    return result
