"""The bridges decode a hook input with the standard decoder's own steps: every input gives
the value, or the error line, that `json.loads` gives."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from hookwright.bridges.claude_hook import HookInputError, parse_input

#: Texts near the edges: whitespace around, a BOM, trailing data, truncation.
EDGES = [
    b"",
    b" \n",
    b'{"hook_event_name": "Stop"}\n\n',
    b' \t{"hook_event_name": "Stop"}',
    b'\xef\xbb\xbf{"hook_event_name": "Stop"}',
    b'{"hook_event_name": "Stop"} x',
    b'{"hook_event_name": "Stop"}{}',
    b'{"hook_event_name": ',
    b"[1]",
    b"NaN",
    b"\xff",
]
json_texts = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=6,
).map(lambda value: json.dumps({"hook_event_name": "Stop", "v": value}).encode())


def expected(raw: bytes) -> str | dict[str, object]:
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return f"stdin is not a JSON hook input: {exc}"
    return value if isinstance(value, dict) else "stdin is not a JSON object"


def decoded(raw: bytes) -> str | dict[str, object]:
    try:
        return parse_input(raw)[1]
    except HookInputError as exc:
        return str(exc)


def test_edge_inputs_decode_as_json_loads_decodes_them() -> None:
    for raw in EDGES:
        assert decoded(raw) == expected(raw), raw


@settings(max_examples=200, deadline=None)
@given(json_texts, st.binary(max_size=3), st.sampled_from([b"", b" ", b"\n", b"\r\n\t"]))
def test_generated_inputs_decode_as_json_loads_decodes_them(
    text: bytes, cut: bytes, space: bytes
) -> None:
    for raw in (text, space + text + space, text + cut, text[: len(text) // 2]):
        assert decoded(raw) == expected(raw), raw
