"""Fuzz of `install|uninstall claude-code` (the real commands, in-process): whatever a settings
file holds, install either refuses it in one line and leaves it byte for byte (exactly when
Claude Code could not read it strictly: `accepted` below is the rule, written out
independently), or installs, changing nothing but the `hooks` member, and uninstall then
gives back the original bytes and mode. Never a traceback."""

from __future__ import annotations

import functools
import json
import math
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main
import typer.testing
from hypothesis import assume, event, given
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from hookwright.bridges.claude_settings import RELAYED, _backup_path
from hookwright.cli.app import app

from .budget import budget
from .strategies import VALUES, document_bytes, mutated, nested, to_json

TEMPLATE: dict[str, Any] = {
    "permissions": {"allow": ["Bash(ls *)"], "deny": ["Bash(rm *)"]},
    "env": {"A": "1"},
    "model": "opus",
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "timeout": 5}]}
        ],
        "Stop": [],
    },
    "cleanupPeriodDays": 30,
}

#: JSON texts (and near-JSON) a settings value may be written as, the strict rules' cases first.
TOKENS = st.sampled_from(
    [
        "1e400",
        "-1E999",
        "NaN",
        "Infinity",
        "-Infinity",
        '"\\ud800"',
        '"a\\udfffb"',
        '"\\ud83d\\ude00"',
        "1.5e-400",
        "12345678901234567890",
        "null",
        "true",
        "0",
        "-0.0",
        '"Stop"',
        "[]",
        "{}",
        '[{"hooks": [{"type": "command", "command": "echo hi"}]}]',
    ]
)
EVENT_NAMES = st.sampled_from(["Stop", "PreToolUse", "SessionStart", "Custom Event", "\\u00e9"])
KEYS = st.sampled_from(
    ['"hooks"', '"hook\\u0073"', '"model"', '"env"', '"\\ud800"', '"\u00e9"', '""', '"a\\nb"']
)


@st.composite
def hooks_texts(draw: st.DrawFn) -> str:
    items = draw(st.lists(st.tuples(EVENT_NAMES, TOKENS | st.builds(to_json, VALUES)), max_size=4))
    colon = draw(st.sampled_from([": ", ":"]))
    return "{" + ", ".join(f'"{name}"{colon}{value}' for name, value in items) + "}"


MEMBER_VALUES = TOKENS | hooks_texts() | st.builds(to_json, VALUES | nested())
SEPARATORS = st.sampled_from([", ", ",", ",\n  ", ",\r\n\t", " ,\n    "])
FRAMES = st.sampled_from([("{", "}"), ("{\n  ", "\n}\n"), ("{\r\n\t", "\r\n}"), (" {", "} \n")])


@st.composite
def assembled(draw: st.DrawFn) -> str:
    """An object written member by member: duplicate names, `hooks` spelt with an escape,
    values that are the strict rules' cases, any layout."""
    members = draw(st.lists(st.tuples(KEYS, MEMBER_VALUES), max_size=5))
    colon = draw(st.sampled_from([": ", ":", " : "]))
    opening, closing = draw(FRAMES)
    inner = draw(SEPARATORS).join(f"{key}{colon}{value}" for key, value in members)
    return opening + inner + closing


@st.composite
def laid_out(draw: st.DrawFn, value: Any) -> str:
    """`value` written with one of the layouts people and tools use."""
    indent = draw(st.sampled_from([None, 0, 2, 4, "\t"]))
    separators = draw(st.sampled_from([None, (",", ":"), (", ", ": ")]))
    try:
        text = json.dumps(
            value, indent=indent, separators=separators, ensure_ascii=draw(st.booleans())
        )
    except (ValueError, RecursionError):
        return to_json(TEMPLATE)
    return text.replace("\n", "\r\n") if draw(st.booleans()) else text


def encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


SETTINGS = st.one_of(
    assembled().map(encoded),
    mutated(TEMPLATE).flatmap(laid_out).map(encoded),
    st.dictionaries(st.text(max_size=5), VALUES, max_size=4).flatmap(laid_out).map(encoded),
    document_bytes(TEMPLATE),
    st.sampled_from([b"", b"\n", b" \r\n", b"\xef\xbb\xbf{}", b"[]", b"null", b"{}"]),
)

# The rule, written out --------------------------------------------------------------------


class _Refused(Exception):
    pass


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused
    return value


def _constant(name: str) -> Any:
    raise _Refused


