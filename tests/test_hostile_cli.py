"""Hostile JSON and YAML at the command line (real subprocesses): one clear line naming the input,
never a traceback, and in seconds (an alias bomb took minutes and gigabytes before)."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import pytest

from cli_runner import run_hookwright as hookwright

DEEP = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"
HUGE = '{"a": ' + "9" * 5_000 + "}"


def alias_bomb(levels: int = 8) -> str:
    """`levels` levels of nine aliases each: a few hundred bytes, 9**levels nodes expanded."""
    names = "abcdefghijklmnop"
    text = f"{names[0]}: &{names[0]} [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    for prev, name in itertools.pairwise(names[:levels]):
        text += f"{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]\n"
    return text


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (DEEP.encode(), "input {}: nesting is deeper than 200 levels"),
        (HUGE.encode(), "input {}: a number has more than 4300 digits"),
        (b'{"a": "\xff"}', "cannot read input {}: not valid UTF-8 (byte 0xff at offset 7)"),
    ],
    ids=["deep", "huge-integer", "non-utf8"],
)
def test_hooks_test_input_is_one_line_error(
    tmp_path: Path, isolated_home: Path, content: bytes, message: str
) -> None:
    source = tmp_path / "in.json"
    source.write_bytes(content)
    proc = hookwright("hooks", "test", "PreToolUse", "-i", str(source), home=isolated_home)
    assert proc.returncode == 2
    assert proc.stderr == f"hookwright: error: {message.format(source)}\n"


def test_hooks_test_deep_stdin_is_one_line_error(isolated_home: Path) -> None:
    proc = hookwright("hooks", "test", "PreToolUse", "-i", "-", stdin=DEEP, home=isolated_home)
    assert proc.returncode == 2
    assert proc.stderr == "hookwright: error: input stdin: nesting is deeper than 200 levels\n"


def test_hooks_list_refuses_an_alias_bomb_in_seconds(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "proj"
    bomb = project / ".openharness" / "hooks" / "bomb.yaml"
    bomb.parent.mkdir(parents=True)
    bomb.write_text(
        alias_bomb() + "name: x\nevents: [before_tool_dispatch]\n"
        "handler: {type: command, command: *h}\n"
    )
    (project / ".openharness" / "hooks" / "good.yaml").write_text(
        "name: still-here\nevents: [before_tool_dispatch]\n"
        "handler: {type: command, command: 'true'}\n"
    )
    started = time.monotonic()
    proc = hookwright("hooks", "list", "-p", str(project), home=isolated_home, timeout=60)
    assert time.monotonic() - started < 20
    # A config file that cannot be parsed is an error (exit 1); the others are still listed.
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"error: {bomb}: invalid YAML: aliases expand to more than 100,000 nodes" in proc.stderr
    assert "still-here" in proc.stdout


def test_a_scripted_model_alias_bomb_is_one_line(tmp_path: Path, isolated_home: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text(alias_bomb() + "turns: [{content: *h}]\n")
    proc = hookwright(
        "run", "go", "-p", str(tmp_path), "--model", f"scripted:{script}", home=isolated_home
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith(
        f"hookwright: error: {script}: invalid YAML: aliases expand to more than 100,000 nodes"
    )
    assert len(proc.stderr.splitlines()) == 1


def test_run_with_a_deep_skill_file_and_deep_settings_still_runs(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    hooks_json = project / "skills" / "s" / "hooks" / "hooks.json"
    hooks_json.parent.mkdir(parents=True)
    hooks_json.write_text('{"hooks": ' + "[" * 100_000 + "}")
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"permissions": ' + "[" * 100_000 + "}")
    script = tmp_path / "script.yaml"
    script.write_text("- content: all done\n")
    proc = hookwright(
        "run", "go", "-p", str(project), "--trust", "--skill", "s",
        "--model", f"scripted:{script}", home=isolated_home,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "all done" in proc.stdout
    assert "Traceback" not in proc.stderr
    assert f"{hooks_json}: nesting is deeper than 200 levels; whole file rejected" in proc.stderr
    assert f"error: {settings}: nesting is deeper than 200 levels" in proc.stderr
