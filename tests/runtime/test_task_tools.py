"""The task list tools of `hookwright run` (TaskCreate, TaskUpdate) and their hooks, as real
subprocesses with a scripted model: what the model read from each call, and which hooks ran."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from cli_runner import logged_inputs, run_settings_project

TASKS_ON = {"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"}
CREATE = {"name": "TaskCreate", "arguments": {"subject": "ship", "description": "now"}}
COMPLETE = {"name": "TaskUpdate", "arguments": {"taskId": "1", "status": "completed"}}


def logging_hook(log: Path, exit_code: int, stderr: str = "") -> dict[str, Any]:
    """A command hook that appends its stdin to `log`, writes `stderr` and exits `exit_code`."""
    program = (
        "import sys; data = sys.stdin.read(); "
        f"open({str(log)!r}, 'a').write(data + '\\n'); "
        f"sys.stderr.write({stderr!r}); sys.exit({exit_code})"
    )
    return {"type": "command", "command": f"{sys.executable} -c {json.dumps(program)}"}


def run_session(
    project: Path,
    home: Path,
    hooks: dict[str, list[dict[str, Any]]],
    env: dict[str, str] | None = TASKS_ON,
) -> list[dict[str, Any]]:
    """`hookwright run` on a script creating task 1 and completing it: the tool results."""
    turns = [{"tool_calls": [CREATE]}, {"tool_calls": [COMPLETE]}, {"content": "done"}]
    proc, events = run_settings_project(project, home, hooks, env, turns)
    assert proc.returncode == 0, proc.stderr
    return [event for event in events if event["type"] == "tool_result"]


def test_a_blocking_task_completed_hook_keeps_the_task_open_and_the_model_reads_why(
    tmp_path: Path, isolated_home: Path
) -> None:
    log = tmp_path / "hook.jsonl"
    hook = logging_hook(log, 2, "tests fail")
    results = run_session(tmp_path / "p", isolated_home, {"TaskCompleted": [{"hooks": [hook]}]})
    assert [r["content"] for r in results] == [
        "Task #1 created successfully: ship",
        f"TaskCompleted hook feedback:\n[{hook['command']}]: tests fail",
    ]
    assert not results[1]["is_error"]
    [seen] = logged_inputs(log)
    assert seen["hook_event_name"] == "TaskCompleted"
    assert (seen["task_id"], seen["task_subject"], seen["task_description"]) == ("1", "ship", "now")
    assert "permission_mode" not in seen


def test_a_failing_task_completed_hook_never_blocks_even_under_on_failure_block(
    tmp_path: Path, isolated_home: Path
) -> None:
    log = tmp_path / "hook.jsonl"
    hook = {**logging_hook(log, 1, "crashed"), "onFailure": "block"}
    results = run_session(tmp_path / "p", isolated_home, {"TaskCompleted": [{"hooks": [hook]}]})
    assert results[1]["content"] == "Updated task #1 status"
    assert len(logged_inputs(log)) == 1


def test_a_blocking_task_created_hook_drops_the_task(tmp_path: Path, isolated_home: Path) -> None:
    created, completed = tmp_path / "created.jsonl", tmp_path / "completed.jsonl"
    hooks = {
        "TaskCreated": [{"hooks": [logging_hook(created, 2, "no new tasks")]}],
        "TaskCompleted": [{"hooks": [logging_hook(completed, 0)]}],
    }
    results = run_session(tmp_path / "p", isolated_home, hooks)
    assert results[0]["is_error"]
    assert results[0]["content"].startswith("TaskCreated hook feedback:\n")
    assert results[0]["content"].endswith("]: no new tasks")
    assert results[1]["content"] == "Task not found"
    assert len(logged_inputs(created)) == 1
    assert logged_inputs(completed) == []


def test_without_the_switch_there_are_no_task_tools(tmp_path: Path, isolated_home: Path) -> None:
    log = tmp_path / "hook.jsonl"
    hooks = {"TaskCreated": [{"hooks": [logging_hook(log, 0)]}]}
    results = run_session(tmp_path / "p", isolated_home, hooks, env=None)
    assert all(r["is_error"] for r in results)
    assert results[0]["content"] == "Error: No such tool available: TaskCreate"
    assert logged_inputs(log) == []