def accepted(raw: bytes) -> bool:
    """Whether strict JSON readers agree on `raw` as Claude Code settings: UTF-8, JSON without
    non-finite numbers or lone surrogates, at most 200 levels, an object whose `hooks` (when
    present) is an object of lists. An empty or blank file counts as `{}`."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if not text.strip(" \t\r\n"):
        return True
    try:
        data = json.loads(text, parse_float=_finite, parse_constant=_constant)
    except (_Refused, ValueError, RecursionError):
        return False
    if not isinstance(data, dict) or _nesting(data) > 200 or _has_surrogate(data):
        return False
    hooks = data.get("hooks", {})
    return isinstance(hooks, dict) and all(isinstance(v, list) for v in hooks.values())


def _children(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [*value, *value.values()]
    return list(value) if isinstance(value, list) else []


def _nesting(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in _children(item))
    return deepest


def _has_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and re.search("[\ud800-\udfff]", item):
            return True
        stack.extend(_children(item))
    return False


_WS = re.compile(r"[ \t\r\n]*")


def members(raw: bytes) -> list[tuple[str, str]]:
    """The top-level members of an object's text, each as its name and its exact text from
    the opening quote of the name to the end of the value; [] for a blank file."""
    text = raw.decode("utf-8")
    if not text.strip(" \t\r\n"):
        return []
    decoder = json.JSONDecoder()
    found: list[tuple[str, str]] = []
    at = _skip(text, _skip(text, 0) + 1)
    while text[at] != "}":
        name, end = decoder.raw_decode(text, at)
        value_start = _skip(text, _skip(text, end) + 1)
        value_end = decoder.raw_decode(text, value_start)[1]
        found.append((name, text[at:value_end]))
        at = _skip(text, value_end)
        at = _skip(text, at + 1) if text[at] == "," else at
    return found


def _skip(text: str, at: int) -> int:
    match = _WS.match(text, at)
    assert match is not None
    return match.end()


def without_last_hooks(found: list[tuple[str, str]]) -> list[tuple[str, str]]:
    names = [name for name, _ in found]
    if "hooks" not in names:
        return found
    last = len(names) - 1 - names[::-1].index("hooks")
    return found[:last] + found[last + 1 :]


# The property ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("projects")


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> Iterator[CliRunner]:
    """The real app, its command tree built once for all inputs rather than once per
    invocation (half the time of a run otherwise), under the usual umask."""
    monkeypatch.setattr(typer.testing, "_get_command", functools.cache(typer.main.get_command))
    previous = os.umask(0o022)
    try:
        yield CliRunner()
    finally:
        os.umask(previous)


def run(runner: CliRunner, *args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def check_refused(result: Result, settings: Path, raw: bytes | None, home: Path) -> None:
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"hookwright: error: {settings}")
    assert result.stderr.count("\n") == 1, result.stderr
    assert (settings.read_bytes() if raw is not None else None) == raw
    assert not _backup_path(settings, home).exists()


def check_installed(result: Result, settings: Path, raw: bytes | None) -> None:
    assert result.exit_code == 0, result.output
    new = settings.read_bytes()
    assert accepted(new)
    hooks = json.loads(new)["hooks"]
    assert all(
        hooks[event.value][-1]["hooks"][0]["type"] in ("command", "http") for event in RELAYED
    )
    before = members(raw) if raw is not None else []
    assert without_last_hooks(members(new)) == without_last_hooks(before)


@budget(0.4)
@given(
    SETTINGS | st.none(),
    st.sampled_from(["command", "command", "command", "http"]),
    st.sampled_from([0o600, 0o644, 0o640]),
)
def test_install_then_uninstall_gives_the_file_back(
    projects: Path,
    isolated_home: Path,
    runner: CliRunner,
    raw: bytes | None,
    mode: str,
    file_mode: int,
) -> None:
    with tempfile.TemporaryDirectory(dir=projects) as folder:
        project = Path(folder)
        settings = project / ".claude" / "settings.local.json"
        if raw is not None:
            settings.parent.mkdir()
            settings.write_bytes(raw)
            settings.chmod(file_mode)
        result = run(runner, "install", "claude-code", "--project", folder, "--mode", mode)
        if raw is not None and not accepted(raw):
            event("refused")
            check_refused(result, settings, raw, isolated_home)
            return
        event("installed")
        check_installed(result, settings, raw)
        result = run(runner, "uninstall", "claude-code", "--project", folder)
        assert result.exit_code == 0, result.output
        if raw is None:
            assert not settings.exists()
        else:
            assert settings.read_bytes() == raw
            assert stat.S_IMODE(settings.stat().st_mode) == file_mode
        assert [p.name for p in settings.parent.iterdir()] == (
            [settings.name] if raw is not None else []
        )
        assert not _backup_path(settings, isolated_home).exists()


@budget(0.2)
@given(SETTINGS)
def test_uninstall_after_an_edit_keeps_the_edit_and_the_other_members(
    projects: Path, isolated_home: Path, runner: CliRunner, raw: bytes
) -> None:
    """Settings changed between install and uninstall (a member added in front): uninstall
    takes out only its hooks; every other member keeps its bytes, and the `hooks` member is
    there afterwards exactly when it was before install."""
    assume(accepted(raw))
    with tempfile.TemporaryDirectory(dir=projects) as folder:
        settings = Path(folder) / ".claude" / "settings.local.json"
        settings.parent.mkdir()
        settings.write_bytes(raw)
        check_installed(run(runner, "install", "claude-code", "--project", folder), settings, raw)
        installed = settings.read_bytes()
        opening = installed.index(b"{") + 1
        settings.write_bytes(installed[:opening] + b'"zz": 1, ' + installed[opening:])
        result = run(runner, "uninstall", "claude-code", "--project", folder)
        assert result.exit_code == 0, result.output
        after, before = settings.read_bytes(), json.loads(raw) if raw.strip() else {}
        assert without_last_hooks(members(after)) == [
            ("zz", '"zz": 1'),
            *without_last_hooks(members(raw)),
        ]
        assert json.loads(after) == {"zz": 1, **before}
