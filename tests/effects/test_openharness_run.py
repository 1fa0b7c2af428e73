"""`hookwright run` on an OpenHarness workspace, as the real engine behaves (measured): an
after_tool_dispatch hook's `systemMessage` and `additionalContext` follow the tool's text with a
blank line each, and a hook that times out leaves the operator a `hook.notice` record in the
run's events while the run goes on."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import yaml

from cli_runner import run_cli

from .support import SCRIPT_PRELUDE, jsonl, reply

ECHO_TURNS = [
    {"content": "", "tool_calls": [{"name": "Bash", "arguments": {"command": "echo said"}}]},
    {"match": "said\n\nnote 1\n\nnote 2", "content": "done"},
]


def hook(root: Path, name: str, event: str, body: str, **fields: Any) -> Path:
    """A command hook `name` on `event` running `body`; returns its stdin log."""
    scripts = root / ".openharness" / "hooks" / "scripts"
    scripts.mkdir(parents=True, exist_ok=True)
    script, log = scripts / f"{name}.py", scripts / f"{name}.inputs.jsonl"
    script.write_text(SCRIPT_PRELUDE + body)
    handler = {"type": "command", "command": f'"{sys.executable}" "{script}" "{log}"', **fields}
    data = {"name": name, "events": [event], "handler": handler}
    (root / ".openharness" / "hooks" / f"{name}.yaml").write_text(yaml.safe_dump(data))
    return log


def run(tmp_path: Path, root: Path, turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    script = tmp_path / "model.yaml"
    script.write_text(yaml.safe_dump({"turns": turns}))
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HOOKWRIGHT_", "CLAUDE_"))}
    command = ["run", "go", "--project", str(root)]
    options = ["--model", f"scripted:{script}", "--permission-mode", "bypassPermissions"]
    done = run_cli([*command, *options, "--trust", "--json"], {**env, "HOME": str(home)}, stdin="")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_after_tool_dispatch_notes_follow_the_text_the_model_reads(tmp_path: Path) -> None:
    root = tmp_path / "workspace"
    notes = {"systemMessage": "note 1", "hookSpecificOutput": {"additionalContext": "note 2"}}
    log = hook(root, "noter", "after_tool_dispatch", reply(notes))
    events = run(tmp_path, root, ECHO_TURNS)
    [result] = [e for e in events if e["type"] == "tool_result"]
    assert result["content"] == "said\n\nnote 1\n\nnote 2"
    [seen] = jsonl(log)
    assert seen["hook_event_name"] == "after_tool_dispatch"
    assert seen["tool_output"]["stdout"] == "said"  # the hook reads the structured output
    [end] = [e for e in events if e["type"] == "turn_end"]
    assert (end["status"], end["text"]) == ("completed", "done")


def test_a_hook_that_times_out_leaves_a_notice_and_the_run_goes_on(tmp_path: Path) -> None:
    root = tmp_path / "workspace"
    slow = "import time\ntime.sleep(3)\n" + reply({"systemMessage": "too late"})
    log = hook(root, "slow", "before_tool_dispatch", slow, timeout_seconds=1)
    turns = [
        {"content": "", "tool_calls": [{"name": "Bash", "arguments": {"command": "echo said"}}]},
        {"match": "said", "content": "done"},
    ]
    events = run(tmp_path, root, turns)
    [notice] = [e for e in events if e["type"] == "notice" and "hookName" in e]
    assert {k: notice[k] for k in ("hookName", "eventName", "handlerType", "errorCode")} == {
        "hookName": "slow",
        "eventName": "before_tool_dispatch",
        "handlerType": "command",
        "errorCode": "hook_execution_failed",
    }
    assert "slow" in notice["text"] and notice["event"] == "PreToolUse"
    [seen] = jsonl(log)
    assert seen["tool_name"] == "Bash"
    [result] = [e for e in events if e["type"] == "tool_result"]
    assert (result["content"], result["is_error"]) == ("said", False)
    [end] = [e for e in events if e["type"] == "turn_end"]
    assert (end["status"], end["text"]) == ("completed", "done")
