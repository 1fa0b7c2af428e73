"""Codex hooks in the reference agent, through `python -m hookwright run`: the bytes a hook
reads, what the model is told, which command ran, and a hook Codex has not reviewed."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.cli_runner import run_hookwright, run_scripted
from tests.codex.project import bash, command, script, write_project

from hookwright.dialects.codex.layers import MANAGED_DIR_ENV


def run(home: Path, project: Path, model: Path) -> list[dict[str, Any]]:
    done = run_scripted(
        project,
        model,
        "--json",
        home=home,
        env={"CODEX_HOME": str(home / ".codex"), MANAGED_DIR_ENV: os.environ[MANAGED_DIR_ENV]},
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def tool_results(events: list[dict[str, Any]]) -> list[str]:
    return [event["content"] for event in events if event["type"] == "tool_result"]


def test_a_pre_tool_use_hook_reads_codex_bytes_and_its_exit_2_blocks_in_codex_words(
    tmp_path: Path,
) -> None:
    hooks = {"PreToolUse": command("cat > seen.json; echo not here >&2; exit 2", "Bash")}
    home, project = write_project(tmp_path, hooks)
    model = script(tmp_path / "s.json", [bash("touch made.txt"), {"content": "ok"}])
    events = run(home, project, model)
    assert not (project / "made.txt").exists()
    assert tool_results(events) == [
        "Command blocked by PreToolUse hook: not here. Command: touch made.txt"
    ]
    raw = (project / "seen.json").read_bytes()
    assert not raw.endswith(b"\n")
    seen = json.loads(raw)
    assert list(seen) == [
        "session_id",
        "turn_id",
        "transcript_path",
        "cwd",
        "hook_event_name",
        "permission_mode",
        "tool_name",
        "tool_input",
        "tool_use_id",
    ]
    assert seen["tool_name"] == "Bash"
    assert seen["tool_input"] == {"command": "touch made.txt"}
    assert raw == json.dumps(seen, separators=(",", ":")).encode()


def test_an_allow_with_updated_input_rewrites_the_command(tmp_path: Path) -> None:
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"command": "touch rewritten.txt"},
        }
    }
    hooks = {"PreToolUse": command(f"echo '{json.dumps(answer)}'")}
    home, project = write_project(tmp_path, hooks)
    run(home, project, script(tmp_path / "s.json", [bash("touch original.txt"), {"content": "ok"}]))
    assert (project / "rewritten.txt").exists()
    assert not (project / "original.txt").exists()


def test_a_plain_allow_is_a_failed_hook_and_the_call_runs(tmp_path: Path) -> None:
    answer = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}
    hooks = {"PreToolUse": command(f"echo '{json.dumps(answer)}'")}
    home, project = write_project(tmp_path, hooks)
    events = run(
        home, project, script(tmp_path / "s.json", [bash("touch made.txt"), {"content": "ok"}])
    )
    assert (project / "made.txt").exists()
    (result,) = [e for e in events if e["type"] == "hook_result"]
    assert result["status"] == "error"
    assert "unsupported permissionDecision:allow" in result["error"]


def test_a_stop_block_continues_with_a_hook_prompt_user_message(tmp_path: Path) -> None:
    once = (
        'in=$(cat); case "$in" in *\'"stop_hook_active":true\'*) exit 0;; esac; '
        "echo 'check <again> & again' >&2; exit 2"
    )
    home, project = write_project(tmp_path, {"Stop": command(once)})
    run(home, project, script(tmp_path / "s.json", [{"content": "one"}, {"content": "two"}]))
    (transcript,) = (home / ".hookwright" / "projects").rglob("*.jsonl")
    users = [
        json.loads(line).get("message", {}).get("content")
        for line in transcript.read_text().splitlines()
        if '"role": "user"' in line or '"role":"user"' in line
    ]
    source = project / ".codex" / "hooks.json"
    assert (
        f'<hook_prompt hook_run_id="stop:0:{source}">check &lt;again&gt; &amp; again</hook_prompt>'
        in users
    )


def test_an_unreviewed_hook_does_not_run_and_hookwright_says_so(tmp_path: Path) -> None:
    hooks = {"PreToolUse": command("touch unreviewed-ran.txt; exit 2", "Bash")}
    home, project = write_project(tmp_path, hooks, unreviewed=["unreviewed-ran"])
    codex = {"CODEX_HOME": str(home / ".codex")}
    assert run_hookwright("trust", str(project), home=home).returncode == 0
    listed = run_hookwright("hooks", "list", "--project", str(project), home=home, env=codex)
    checked = run_hookwright("hooks", "validate", "--project", str(project), home=home, env=codex)
    model = script(tmp_path / "s.json", [bash("touch made.txt"), {"content": "ok"}])
    ran = run_scripted(project, model, home=home, env=codex)
    assert "will not run: not reviewed in Codex. Review it" in listed.stdout
    source = project / ".codex" / "hooks.json"
    review = f'[hooks.state."{source}:pre_tool_use:0:0"] trusted_hash = "sha256:'
    assert "not reviewed in Codex" in checked.stdout + checked.stderr
    assert review in checked.stdout + checked.stderr
    assert review in ran.stderr
    assert (project / "made.txt").exists()
    assert not (project / "unreviewed-ran.txt").exists()
