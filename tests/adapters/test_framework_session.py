"""`FrameworkSession`, the framework-neutral half of every adapter, with real Python hooks and no
framework: what a framework would be told to do, which hooks ran, what was reported."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookwright.config.trust import TrustPolicy
from hookwright.core.events import Event
from hookwright.host import (
    Abilities,
    Ask,
    FrameworkSession,
    ModelRequest,
    ToolAlias,
    ToolMap,
    ToolResult,
)

from .native import native_project, options, runs

PLAIN = Abilities("plain")
CAPABLE = Abilities("capable", ask_user=True, end_turn=True)


def opened(root: Path, hooks: dict[str, str], abilities: Abilities) -> FrameworkSession:
    return FrameworkSession.open(native_project(root, hooks), abilities, **options(root))


@pytest.fixture
def closing() -> Iterator[list[FrameworkSession]]:
    sessions: list[FrameworkSession] = []
    yield sessions
    for session in sessions:
        session.close()


def unexpressed(root: Path) -> list[str]:
    records = [json.loads(line) for line in (root / "audit.jsonl").read_text().splitlines()]
    return [r["reason"] for r in records if r["status"] == "unexpressed"]


def test_ask_without_a_user_is_refused_and_reported(
    tmp_path: Path, closing: list[FrameworkSession], caplog: pytest.LogCaptureFixture
) -> None:
    session = opened(tmp_path, {"PreToolUse": "ask('needs a human')"}, PLAIN)
    closing.append(session)
    with caplog.at_level(logging.WARNING, "hookwright"):
        step = session.before_tool("Bash", {"command": "ls"}, "c1")
    assert step.run is None and step.answer == ToolResult("needs a human", is_error=True)
    assert runs(tmp_path) == [("PreToolUse", "c1")]
    session.close()
    assert any("plain cannot apply ask" in r.getMessage() for r in caplog.records)
    assert unexpressed(tmp_path) == [
        "plain cannot apply ask (no user to ask; the call is refused) from the PreToolUse "
        "hooks; it was not applied"
    ]


def test_a_replayed_call_gets_the_first_step_and_the_users_answer_applies(
    tmp_path: Path, closing: list[FrameworkSession]
) -> None:
    hooks = {"PreToolUse": "ask('sure?')", "PermissionRequest": "None"}
    session = opened(tmp_path, hooks, CAPABLE)
    closing.append(session)
    first = session.before_tool("Bash", {"command": "ls"}, "c1")
    again = session.before_tool("Bash", {"command": "ls"}, "c1")
    assert first is again and first.ask is not None and first.ask.reason == "sure?"
    assert session.resolve(first, True).run is not None
    refused = session.resolve(first, False, "not today").answer
    assert refused == ToolResult("not today", is_error=True)
    assert runs(tmp_path) == [("PreToolUse", "c1"), ("PermissionRequest", "c1")]


def test_a_hook_ending_the_turn_skips_stop(tmp_path: Path, closing: list[FrameworkSession]) -> None:
    hooks = {"PostToolUse": "stop('enough')", "Stop": "block('go on')"}
    session = opened(tmp_path, hooks, CAPABLE)
    closing.append(session)
    assert session.prompt("go") is None
    step = session.before_tool("Bash", {"command": "ls"}, "c1")
    session.after_tool(step, ToolResult("listing"), 1.0)
    assert session.ending is not None and session.ending.reason == "enough"
    assert session.stop("done") is None
    assert [event for event, _ in runs(tmp_path)] == ["PostToolUse"]
    assert session.prompt("again") is None and session.ending is None


def test_ending_the_turn_where_the_framework_cannot_is_reported(
    tmp_path: Path, closing: list[FrameworkSession]
) -> None:
    session = opened(tmp_path, {"PostToolUse": "stop('enough')"}, PLAIN)
    closing.append(session)
    step = session.before_tool("Bash", {"command": "ls"}, "c1")
    session.after_tool(step, ToolResult("listing"), 1.0)
    assert session.ending is None
    session.close()
    assert unexpressed(tmp_path) == [
        "plain cannot apply ending the turn (enough) from the PostToolUse hooks; it was not applied"
    ]


def test_a_blocked_prompt_ends_the_turn_without_stop(
    tmp_path: Path, closing: list[FrameworkSession]
) -> None:
    session = opened(tmp_path, {"UserPromptSubmit": "block('no')", "Stop": "None"}, CAPABLE)
    closing.append(session)
    end = session.prompt("hello")
    assert end is not None and end.reason == "no"
    assert session.stop("") is None
    assert [event for event, _ in runs(tmp_path)] == ["UserPromptSubmit"]


def test_a_closed_session_fails_closed(tmp_path: Path) -> None:
    session = opened(tmp_path, {"PreToolUse": "None"}, PLAIN)
    session.close()
    step = session.before_tool("Bash", {"command": "rm -rf /"}, "c1")
    assert step.run is None and step.answer is not None and step.answer.is_error
    assert "hookwright could not run the PreToolUse hooks: session closed" in step.answer.content
    assert runs(tmp_path) == []


def test_the_core_imports_no_framework() -> None:
    code = (
        "import sys, hookwright, hookwright.host, hookwright.adapters, hookwright.cli.app\n"
        "frameworks = {'agents', 'langchain', 'langgraph', 'pydantic_ai', 'claude_agent_sdk'}\n"
        "loaded = frameworks & {m.split('.')[0] for m in sys.modules}\n"
        "loaded |= {'google.adk'} & set(sys.modules)\n"
        "print(sorted(loaded))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr


# A host that applies verdicts itself (relay) ------------------------------------------------

REWRITE = "__import__('hookwright').rewrite_input({'command': inp.tool_input['command'] + ' -n'})"
AS_BASH = ToolMap([ToolAlias("shell", "Bash", {"cmd": "command"})])


def cli_input(event: Event, **fields: object) -> dict[str, object]:
    common = {"session_id": "cli-1", "transcript_path": "/cli/t.jsonl", "cwd": "/cli"}
    return {**common, "permission_mode": "default", "hook_event_name": event.value, **fields}


def test_relay_maps_tools_both_ways_and_starts_the_session_before_the_first_prompt(
    tmp_path: Path, closing: list[FrameworkSession]
) -> None:
    hooks = {
        "SessionStart": "add_context('from the start')",
        "UserPromptSubmit": "add_context('from the prompt')",
        "PreToolUse": REWRITE,
    }
    root = native_project(tmp_path, hooks)
    session = FrameworkSession.open(root, PLAIN, **options(root, tool_map=AS_BASH))
    closing.append(session)
    first = session.relay(Event.UserPromptSubmit, cli_input(Event.UserPromptSubmit, prompt="go"))
    assert list(first.additional_context) == ["from the start", "from the prompt"]
    call = {"tool_name": "shell", "tool_input": {"cmd": "git push"}, "tool_use_id": "c1"}
    pre = session.relay(Event.PreToolUse, cli_input(Event.PreToolUse, **call))
    assert pre.updated_input == {"cmd": "git push -n"}
    again = session.relay(Event.UserPromptSubmit, cli_input(Event.UserPromptSubmit, prompt="more"))
    assert list(again.additional_context) == ["from the prompt"]
    identity = session.hooks.session.identity
    assert (identity.session_id, identity.cwd, identity.transcript_path) == (
        "cli-1",
        "/cli",
        "/cli/t.jsonl",
    )
    assert runs(root) == [
        ("SessionStart", None),
        ("UserPromptSubmit", None),
        ("PreToolUse", "c1"),
        ("UserPromptSubmit", None),
    ]


def test_relay_and_permission_fail_closed(tmp_path: Path) -> None:
    session = opened(tmp_path, {"PreToolUse": "None", "PermissionRequest": "None"}, PLAIN)
    session.close()
    call = {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}, "tool_use_id": "c1"}
    verdict = session.relay(Event.PreToolUse, cli_input(Event.PreToolUse, **call))
    assert verdict.blocked and "could not run the PreToolUse hooks" in str(verdict.reason)
    step = session.permission(Ask("Bash", {"command": "rm -rf /"}, "sure?"), "c1")
    assert step.run is None and step.answer is not None and step.answer.is_error
    assert "could not run the PermissionRequest hooks" in step.answer.content
    assert runs(tmp_path) == []


def skill_project(root: Path, hooks: list[dict[str, object]]) -> Path:
    folder = root / "skills" / "house" / "hooks"
    folder.mkdir(parents=True)
    for hook in hooks:
        (folder / f"{hook['name']}.md").write_text(f"text of {hook['name']}")
    entries = [{"file": f"{h['name']}.md", "role": "system", **h} for h in hooks]
    (folder / "hooks.json").write_text(json.dumps({"hooks": entries}))
    return native_project(root, {})


def model_call(session: FrameworkSession) -> tuple[str, ...]:
    return session.model_call(ModelRequest("fake", [{"role": "user", "content": "go"}], []))


def test_skill_injections_follow_the_reference_table_across_tool_rounds(
    tmp_path: Path, closing: list[FrameworkSession], caplog: pytest.LogCaptureFixture
) -> None:
    hooks: list[dict[str, object]] = [
        {"name": "always", "timing": "after_user_input", "persistent": False},
        {"name": "kept", "timing": "after_user_input", "persistent": True},
        {"name": "first", "timing": "before_first_agent", "persistent": False},
        {"name": "after", "timing": "after_tool_call", "persistent": False},
        {"name": "plan", "timing": "before_planning", "persistent": False},
    ]
    root = skill_project(tmp_path, hooks)
    with caplog.at_level(logging.WARNING, "hookwright"):
        session = FrameworkSession.open(root, PLAIN, skills=["house"], **options(tmp_path))
    closing.append(session)
    assert session.prompt("go") is None
    assert session.take_context() == ["text of kept"]  # the history keeps it, once
    assert model_call(session) == ("text of always", "text of first")
    step = session.before_tool("Bash", {"command": "true"}, "c1")
    assert step.run is not None
    session.after_tool(step, ToolResult("ok"), 1.0)
    after_tools = ("text of always", "text of first", "text of after")
    assert model_call(session) == after_tools
    assert model_call(session) == after_tools  # until the next batch or the turn's end
    assert session.take_context() == []
    assert session.prompt("again") is None
    assert session.take_context() == ["text of kept"]
    assert model_call(session) == ("text of always", "text of first")
    session.close()
    reported = "plain cannot apply the skill prompt hook house/plan (before_planning"
    assert any(reported in r.getMessage() for r in caplog.records)
    assert any(reported in reason for reason in unexpressed(tmp_path))


def test_skills_of_an_untrusted_folder_are_not_loaded_and_said(
    tmp_path: Path, closing: list[FrameworkSession], caplog: pytest.LogCaptureFixture
) -> None:
    root = skill_project(
        tmp_path, [{"name": "a", "timing": "after_user_input", "persistent": False}]
    )
    untrusted = {**options(tmp_path), "trust": TrustPolicy()}
    with caplog.at_level(logging.WARNING, "hookwright"):
        session = FrameworkSession.open(root, PLAIN, skills=["house"], **untrusted)
    closing.append(session)
    said = "skills house: not used, folder not trusted"
    assert any(said in line for line in session.diagnostics)
    assert any(said in r.getMessage() for r in caplog.records)
    session.prompt("go")
    assert model_call(session) == ()


def test_an_approval_gate_sees_every_call_the_hooks_let_run(
    tmp_path: Path, closing: list[FrameworkSession]
) -> None:
    hooks = {"PreToolUse": "None", "PermissionRequest": "deny('not on fridays')"}
    session = opened(tmp_path, hooks, PLAIN)
    closing.append(session)
    step = session.before_tool("Bash", {"command": "ls"}, "c1")
    assert step.run is None
    assert step.answer == ToolResult(
        "Permission to use Bash was denied: not on fridays", is_error=True
    )
    assert runs(tmp_path) == [("PreToolUse", "c1"), ("PermissionRequest", "c1")]


def test_a_fail_closed_hooks_answer_the_framework_cannot_apply_refuses_the_call(
    tmp_path: Path, closing: list[FrameworkSession], caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / ".hookwright"
    folder.mkdir()
    (folder / "guards.py").write_text(
        "from hookwright import respond\n"
        "from hookwright.host import ToolResult\n"
        "def answer(inp):\n"
        "    return respond(ToolResult('cached', for_user='shown to the user'))\n"
    )
    hook = {"name": "g", "event": "PreToolUse", "call": "guards:answer", "on_error": "block"}
    (folder / "hooks.yaml").write_text(json.dumps({"hooks": [hook]}))
    with caplog.at_level(logging.WARNING, "hookwright"):
        session = FrameworkSession.open(tmp_path, PLAIN, **options(tmp_path))
        closing.append(session)
        step = session.before_tool("Bash", {"command": "ls"}, "c1")
    assert step.run is None and step.answer is not None and step.answer.is_error
    assert step.answer.content.startswith("hookwright refused the call: a fail-closed hook")
    session.close()
    [reason] = unexpressed(tmp_path)
    assert "for_user" in reason and "refused instead: a hook of this event fails closed" in reason
    assert any("fails closed" in r.getMessage() for r in caplog.records)
