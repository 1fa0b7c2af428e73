"""A process hook's tool-call params written as JSON text: byte for byte the encoding of the
params dict, for generated inputs and on the wire of a real process."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookwright.config.trust import TrustPolicy
from hookwright.core.events import Event, HookInput
from hookwright.dialects import LoadContext, discover
from hookwright.dialects.picoclaw.codec import tool_call_params
from hookwright.dialects.picoclaw.wire_text import tool_call_text
from hookwright.engine.kernel import HookEngine
from hookwright.transports.rpc import encode_request

texts = st.text(max_size=12)
scalars = st.none() | st.booleans() | st.integers() | st.floats() | texts
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)
loose = st.none() | texts | st.integers() | st.sampled_from(["", "runTurn", "askSideQuestion"])
inbound = (
    st.none()
    | st.integers()
    | st.fixed_dictionaries({}, optional={"channel": loose, "chat_id": loose})
)
contexts = (
    st.none()
    | texts
    | st.fixed_dictionaries({}, optional={"inbound": inbound, "extra": json_values})
)
payloads = st.fixed_dictionaries(
    {},
    optional={
        "turn_source": loose,
        "parent_turn_id": loose,
        "iteration": st.none() | st.integers(-3, 50) | st.booleans() | st.floats(),
        "tool_name": loose,
        "tool_input": st.none() | json_values,
        "context": contexts,
        "channel": loose,
        "chat_id": loose,
        "sender_id": loose,
    },
)
ids = st.none() | texts


def old_encoding(inp: HookInput, method: str, protocol: Any) -> bytes | None:
    """The params as they were sent: the dict, encoded as every JSON-RPC message is."""
    params = tool_call_params(inp, method, protocol)
    try:
        return json.dumps(params, ensure_ascii=False, separators=(",", ":")).encode()
    except (ValueError, TypeError):  # a lone surrogate does not encode as UTF-8
        return None


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(
    payload=payloads,
    session=ids,
    turn=ids,
    agent=ids,
    method=st.sampled_from(["before_tool", "approve_tool"]),
    protocol=st.sampled_from(["seed", "current"]),
)
def test_the_text_is_the_encoded_params(
    payload: dict[str, Any],
    session: str | None,
    turn: str | None,
    agent: str | None,
    method: str,
    protocol: Any,
) -> None:
    inp = HookInput(
        Event.PreToolUse, session_id=session, turn_id=turn, agent_id=agent, payload=payload
    )
    expected = old_encoding(inp, method, protocol)
    got = tool_call_text(inp, method, protocol)
    assert got == expected
    if expected is not None:
        assert encode_request(7, f"hook.{method}", got) == encode_request(
            7, f"hook.{method}", tool_call_params(inp, method, protocol)
        )


@pytest.mark.parametrize(
    "extra",
    [{}, {"channel": "c"}, {"chat_id": 4}, {"sender_id": ""}, {"context": "x"}, {"context": {}}],
)
def test_the_current_protocols_context_member(extra: dict[str, Any]) -> None:
    """A tool call with no context and no inbound field (written as one constant), and each
    field or context that makes it written out: the encoded dict's bytes every time."""
    inp = HookInput(Event.PreToolUse, session_id="s", payload={"tool_name": "Bash", **extra})
    assert tool_call_text(inp, "before_tool", "current") == old_encoding(
        inp, "before_tool", "current"
    )


def test_what_the_text_cannot_say_is_left_to_the_dict() -> None:
    """A value of the wrong type where the meta wants a string, or arguments that do not
    encode: None, so the params are built and sent (or fail) as before."""
    odd = HookInput(Event.PreToolUse, session_id=3, payload={"tool_name": "Bash"})  # type: ignore[arg-type]
    assert tool_call_text(odd, "before_tool", "current") is None
    unencodable = HookInput(Event.PreToolUse, payload={"tool_input": {"x": {1, 2}}})
    assert tool_call_text(unencodable, "before_tool", "seed") is None


RECORDER = (
    "import json, sys\n"
    "out = open(sys.argv[1], 'ab')\n"
    "for line in sys.stdin.buffer:\n"
    "    out.write(line); out.flush()\n"
    "    m = json.loads(line)\n"
    "    if 'id' in m:\n"
    "        r = {'ok': True} if m['method'] == 'hook.hello' else {'action': 'continue'}\n"
    "        sys.stdout.write(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': r}) + '\\n')\n"
    "        sys.stdout.flush()\n"
)


@pytest.mark.parametrize("protocol", ["seed", "current"])
async def test_a_process_reads_the_old_bytes(tmp_path: Path, protocol: str) -> None:
    """Through the engine to a real process: each request line is what encoding the params
    dict gave, byte for byte."""
    lines = tmp_path / "lines"
    process = {
        "command": [sys.executable, "-c", RECORDER, str(lines)],
        "intercept": ["before_tool", "approve_tool"],
        "protocol": protocol,
    }
    (tmp_path / ".picoclaw").mkdir()
    config = {"hooks": {"processes": {"rec": process}}}
    (tmp_path / ".picoclaw" / "config.json").write_text(json.dumps(config))
    engine = HookEngine(audit_path=None)
    found = discover(LoadContext(project_dir=tmp_path, home=tmp_path / "home"))
    for spec in found.bind(TrustPolicy(everything=True)).specs:
        engine.register(spec)
    inputs = [
        HookInput(
            Event.PreToolUse,
            session_id="sé",
            turn_id="t\n1",
            payload={
                "tool_name": "Bash",
                "tool_input": {"command": "ls ☃", "n": [1, 2.5, None, True]},
                "iteration": 2,
                "channel": "cli",
                "sender_id": "me",
            },
        ),
        HookInput(Event.PermissionRequest, payload={"tool_name": "Write", "context": {"a": 1}}),
    ]
    try:
        for inp in inputs:
            await engine.dispatch(inp)
    finally:
        await engine.aclose()
    sent = [json.loads(line) for line in lines.read_bytes().splitlines()]
    calls = [(line, m) for line, m in zip(lines.read_bytes().splitlines(), sent, strict=True)]
    calls = [(line, m) for line, m in calls if m["method"] != "hook.hello"]
    assert [m["method"] for _, m in calls] == ["hook.before_tool", "hook.approve_tool"]
    for (line, message), inp in zip(calls, inputs, strict=True):
        method = message["method"].removeprefix("hook.")
        params = tool_call_params(inp, method, protocol)  # type: ignore[arg-type]
        assert line + b"\n" == encode_request(message["id"], message["method"], params)
