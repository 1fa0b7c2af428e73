"""SessionStart on ``hookwright run --resume``, through `python -m hookwright run`: under
Claude Code 2.1.332 it carries what resuming costs (seconds since the last answer, its context
tokens, whether the 5 minute cache has likely expired, the cache write estimate), computed from
the session's transcript; 2.1.240 sends none of it."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_hookwright

from .hook_log import ANSWERING_LOG_HOOK


def run(tmp_path: Path, home: Path, version: str, *args: str) -> None:
    done = run_hookwright(
        "run",
        "hello",
        "--project",
        str(tmp_path / "repo"),
        "--trust",
        "--model",
        f"scripted:{tmp_path / 'script.json'}",
        "--claude-code-version",
        version,
        *args,
        home=home,
        env={"HOOK_LOG": str(tmp_path / "hooks.jsonl")},
    )
    assert done.returncode == 0, done.stderr


def age_transcript(home: Path, seconds: int, usage: dict[str, int]) -> None:
    """Move every time of the session's transcript `seconds` back and give its last answer
    `usage` (Claude Code's field names), as a transcript of an older session reads."""
    [path] = [p for p in (home / ".hookwright").rglob("*.jsonl") if p.stem != "audit"]
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines:
        if "timestamp" in line:
            at = datetime.fromisoformat(line["timestamp"].replace("Z", "+00:00"))
            line["timestamp"] = (at - timedelta(seconds=seconds)).isoformat()
    [*_, last] = [line for line in lines if line.get("type") == "assistant"]
    last["message"]["usage"] = usage
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def session_starts(tmp_path: Path) -> list[dict[str, Any]]:
    log = (tmp_path / "hooks.jsonl").read_text().splitlines()
    return [json.loads(line) for line in log]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".claude").mkdir(parents=True)
    (tmp_path / "hook.py").write_text(ANSWERING_LOG_HOOK)
    hook = {"type": "command", "command": f"python3 {tmp_path / 'hook.py'}"}
    (root / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"SessionStart": [{"hooks": [hook]}]}})
    )
    (tmp_path / "script.json").write_text(json.dumps([{"content": "one"}, {"content": "two"}]))
    return root


def resumed(tmp_path: Path, home: Path, version: str, seconds: int) -> dict[str, Any]:
    """The SessionStart input of a resume `seconds` after the first run's answer."""
    run(tmp_path, home, version)
    [first] = session_starts(tmp_path)
    age_transcript(
        home, seconds, {"input_tokens": 150, "cache_read_input_tokens": 10, "output_tokens": 10}
    )
    run(tmp_path, home, version, "--resume", first["session_id"])
    [_, second] = session_starts(tmp_path)
    assert second["session_id"] == first["session_id"]
    return second


def test_a_resume_tells_what_it_costs(project: Path, tmp_path: Path, isolated_home: Path) -> None:
    start = resumed(tmp_path, isolated_home, "2.1.332", 400)
    assert list(start)[-5:] == [
        "source",
        "seconds_since_last_response",
        "context_tokens",
        "prompt_cache_likely_expired",
        "estimated_cache_write_usd",
    ]
    assert start["source"] == "resume"
    assert 400 <= start["seconds_since_last_response"] < 460
    assert start["context_tokens"] == 170
    assert start["prompt_cache_likely_expired"] is True
    assert start["estimated_cache_write_usd"] == 0.0011, "170 tokens at 6.25 USD per million"


def test_a_recent_answer_has_a_warm_cache(
    project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    start = resumed(tmp_path, isolated_home, "2.1.332", 0)
    assert start["seconds_since_last_response"] < 60
    assert start["prompt_cache_likely_expired"] is False


def test_an_older_profile_sends_no_cost(project: Path, tmp_path: Path, isolated_home: Path) -> None:
    start = resumed(tmp_path, isolated_home, "2.1.240", 400)
    assert start["source"] == "resume"
    assert "context_tokens" not in start and "seconds_since_last_response" not in start


@pytest.mark.parametrize(("seconds", "warm"), [(0, True), (400, False)])
def test_a_switch_after_a_resume_reads_the_cache_warm_within_its_lifetime(
    project: Path, tmp_path: Path, isolated_home: Path, seconds: int, warm: bool
) -> None:
    """`prompt_cache_warm` of a `/model` switch as a resumed run's prompt: the transcript's
    last answer within the 5 minute cache lifetime or not."""
    hook = [{"hooks": [{"type": "command", "command": f"python3 {tmp_path / 'hook.py'}"}]}]
    settings = {"hooks": {"PreModelSwitch": hook}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    run(tmp_path, isolated_home, "2.1.332")
    [session] = [
        p.stem for p in (isolated_home / ".hookwright").rglob("*.jsonl") if p.stem != "audit"
    ]
    age_transcript(isolated_home, seconds, {"input_tokens": 150, "output_tokens": 20})
    done = run_hookwright(
        "run",
        "/model sonnet",
        "--project",
        str(project),
        "--trust",
        "--model",
        f"scripted:{tmp_path / 'script.json'}",
        "--claude-code-version",
        "2.1.332",
        "--resume",
        session,
        home=isolated_home,
        env={"HOOK_LOG": str(tmp_path / "hooks.jsonl")},
    )
    assert done.returncode == 0, done.stderr
    [switch] = session_starts(tmp_path)
    assert (switch["context_tokens"], switch["prompt_cache_warm"]) == (170, warm)
