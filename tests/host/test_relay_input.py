"""`HookSession.relay` on a host's own non-tool input: the hooks read the payload a checkpoint
of the session would give them (its common fields, then the input's own fields), in the same
order, with the host's common fields adopted and never in the payload."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hookwright import Event, HookEngine, HookInput, add_context
from hookwright.dialects.claude_code.stdin import encode_input
from hookwright.host import HookSession, SessionIdentity


def seen_by_hook(host_input: dict[str, Any]) -> tuple[HookInput, HookInput]:
    """The input a hook read on `relay`, and `input` of the same payload afterwards."""
    seen: list[HookInput] = []
    engine = HookEngine(audit_path=None)
    try:
        engine.add(lambda inp: seen.append(inp) or add_context("ok"), "UserPromptSubmit")
        identity = SessionIdentity(session_id="s1", cwd="/w", prompt_id="p1", effort="high")
        session = HookSession(engine, identity)
        verdict = asyncio.run(session.relay(Event.UserPromptSubmit, host_input))
        assert list(verdict.additional_context) == ["ok"]
        own = {k: v for k, v in host_input.items() if k not in _HOST_FIELDS}
        return seen[0], session.input(Event.UserPromptSubmit, **own)
    finally:
        engine.close()


#: What `relay` adopts or drops rather than passing on as the payload.
_HOST_FIELDS = {"session_id", "turn_id", "transcript_path", "cwd", "permission_mode"}
_HOST_FIELDS |= {"hook_event_name"}


def test_the_hook_reads_the_sessions_payload_in_its_order() -> None:
    host_input = {
        "session_id": "cli-1",
        "transcript_path": "/cli/t.jsonl",
        "cwd": "/cli",
        "permission_mode": "plan",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "list the files",
        "channel": "from the input",  # named like a common field: the input's value, in place
        "extra": {"nested": [1, 2]},
    }
    relayed, made = seen_by_hook(host_input)
    assert list(relayed.payload.items()) == list(made.payload.items())
    assert relayed.payload["channel"] == "from the input"
    assert next(iter(relayed.payload)) == "channel"
    assert "cwd" not in relayed.payload and "hook_event_name" not in relayed.payload
    assert (relayed.session_id, relayed.cwd, relayed.permission_mode) == ("cli-1", "/cli", "plan")
    assert relayed.payload["effort"] == {"level": "high"}
    wire = json.dumps(encode_input(relayed))
    assert wire == json.dumps(encode_input(made))
