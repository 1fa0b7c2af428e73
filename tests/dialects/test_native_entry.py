"""`.hookwright/hooks.yaml` entries: the plain reading (no pydantic) accepts only what the
schema accepts, as the same entry; everything else goes to the schema, which explains it."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hookwright.dialects.native_entry import NativeEntry, plain_entry
from hookwright.dialects.native_schema import NativeHook, validate_entry

KEYS = [
    "name",
    "event",
    "call",
    "matcher",
    "if",
    "if_",
    "priority",
    "timeout",
    "on_error",
    "mode",
    "enabled",
    "description",
    "timout",
    "Name",
]
WORDS = [
    "",
    "guard",
    "PreToolUse",
    "pre_tool_use",
    "before_tool",
    "NoSuchEvent",
    "guards:deny_rm",
    "pkg.mod:obj.fn",
    "guards:deny_rm\n",
    "guärds:deny",
    "1mod:fn",
    "mod:",
    "Bash",
    "Bash(rm *)",
    "Bash(",
    "FileWrite(/etc/**)",
    "continue",
    "block",
    "parallel",
    "chain",
    "shadow",
    "true",
    "5",
    "1.5",
]
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(WORDS),
    st.text(max_size=8),
    st.lists(st.sampled_from(WORDS), max_size=2),
    st.dictionaries(st.sampled_from(WORDS), st.integers(), max_size=1),
)
#: Well-formed values of each key (the plain reading may still leave some to the schema).
WELL_FORMED: dict[str, list[Any]] = {
    "name": ["guard", "no-rm"],
    "event": ["PreToolUse", "pre_tool_use", "before_tool", "Stop"],
    "call": ["guards:deny_rm", "pkg.mod:obj.fn", "guärds:deny"],
    "matcher": ["Bash", "Edit|Write", None],
    "if": ["Bash(rm *)", "FileWrite(/etc/**)", None],
    "priority": [0, 7, -3, 2**64],
    "timeout": [5, 0.5, math.inf, None],
    "on_error": ["continue", "block"],
    "mode": ["parallel", "chain", "shadow"],
    "enabled": [True, False],
    "description": ["what it does", None],
}
#: Values the schema refuses or converts.
ODD: list[Any] = ["", "NoSuchEvent", "mod:", "guards:deny_rm\n", "Bash(", 0, -1, math.nan]
ODD += ["5", True, 1, "yes", "Block", "serial", 3, ["Bash"]]


@st.composite
def entries(draw: st.DrawFn, odd: st.SearchStrategy[Any], most: int) -> dict[str, Any]:
    """An entry of well-formed values, then up to `most` keys given an `odd` value."""
    raw = {key: draw(st.sampled_from(WELL_FORMED[key])) for key in ("name", "event", "call")}
    for key in draw(st.lists(st.sampled_from(list(WELL_FORMED)[3:]), max_size=8, unique=True)):
        raw[key] = draw(st.sampled_from(WELL_FORMED[key]))
    for key in draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=most, unique=True)):
        raw[key] = draw(odd)
    return raw


ENTRIES = st.one_of(
    entries(st.sampled_from(WELL_FORMED["call"]), most=1),
    entries(st.sampled_from(ODD), most=1),
    entries(st.one_of(st.sampled_from(ODD), VALUES), most=2),
    st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=8),
    VALUES,
)


def same(a: NativeEntry, b: NativeEntry) -> bool:
    """Equal, field by field and type by type (1 == 1.0 == True would hide a conversion)."""
    pairs = [(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(NativeEntry)]
    return all(type(x) is type(y) and (x == y or (x != x and y != y)) for x, y in pairs)


@settings(max_examples=3000, deadline=None)
@given(ENTRIES)
def test_what_the_plain_reading_accepts_the_schema_accepts_as_the_same_entry(raw: Any) -> None:
    plain = plain_entry(raw)
    if plain is not None:
        checked = validate_entry(raw)
        assert isinstance(checked, NativeEntry), checked
        assert same(plain, checked), (plain, checked)


def test_the_entry_has_the_schemas_fields_and_defaults() -> None:
    fields = {f.name: f.default for f in dataclasses.fields(NativeEntry)}
    model = {name: info.default for name, info in NativeHook.model_fields.items()}
    assert fields.keys() == model.keys()
    required = {name for name, info in NativeHook.model_fields.items() if info.is_required()}
    assert required == {"name", "event", "call"}
    assert {k: v for k, v in fields.items() if k not in required} == {
        k: v for k, v in model.items() if k not in required
    }


def test_entries_as_the_docs_write_them_are_read_plainly() -> None:
    documented: dict[str, Any] = {
        "name": "no-rm",
        "event": "PreToolUse",
        "matcher": "Bash",
        "if": "Bash(rm *)",
        "call": "guards:deny_rm",
        "priority": 0,
        "timeout": 5,
        "on_error": "continue",
        "mode": "parallel",
    }
    entry = plain_entry(documented)
    assert entry is not None and entry.timeout == 5.0 and type(entry.timeout) is float
    assert entry.if_ == "Bash(rm *)"
    assert plain_entry({"name": "n", "event": "Stop", "call": "m:f", "enabled": False})


def test_what_the_plain_reading_leaves_is_explained_by_the_schema() -> None:
    for raw in (
        {"name": "n", "event": "PreToolUse", "call": "m:f", "timout": 5},
        {"name": "n", "event": "PreToolUse", "call": "m:f", "timeout": 0},
        {"name": "", "event": "PreToolUse", "call": "m:f"},
        {"name": "n", "event": "NoSuchEvent", "call": "m:f"},
    ):
        assert plain_entry(raw) is None
        problems = validate_entry(raw)
        assert isinstance(problems, list) and problems, raw
    converted = {"name": "n", "event": "PreToolUse", "call": "m:f", "priority": "3"}
    assert plain_entry(converted) is None
    checked = validate_entry(converted)
    assert isinstance(checked, NativeEntry) and checked.priority == 3
    endless = validate_entry({**converted, "timeout": math.inf})
    assert isinstance(endless, NativeEntry) and endless.timeout == math.inf
