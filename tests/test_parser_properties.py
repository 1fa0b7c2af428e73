"""Property tests for every parser of untrusted text: a clear error or a result, never a
traceback. Examples are bounded so the suite stays fast."""

from __future__ import annotations

import contextlib
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz.strategies import paths_of, replaced
from hookwright.config.loading import LoadContext, sources
from hookwright.config.safeparse import ParseError, load_json_text, load_yaml_text
from hookwright.core.events import Event
from hookwright.core.results import HookResult
from hookwright.dialects.claude_code.codec import parse_json_object
from hookwright.dialects.claude_code.command import missing_script
from hookwright.dialects.claude_code.prompt import decode_prompt_reply
from hookwright.dialects.openharness.output import OutputError, parse_output
from hookwright.transports.rpc import decode_line

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: Text made of the characters parsers care about, so examples reach the interesting branches.
SYNTAX = st.text(alphabet=st.sampled_from("{}[]\":,0123456789-eE.\\ \n\tabc&*!|>-?#'`\x00\xff"))
TEXTS = st.one_of(st.text(), SYNTAX)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)

#: What YAML adds: dates, bytes, non-string keys.
YAML_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=20)
    | st.dates()
    | st.binary(max_size=5),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.text(max_size=10) | st.integers() | st.booleans() | st.none(), children, max_size=4
        )
    ),
    max_leaves=20,
)


@FAST
@given(TEXTS | st.binary().map(lambda data: data.decode("latin-1")))
def test_json_text_is_a_value_or_a_parse_error(text: str) -> None:
    try:
        load_json_text(text)
    except ParseError as exc:
        assert "\n" not in str(exc)


@FAST
@given(st.binary())
def test_json_bytes_are_a_value_or_a_parse_error(data: bytes) -> None:
    with contextlib.suppress(ParseError):
        load_json_text(data)


@FAST
@given(JSON_VALUES)
def test_valid_json_round_trips(value: Any) -> None:
    assert load_json_text(json.dumps(value)) == value


@FAST
@given(st.integers(min_value=0, max_value=3000), st.sampled_from(["[", '{"a":']))
def test_any_nesting_is_a_value_or_a_parse_error(depth: int, opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    try:
        load_json_text(opener * depth + "1" + closer * depth)
        assert depth <= 200
    except ParseError as exc:
        assert depth > 200 and "nesting is deeper than 200 levels" in str(exc)


@FAST
@given(TEXTS)
def test_yaml_text_is_a_value_or_a_parse_error(text: str) -> None:
    try:
        load_yaml_text(text)
    except ParseError as exc:
        assert "\n" not in str(exc)


ANCHORED = st.lists(
    st.tuples(st.sampled_from("abcd"), st.lists(st.sampled_from(["*a", "*b", "*c", "x"]))),
    max_size=8,
)


@FAST
@given(ANCHORED)
def test_yaml_aliases_are_a_value_or_a_parse_error(entries: list[tuple[str, list[str]]]) -> None:
    text = "".join(
        f"{name}{i}: &{name} [{', '.join(items)}]\n" for i, (name, items) in enumerate(entries)
    )
    with contextlib.suppress(ParseError):
        load_yaml_text(text)


@FAST
@given(JSON_VALUES)
def test_valid_yaml_round_trips(value: Any) -> None:
    assert load_yaml_text(yaml.safe_dump(value)) == value


@FAST
@given(TEXTS, st.text(max_size=40))
def test_missing_script_is_a_line_or_none(stderr: str, command: str) -> None:
    found = missing_script(stderr, command)
    assert found is None or found in stderr


@FAST
@given(st.text(alphabet="/._-ab", min_size=1).filter(lambda p: "'" not in p))
def test_missing_script_names_the_script_of_the_command(path: str) -> None:
    line = f"python3: can't open file '{path}': [Errno 2] No such file or directory"
    assert missing_script("noise\n" + line + "\n", f"python3 {path}") == line


@FAST
@given(TEXTS)
def test_openharness_output_is_parsed_or_an_output_error(text: str) -> None:
    try:
        parse_output(text)
    except OutputError as exc:
        assert "\n" not in str(exc)


@FAST
@given(TEXTS, st.sampled_from([Event.PreToolUse, Event.Stop, Event.UserPromptSubmit]))
def test_prompt_replies_are_a_result(text: str, event: Event) -> None:
    assert isinstance(decode_prompt_reply(event, text, continue_on_block=False), HookResult)


@FAST
@given(TEXTS)
def test_claude_code_stdout_is_an_object_or_text(text: str) -> None:
    assert parse_json_object(text) is None or isinstance(parse_json_object(text), dict)


@FAST
@given(st.binary() | SYNTAX.map(str.encode))
def test_json_rpc_lines_are_a_value_or_a_value_error(line: bytes) -> None:
    with contextlib.suppress(ValueError):
        decode_line(line)


# Loaders: each dialect's discovery never raises, whatever a file holds -------------------------

CLAUDE = {
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "timeout": 5}]}
        ]
    }
}
NATIVE = {"hooks": [{"name": "n", "event": "PreToolUse", "call": "m:f", "matcher": "Bash"}]}
OPENHARNESS = {
    "name": "o",
    "events": ["before_tool_dispatch"],
    "matcher": "Bash",
    "handler": {"type": "command", "command": "true", "timeout_seconds": 5},
    "capabilities": ["rewrite_tool_request"],
}
PICOCLAW = {
    "hooks": {
        "enabled": True,
        "processes": {"p": {"command": ["true"], "intercept": ["before_tool"]}},
        "builtins": {"b": {"factory": "m:f", "events": ["before_tool"]}},
    }
}
#: (file under the project, template, format)
FILES = [
    (".claude/settings.json", CLAUDE, "json"),
    (".claude/plugins/p/hooks/hooks.json", CLAUDE, "json"),
    (".hookwright/hooks.yaml", NATIVE, "yaml"),
    (".openharness/hooks/o.yaml", OPENHARNESS, "yaml"),
    (".picoclaw/config.json", PICOCLAW, "json"),
]


@st.composite
def mutated_file(draw: st.DrawFn) -> tuple[str, str]:
    where, template, kind = draw(st.sampled_from(FILES))
    path = draw(st.sampled_from(paths_of(template)))
    doc = replaced(template, path, draw(JSON_VALUES if kind == "json" else YAML_VALUES))
    text = json.dumps(doc) if kind == "json" else yaml.safe_dump(doc)
    return where, text


@pytest.mark.parametrize("dialect", sorted(sources()))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=mutated_file())
def test_no_file_content_makes_a_dialect_discovery_raise(
    dialect: str, case: tuple[str, str]
) -> None:
    where, text = case
    with tempfile.TemporaryDirectory() as folder:
        project, home = Path(folder) / "proj", Path(folder) / "home"
        home.mkdir()
        (project / where).parent.mkdir(parents=True)
        (project / where).write_text(text)
        sources()[dialect](LoadContext(project_dir=project, home=home))
