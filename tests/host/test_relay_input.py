"""`HookSession.relay` on a host's own non-tool input: the hooks read the payload a checkpoint
of the session would give them (its common fields, then the input's own fields), in the same
order, with the host's common fields adopted and never in the payload."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from hookwright import Event, HookEngine, HookInput, add_context
from hookwright.dialects.claude_code.stdin import encode_input
from hookwright.host import HookSession, SessionIdentity
from hookwright.host.session import HOST_COMMON_FIELDS


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


@pytest.mark.parametrize("name", HOST_COMMON_FIELDS)
def test_adopt_takes_every_field_the_payload_leaves_out(name: str) -> None:
    """`adopt` names the fields one by one (for speed) while `HOST_COMMON_FIELDS` keeps them
    out of the payload: a field added to one and not the other would vanish from the hooks'
    view. Each is taken when a non-empty text, left as it was otherwise."""
    engine = HookEngine(audit_path=None)
    try:
        session = HookSession(engine, SessionIdentity(session_id="s1", cwd="/w"))
        before = getattr(session.identity, name)
        session.adopt({name: ""})
        session.adopt({name: 7})
        assert getattr(session.identity, name) == before
        session.adopt({name: f"host-{name}"})
        assert getattr(session.identity, name) == f"host-{name}"
    finally:
        engine.close()


def test_the_sessions_fields_land_in_the_inputs_own() -> None:
    """`_made` passes the session's fields by position: each distinct value is read back from
    the field of its name (a reordered `HookInput.__init__` would swap two of them)."""
    engine = HookEngine(audit_path=None)
    try:
        names = ("session_id", "turn_id", "agent_id", "agent_type", "cwd", "transcript_path")
        names += ("permission_mode",)
        identity = SessionIdentity(**{name: f"value of {name}" for name in names})
        session = HookSession(engine, identity, host_objects={"db": "handle"})
        made = session.input(Event.UserPromptSubmit, prompt="hi")
        assert {name: getattr(made, name) for name in names} == {
            name: f"value of {name}" for name in names
        }
        assert made.event is Event.UserPromptSubmit
        assert dict(made.host_objects) == {"db": "handle"}
        assert made.payload["prompt"] == "hi"
        assert made.chain_state == {}
    finally:
        engine.close()
