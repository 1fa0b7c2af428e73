"""`hookwright run --teammate NAME@TEAM` as a real subprocess with a scripted model: TeammateIdle
fires when the teammate would stop; a block keeps it working, a failure never does."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from cli_runner import logged_inputs, run_settings_project

TEAMS_ON = {"CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1"}


def logging_hook(log: Path, exit_code: int, *, once: bool = False) -> dict[str, Any]:
    """A command hook appending its stdin to `log` and exiting `exit_code` (with `once`, only
    on its first run; 0 after)."""
    program = (
        "import os, sys; data = sys.stdin.read(); "
        f"first = not os.path.exists({str(log)!r}); "
        f"open({str(log)!r}, 'a').write(data.strip() + '\\n'); "
        "sys.stderr.write('keep going'); "
        f"sys.exit({exit_code} if first or not {once} else 0)"
    )
    return {"type": "command", "command": f"{sys.executable} -c {json.dumps(program)}"}


def run_teammate(
    project: Path,
    home: Path,
    hooks: dict[str, list[dict[str, Any]]],
    env: dict[str, str] | None = TEAMS_ON,
    teammate: str = "worker@team1",
) -> tuple[Any, list[dict[str, Any]]]:
    """The run and its `--json` events, the model answering "first", then "second"."""
    turns = [{"content": "first"}, {"content": "second"}]
    return run_settings_project(project, home, hooks, env, turns, "--teammate", teammate)


def final_text(events: list[dict[str, Any]]) -> str:
    [end] = [event for event in events if event["type"] == "turn_end"]
    return str(end["text"])


def test_a_blocking_teammate_idle_hook_keeps_the_teammate_working(
    tmp_path: Path, isolated_home: Path
) -> None:
    idle, stop = tmp_path / "idle.jsonl", tmp_path / "stop.jsonl"
    hooks = {
        "TeammateIdle": [{"hooks": [logging_hook(idle, 2, once=True)]}],
        "Stop": [{"hooks": [logging_hook(stop, 0)]}],
    }
    proc, events = run_teammate(tmp_path / "p", isolated_home, hooks)
    assert proc.returncode == 0, proc.stderr
    assert final_text(events) == "second"
    seen = logged_inputs(idle)
    assert len(seen) == 2
    assert {(s["teammate_name"], s["team_name"]) for s in seen} == {("worker", "team1")}
    assert [s["stop_hook_active"] for s in logged_inputs(stop)] == [False, True]
    transcript = Path(events[0]["transcript"]).read_text()
    assert "TeammateIdle hook feedback:\\n[" in transcript
    assert "]: keep going" in transcript


def test_a_failing_teammate_idle_hook_never_keeps_it_working(
    tmp_path: Path, isolated_home: Path
) -> None:
    idle = tmp_path / "idle.jsonl"
    hook = {**logging_hook(idle, 1), "onFailure": "block"}
    proc, events = run_teammate(
        tmp_path / "p", isolated_home, {"TeammateIdle": [{"hooks": [hook]}]}
    )
    assert proc.returncode == 0, proc.stderr
    assert final_text(events) == "first"
    assert len(logged_inputs(idle)) == 1


def test_without_agent_teams_the_teammate_flag_is_said_to_do_nothing(
    tmp_path: Path, isolated_home: Path
) -> None:
    idle = tmp_path / "idle.jsonl"
    hooks = {"TeammateIdle": [{"hooks": [logging_hook(idle, 2)]}]}
    proc, events = run_teammate(tmp_path / "p", isolated_home, hooks, env=None)
    assert proc.returncode == 0, proc.stderr
    assert "--teammate worker@team1: agent teams are off" in proc.stderr
    assert "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1" in proc.stderr
    assert final_text(events) == "first"
    assert logged_inputs(idle) == []


def test_a_malformed_teammate_is_a_one_line_error(tmp_path: Path, isolated_home: Path) -> None:
    proc, _ = run_teammate(tmp_path / "p", isolated_home, {}, teammate="worker")
    assert proc.returncode == 2
    [line] = proc.stderr.strip().splitlines()
    assert "--teammate 'worker': expected NAME@TEAM" in line
