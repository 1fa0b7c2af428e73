"""`/model NAME` in the reference agent, through `python -m hookwright run` and `chat`:
PreModelSwitch decides (allow, deny, ask without a person), PostModelSwitch context reaches the
new model, and a Claude Code profile without the events fires none of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_runner import run_hookwright

from .hook_log import ANSWERING_LOG_HOOK


def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".claude").mkdir(parents=True)
    (root / "hook.py").write_text(ANSWERING_LOG_HOOK)
    command = [{"hooks": [{"type": "command", "command": f"python3 {root / 'hook.py'}"}]}]
    events = ("PreModelSwitch", "PostModelSwitch", "UserPromptSubmit")
    settings = {"hooks": {event: command for event in events}}
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    (root / "a.json").write_text(json.dumps({"model": "model-a", "turns": [{"content": "A"}]}))
    turn = {"match": "PostModelSwitch hook additional context: NEXT ON B", "content": "B"}
    (root / "b.json").write_text(json.dumps({"model": "model-b", "turns": [turn]}))
    return root


def events(stdout: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    return [event for event in lines if event["type"] != "text_delta"]


def hook_inputs(tmp_path: Path) -> list[dict[str, Any]]:
    log = tmp_path / "hooks.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def run(
    tmp_path: Path, home: Path, command: str, *args: str, answers: dict[str, Any] | None = None
) -> tuple[int, list[dict[str, Any]]]:
    root = tmp_path / "repo"
    done = run_hookwright(
        command,
        *args,
        "--project",
        str(root),
        "--trust",
        "--model",
        f"scripted:{root / 'a.json'}",
        "--json",
        home=home,
        stdin="/model scripted:b.json\nhello\n" if command == "chat" else None,
        env={"HOOK_LOG": str(tmp_path / "hooks.jsonl"), "ANSWERS": json.dumps(answers or {})},
    )
    return done.returncode, events(done.stdout)


def test_the_next_turn_uses_the_new_model_and_gets_the_post_switch_context(
    tmp_path: Path, isolated_home: Path
) -> None:
    project(tmp_path)
    context = {"PostModelSwitch": {"additionalContext": "NEXT ON B"}}
    code, seen = run(
        tmp_path, isolated_home, "chat", "--claude-code-version", "2.1.332", answers=context
    )
    assert code == 0
    said = [e["text"] for e in seen if e["type"] == "command_output"]
    assert said == ["Set model to `model-b` for this session only"]
    assert [e["model"] for e in seen if e["type"] == "model_request"] == ["model-b"]
    assert [e["text"] for e in seen if e["type"] == "assistant"] == ["B"]
    inputs = hook_inputs(tmp_path)
    assert [i["hook_event_name"] for i in inputs] == [
        "PreModelSwitch",
        "PostModelSwitch",
        "UserPromptSubmit",
    ], "the command is no UserPromptSubmit; the next prompt is"
    pre = inputs[0]
    assert list(pre)[4:] == [
        "hook_event_name",
        "from_model",
        "to_model",
        "requested_model",
        "source",
        "context_tokens",
        "prompt_cache_warm",
        "cache_ttl",
        "estimated_cache_write_usd",
        "pricing",
    ], "Claude Code 2.1.332's order, without permission_mode or effort"
    assert (pre["from_model"], pre["to_model"], pre["requested_model"], pre["source"]) == (
        "model-a",
        "model-b",
        "scripted:b.json",
        "command",
    )


def test_a_deny_keeps_the_model_and_says_why(tmp_path: Path, isolated_home: Path) -> None:
    project(tmp_path)
    deny = {"PreModelSwitch": {"permissionDecision": "deny", "permissionDecisionReason": "NOPE"}}
    code, seen = run(
        tmp_path, isolated_home, "chat", "--claude-code-version", "2.1.332", answers=deny
    )
    assert code == 0
    said = [e["text"] for e in seen if e["type"] == "command_output"]
    assert said == ["Model switch to model-b was blocked by a PreModelSwitch hook: NOPE"]
    assert [e["model"] for e in seen if e["type"] == "model_request"] == ["model-a"]
    assert [e["text"] for e in seen if e["type"] == "assistant"] == ["A"]
    assert "PostModelSwitch" not in [i["hook_event_name"] for i in hook_inputs(tmp_path)]


def test_ask_without_a_person_refuses_the_switch(tmp_path: Path, isolated_home: Path) -> None:
    project(tmp_path)
    ask = {"PreModelSwitch": {"permissionDecision": "ask", "permissionDecisionReason": "sure?"}}
    code, seen = run(
        tmp_path,
        isolated_home,
        "run",
        "/model scripted:b.json",
        "--claude-code-version",
        "2.1.332",
        answers=ask,
    )
    assert code == 0
    said = [e["text"] for e in seen if e["type"] == "command_output"]
    assert said == [
        "Model switch to model-b was blocked by a PreModelSwitch hook: sure? "
        "(run /model interactively to confirm)"
    ]
    assert not [e for e in seen if e["type"] in ("model_request", "model_switch")]


def test_a_profile_without_the_events_switches_without_firing_them(
    tmp_path: Path, isolated_home: Path
) -> None:
    root = project(tmp_path)
    (root / "b.json").write_text(json.dumps({"model": "model-b", "turns": [{"content": "B"}]}))
    deny = {"PreModelSwitch": {"permissionDecision": "deny"}}
    code, seen = run(
        tmp_path, isolated_home, "chat", "--claude-code-version", "2.1.240", answers=deny
    )
    assert code == 0
    assert [e["model"] for e in seen if e["type"] == "model_request"] == ["model-b"]
    assert [i["hook_event_name"] for i in hook_inputs(tmp_path)] == ["UserPromptSubmit"]
