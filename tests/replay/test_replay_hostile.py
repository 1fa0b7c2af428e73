"""Hostile recorded files given to `hookwright replay`: each bad line is one warning naming
its file and line, the good lines are still replayed, and bad arguments exit 2."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_hookwright

GUARD = "from hookwright import deny\n\ndef deny_all(inp):\n    return deny('no')\n"


def project_with_guard(root: Path) -> Path:
    project = root / "project"
    (project / ".hookwright").mkdir(parents=True)
    (project / ".hookwright" / "guards.py").write_text(GUARD)
    (project / ".hookwright" / "hooks.yaml").write_text(
        "hooks:\n  - name: deny-all\n    event: PreToolUse\n    call: guards:deny_all\n"
    )
    return project


def assistant_line(session: str, tool_input: object) -> str:
    block = {"type": "tool_use", "id": "call_1", "name": "Bash", "input": tool_input}
    line = {
        "type": "assistant",
        "sessionId": session,
        "timestamp": "2026-11-20T10:00:00.000Z",
        "message": {"role": "assistant", "content": [block]},
    }
    return json.dumps(line)


def deep(levels: int) -> object:
    value: object = "x"
    for _ in range(levels):
        value = {"a": value}
    return value


def test_bad_lines_are_one_line_warnings_and_good_ones_replay(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = project_with_guard(tmp_path)
    recorded = tmp_path / "hostile.jsonl"
    lines = [
        "x" * 5_000_000,
        "this is not JSON",
        "[" * 200_000,
        assistant_line("s-deep", {"command": deep(100)}),
        json.dumps([1, 2, 3]),
        assistant_line("s-good", {"command": "ls"}),
    ]
    recorded.write_bytes("\n".join(lines).encode() + b"\n\xff\xfe\x00garbage\n")
    done = run_hookwright(
        "replay", "-p", str(project), "--trust", "--json", str(recorded), home=isolated_home
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"hookwright: warning: {recorded}:1: line longer than 4,000,000 bytes, skipped",
        f"hookwright: warning: {recorded}:2: not JSON, skipped",
        f"hookwright: warning: {recorded}:3: JSON nested too deep, skipped",
        f"hookwright: warning: {recorded}:4: tool input nested deeper than 64, skipped",
        f"hookwright: warning: {recorded}:5: not a transcript line or an audit record, skipped",
        f"hookwright: warning: {recorded}:7: not JSON, skipped",
    ]
    document = json.loads(done.stdout)
    assert (document["replayed"], document["skipped_lines"]) == (1, 6)
    assert document["changed"][0]["session_id"] == "s-good"
    assert document["changed"][0]["hooks"] == ["deny-all"]


def test_recorded_control_characters_are_not_printed(tmp_path: Path, isolated_home: Path) -> None:
    project = project_with_guard(tmp_path)
    recorded = tmp_path / "escapes.jsonl"
    recorded.write_text(
        assistant_line("s\x1b]0;title\x07", {"command": "ls \x1b[2J\x9b31m"}) + "\n"
    )
    done = run_hookwright(
        "replay", "-p", str(project), "--trust", str(recorded), home=isolated_home
    )
    assert done.returncode == 1, done.stderr
    assert (
        done.stdout.splitlines()[0]
        == "s?]0;title?  PreToolUse Bash ls ?[2J?31m  none → deny  (deny-all)"
    )


def test_bad_arguments_exit_2(tmp_path: Path, isolated_home: Path) -> None:
    project = project_with_guard(tmp_path)
    missing = run_hookwright(
        "replay", "-p", str(project), "--trust", str(tmp_path / "nope.jsonl"), home=isolated_home
    )
    assert (missing.returncode, missing.stdout) == (2, "")
    assert missing.stderr == f"hookwright: error: recorded file {tmp_path / 'nope.jsonl'} " \
        "does not exist\n"  # fmt: skip
    when = run_hookwright("replay", "-p", str(project), "--since", "soon", home=isolated_home)
    assert when.returncode == 2 and when.stderr.startswith("hookwright: error: --since/--until:")
    no_folder = run_hookwright("replay", "--policy", str(tmp_path / "x"), home=isolated_home)
    assert no_folder.returncode == 2 and "does not exist" in no_folder.stderr


def test_nothing_recorded_replays_nothing(tmp_path: Path, isolated_home: Path) -> None:
    project = project_with_guard(tmp_path)
    done = run_hookwright("replay", "-p", str(project), "--trust", home=isolated_home)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "0 of 0 recorded calls in 0 sessions would be decided differently\n"
