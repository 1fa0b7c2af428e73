"""Fuzz of what peers send: `serve` frames, JSON-RPC lines from a PicoClaw hook process (split
into chunks as a pipe delivers them) and the results PicoClaw hooks answer. Each input is a
value or the module's own error with one line, never another exception, within the deadline."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from hookwright.config.safeparse import ParseError
from hookwright.core.results import HookResult
from hookwright.dialects.picoclaw.actions import DecodeError, decode, decode_approval
from hookwright.server.protocol import ChatRequest, ProtocolError, parse_request
from hookwright.transports.rpc import LineSplitter, decode_line

from .budget import budget
from .strategies import document_bytes, documents, mutated

CHAT_FRAME = {
    "type": "chat",
    "message": "hello",
    "skills": ["notes"],
    "history": [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "hi"}], "_hook": "h"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok", "name": "bash"},
    ],
}


@budget(1.0)
@given(documents(CHAT_FRAME), st.integers(min_value=0, max_value=8))
def test_a_serve_frame_is_a_request_or_a_protocol_error(text: str, max_history: int) -> None:
    try:
        request = parse_request(text, max_history=max_history)
    except ProtocolError as exc:
        assert "\n" not in str(exc)
        return
    assert isinstance(request, ChatRequest)
    for message in request.history:
        assert isinstance(message.to_message(), dict)


RPC_LINES = [
    {"jsonrpc": "2.0", "id": 7, "result": {"action": "continue"}},
    {"jsonrpc": "2.0", "id": 7, "error": {"code": -32000, "message": "boom", "data": None}},
    {"jsonrpc": "2.0", "method": "hook.log", "params": {"level": "info", "msg": "x"}},
]


RPC_LINE_BYTES = st.one_of([document_bytes(line) for line in RPC_LINES])


@budget(1.0)
@given(RPC_LINE_BYTES)
def test_a_json_rpc_line_is_a_value_or_a_parse_error(line: bytes) -> None:
    try:
        decode_line(line)
    except ParseError as exc:
        assert "\n" not in str(exc)


@budget(0.5)
@given(
    st.lists(RPC_LINE_BYTES, max_size=6),
    st.lists(st.integers(min_value=1, max_value=70_000), max_size=8),
    st.sampled_from([64, 4096, 1_000_000]),
)
def test_a_pipe_delivers_the_lines_it_was_given_in_any_chunking(
    lines: list[bytes], cuts: list[int], max_line: int
) -> None:
    """Whatever the chunk boundaries, the splitter hands over exactly the stream's lines (None
    for an over-long one), and each decodes to a value or a `ParseError`."""
    stream = b"".join(line.replace(b"\n", b" ") + b"\n" for line in lines)
    received: list[bytes | None] = []
    splitter = LineSplitter(max_line, received.append)
    start = 0
    for cut in sorted(cuts):
        splitter.feed(stream[start:cut])
        start = max(start, cut)
    splitter.feed(stream[start:])
    splitter.feed_eof()
    expected = [line if len(line) <= max_line else None for line in stream.split(b"\n")[:-1]]
    assert received == expected
    for line in received:
        if line is not None:
            with contextlib.suppress(ParseError):
                decode_line(line)


@pytest.mark.parametrize("size", [0, 63, 64, 65])
def test_a_whole_line_in_one_piece_is_bounded_like_any_other(size: int) -> None:
    """One piece holding exactly one line (how a JSON-RPC answer usually arrives) is handed
    over whole up to `max_line` bytes and as None past it, like a line cut in pieces."""
    line = b"x" * size
    whole: list[bytes | None] = []
    LineSplitter(64, whole.append).feed(line + b"\n")
    cut: list[bytes | None] = []
    splitter = LineSplitter(64, cut.append)
    for byte in range(len(line) + 1):
        splitter.feed((line + b"\n")[byte : byte + 1])
    assert whole == cut == [line if size <= 64 else None]


PICOCLAW_RESULTS = {
    "before_llm": [
        {
            "action": "modify",
            "request": {
                "model": "m",
                "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
                "tools": [{"type": "function", "function": {"name": "bash"}}],
                "options": {"temperature": 0},
            },
        },
        {"action": "abort_turn", "reason": "no"},
    ],
    "after_llm": [
        {
            "action": "modify",
            "response": {
                "meta": {"turn_id": "t"},
                "model": "m",
                "response": {
                    "content": "x",
                    "tool_calls": [{"id": "c", "name": "bash", "arguments": {}}],
                    "finish_reason": "stop",
                    "usage": {"prompt_tokens": 1},
                    "reasoning_content": "r",
                },
            },
        },
        {"action": "hard_abort"},
    ],
    "before_tool": [
        {"action": "modify", "call": {"tool": "bash", "arguments": {"command": "ls"}}},
        {"action": "respond", "result": {"for_llm": "done", "media": ["a.png"]}},
        {"action": "respond", "call": {"hook_result": {"for_llm": "x", "silent": True}}},
        {"action": "deny_tool", "reason": "no"},
    ],
    "after_tool": [
        {
            "action": "modify",
            "result": {
                "tool": "bash",
                "arguments": {"command": "ls"},
                "result": {"for_llm": "x", "is_error": False, "artifact_tags": ["t"]},
                "duration": 1,
            },
        },
    ],
}
SENT = {
    "meta": {"turn_id": "t"},
    "tool": "bash",
    "arguments": {"command": "ls"},
    "model": "m",
    "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
    "tools": [{"type": "function", "function": {"name": "bash"}}],
}


#: (method, result, the params that were sent): the params are the engine's own, a dict.
PICOCLAW_ANSWERS = st.tuples(
    st.one_of(
        [
            st.tuples(st.just(method), mutated(template))
            for method, templates in PICOCLAW_RESULTS.items()
            for template in templates
        ]
    ),
    st.just(SENT) | mutated(SENT).filter(lambda value: isinstance(value, dict)),
)


@budget(1.0)
@given(PICOCLAW_ANSWERS, st.sampled_from(["seed", "current"]))
@example(  # found by make test: what was sent is not a list
    ((("before_llm", {"request": {"messages": [], "tools": []}}), {"messages": True})), "current"
)
def test_a_picoclaw_result_decodes_or_is_a_decode_error(
    answer: tuple[tuple[str, Any], Any], protocol: Any
) -> None:
    (method, raw), sent = answer
    try:
        result = decode(method, raw, sent, hook="h", protocol=protocol)
    except DecodeError as exc:
        assert "\n" not in str(exc)
        return
    assert result is None or isinstance(result, HookResult)


@budget(0.3)
@given(mutated({"approved": True, "reason": "fine"}))
def test_an_approval_decodes_or_is_a_decode_error(raw: Any) -> None:
    try:
        assert isinstance(decode_approval(raw), HookResult)
    except DecodeError as exc:
        assert "\n" not in str(exc)
