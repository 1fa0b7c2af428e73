"""The failure policy and the report of what will not run, through the real entry points: a
project opened by `HookSession.open` (the docs/embedding.md loop, the pydantic-ai adapter),
Claude Code command hooks run as real processes, the audit file on disk."""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from hookwright.config.policy import load_failure_policy
from hookwright.config.policy_rules import PolicyTarget
from hookwright.config.trust import TrustStore
from hookwright.core.events import Event
from hookwright.host import Deny, HookSession, Run

from .test_embedding_doc import doc_loop

RM_GUARD = (
    "import json, sys\n"
    "data = json.load(sys.stdin)\n"
    "sys.exit(2 if 'rm' in data['tool_input']['command'] else 0)\n"
)


def claude_project(root: Path, command: str, *, timeout: int | None = None) -> Path:
    """A project whose `.claude/settings.json` runs `command` before every Bash call."""
    hook: dict[str, Any] = {"type": "command", "command": command}
    if timeout is not None:
        hook["timeout"] = timeout
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return root


def rm_guarded_project(root: Path) -> Path:
    script = root / "guard.py"
    root.mkdir()
    script.write_text(RM_GUARD, encoding="utf-8")
    return claude_project(root, f"{sys.executable} {script}")


def write_policy(path: Path, rules: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"rules": rules}), encoding="utf-8")  # JSON is YAML
    return path


@pytest.fixture(autouse=True)
def no_managed_policy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    managed = tmp_path / "managed" / "policy.yaml"
    monkeypatch.setenv("HOOKWRIGHT_MANAGED_POLICY", str(managed))
    return managed


def audit_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# Precedence -----------------------------------------------------------------------------------


def test_managed_beats_user_beats_project_and_a_project_only_tightens(
    tmp_path: Path, isolated_home: Path, no_managed_policy: Path
) -> None:
    project = tmp_path / "p"
    write_policy(no_managed_policy, [{"fail": "closed", "events": ["PreToolUse"]}])
    write_policy(
        isolated_home / ".hookwright" / "policy.yaml",
        [{"fail": "open", "hooks": ["*notify*"]}, {"fail": "closed", "dialects": ["picoclaw"]}],
    )
    project_file = write_policy(
        project / ".hookwright" / "policy.yaml",
        [{"fail": "open", "events": ["PreToolUse"]}, {"fail": "closed", "hooks": ["*lint*"]}],
    )
    policy, problems = load_failure_policy(project, isolated_home)
    assert problems == []

    def closed(name: str, dialect: str, event: Event) -> bool:
        return policy.decide(PolicyTarget(name, dialect, "/x", event)).closed

    decision = policy.decide(PolicyTarget("command:guard", "claude_code", "/x", Event.PreToolUse))
    assert decision.closed
    assert [rule.file for rule in decision.ignored] == [str(project_file)]
    notify = policy.decide(PolicyTarget("command:notify", "claude_code", "/x", Event.PreToolUse))
    assert [rule.path for rule in notify.ignored] == ["rules[0]", "rules[0]"]
    assert closed("command:notify", "claude_code", Event.PreToolUse)  # user cannot loosen
    assert not closed("command:notify", "claude_code", Event.PostToolUse)
    assert closed("hook.before_tool", "picoclaw", Event.PostToolUse)  # user tightens
    assert closed("command:lint", "claude_code", Event.PostToolUse)  # project tightens
    assert not closed("command:lint", "claude_code", Event.Stop)  # never closed


def test_mistakes_in_a_policy_never_loosen_it(tmp_path: Path, isolated_home: Path) -> None:
    path = write_policy(
        isolated_home / ".hookwright" / "policy.yaml",
        [
            {"fail": "clsoed", "events": ["PreToolUse"]},
            {"fail": "open", "evnts": ["PreToolUse"]},
            {"fail": "closed", "events": ["PreTolUse"], "dialects": ["native"]},
        ],
    )
    policy, problems = load_failure_policy(tmp_path, isolated_home)
    text = "\n".join(map(str, problems))
    assert f"{path}: rules[0].fail: expected open or closed, got 'clsoed'; read as closed" in text
    assert "rules[1].evnts: unknown key 'evnts' (did you mean 'events'?)" in text
    assert "rules[1]: this 'fail: open' rule is not applied" in text
    assert "rules[2].events: unknown event 'PreTolUse'" in text
    assert policy.decide(PolicyTarget("a", "claude_code", "", Event.PreToolUse)).closed
    assert policy.decide(PolicyTarget("a", "native", "", Event.PostToolUse)).closed
    assert not policy.decide(PolicyTarget("a", "claude_code", "", Event.PostToolUse)).closed


def test_an_unreadable_policy_is_an_error_naming_it(tmp_path: Path, isolated_home: Path) -> None:
    path = isolated_home / ".hookwright" / "policy.yaml"
    path.parent.mkdir()
    path.write_text("rules: [fail: closed\n", encoding="utf-8")
    _, problems = load_failure_policy(tmp_path, isolated_home)
    assert len(problems) == 1
    assert str(problems[0]).startswith(f"error: {path}: invalid YAML")
    assert str(problems[0]).endswith("; failure policy not applied")


# Never silent at open ---------------------------------------------------------------------------


async def test_an_untrusted_folder_is_logged_listed_and_audited(
    tmp_path: Path, isolated_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    project = rm_guarded_project(tmp_path / "project")
    audit = tmp_path / "audit.jsonl"
    settings = project / ".claude" / "settings.json"
    with caplog.at_level(logging.WARNING, logger="hookwright.open"):
        session = await HookSession.open(project, audit_path=audit)
    async with session:
        decision = await session.before_tool("Bash", {"command": "rm -rf build"}, "t1")
    assert isinstance(decision.action, Run)  # no policy: the call runs, but not in silence
    [skipped] = session.skipped
    assert skipped.reason == "untrusted"
    assert skipped.file.startswith(f"{settings}:")
    [line] = [r.getMessage() for r in caplog.records if r.name == "hookwright.open"]
    assert line.startswith(f"{settings}:hooks.PreToolUse[0]")
    assert f"not run: untrusted; trust the folder with: hookwright trust {project}" in line
    [record] = [r for r in audit_records(audit) if r["status"] == "not_run"]
    assert record["event"] == "PreToolUse"
    assert record["error"] == "untrusted"
    assert record["reason"] == line


async def test_the_documented_loop_on_an_untrusted_folder_warns_then_blocks_under_the_policy(
    tmp_path: Path, isolated_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    project = rm_guarded_project(tmp_path / "project")
    replies = [
        {
            "content": "",
            "tool_calls": [{"id": "c1", "name": "Bash", "args": {"command": "rm -rf build"}}],
        },
        {"content": "done"},
    ]

    async def run_loop() -> tuple[list[str], list[list[dict[str, Any]]]]:
        seen: list[list[dict[str, Any]]] = []
        ran: list[str] = []

        def call_model(messages: Any) -> dict[str, Any]:
            seen.append([dict(m) for m in messages])
            return replies[len(seen) - 1]

        await doc_loop()(
            project, "Clean up", call_model, {"Bash": lambda command: ran.append(command)}
        )
        return ran, seen

    with caplog.at_level(logging.WARNING, logger="hookwright.open"):
        ran, _ = await run_loop()
    assert ran == ["rm -rf build"]
    assert any("not run: untrusted" in r.getMessage() for r in caplog.records)

    write_policy(
        isolated_home / ".hookwright" / "policy.yaml",
        [{"fail": "closed", "events": ["PreToolUse"]}],
    )
    ran, seen = await run_loop()
    assert ran == []
    [told] = [m["content"] for m in seen[1] if m["role"] == "tool"]
    assert f"the folder {project} is not trusted" in told
    assert f"hookwright trust {project}" in told


def test_the_pydantic_ai_adapter_on_an_untrusted_folder_never_runs_the_guarded_call(
    tmp_path: Path, isolated_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from pydantic_ai import Agent, Tool
    from pydantic_ai.messages import (
        ModelMessage,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
    )
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from hookwright.adapters.pydantic_ai import PydanticAIHooks
    from hookwright.host import ToolAlias, ToolMap

    project = rm_guarded_project(tmp_path / "project")
    write_policy(
        isolated_home / ".hookwright" / "policy.yaml",
        [{"fail": "closed", "dialects": ["claude_code"]}],
    )
    ran: list[str] = []
    received: list[list[ModelMessage]] = []

    def shell(cmd: str) -> str:
        """Run a shell command."""
        ran.append(cmd)
        return "ok"

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        received.append(list(messages))
        if len(received) == 1:
            return ModelResponse(
                parts=[ToolCallPart("shell", {"cmd": "rm -rf build"}, tool_call_id="c1")]
            )
        return ModelResponse(parts=[TextPart("done")])

    as_bash = ToolMap([ToolAlias("shell", "Bash", {"cmd": "command"})])
    with (
        caplog.at_level(logging.WARNING, logger="hookwright.open"),
        PydanticAIHooks.open(project, tool_map=as_bash) as hooks,
    ):
        assert [item.reason for item in hooks.session.skipped] == ["untrusted"]
        Agent(FunctionModel(model), tools=[Tool(shell)], capabilities=[hooks]).run_sync("Clean")
    assert ran == []
    returns = [p for m in received[1] for p in m.parts if isinstance(p, ToolReturnPart)]
    assert f"hookwright trust {project}" in returns[0].model_response_str()
    assert any("not run: untrusted" in r.getMessage() for r in caplog.records)


# Missing commands and failures that fail closed ---------------------------------------------


async def test_a_missing_or_non_executable_command_is_reported_at_open(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = claude_project(tmp_path / "p", '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh')
    TrustStore(isolated_home).trust(project)
    guard = project / ".claude" / "hooks" / "guard.sh"
    async with await HookSession.open(project) as session:
        [missing] = session.skipped
    assert (missing.reason, missing.path) == ("missing_command", str(guard))
    assert str(missing).endswith(
        f"fails when it runs: missing command: {guard}; create {guard} or correct the command"
    )
    guard.parent.mkdir()
    guard.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    async with await HookSession.open(project) as session:
        [plain] = session.skipped
    assert (plain.reason, plain.fix) == ("not_executable", f"make it executable: chmod +x {guard}")
    os.chmod(guard, 0o755)
    async with await HookSession.open(project) as session:
        assert session.skipped == ()


@pytest.mark.parametrize(
    ("command", "timeout", "failure"),
    [
        ('"$CLAUDE_PROJECT_DIR"/missing.sh', None, "failed: "),
        (
            f"{sys.executable} -c 'import sys; sys.exit(3)'",
            None,
            "failed: Failed with non-blocking status code 3",
        ),
        (f"{sys.executable} -c 'import time; time.sleep(30)'", 1, "timed out: timed out after 1s"),
    ],
    ids=["cannot-start", "crash", "timeout"],
)
async def test_a_failing_hook_the_policy_closes_blocks_and_says_which_and_why(
    tmp_path: Path, isolated_home: Path, command: str, timeout: int | None, failure: str
) -> None:
    project = claude_project(tmp_path / "p", command, timeout=timeout)
    TrustStore(isolated_home).trust(project)
    async with await HookSession.open(project) as open_session:
        decision = await open_session.before_tool("Bash", {"command": "ls"}, "t1")
        assert isinstance(decision.action, Run)  # fails open without a policy
    write_policy(
        project / ".hookwright" / "policy.yaml", [{"fail": "closed", "events": ["PreToolUse"]}]
    )
    async with await HookSession.open(project) as session:
        decision = await session.before_tool("Bash", {"command": "ls"}, "t2")
    assert isinstance(decision.action, Deny)
    settings = project / ".claude" / "settings.json"
    name = f"command:{command}"
    expected = f"hook {name!r} (Claude Code, {settings}:hooks.PreToolUse[0].hooks[0]) {failure}"
    assert decision.action.message is not None
    assert expected in decision.action.message


async def test_a_project_cannot_open_what_the_user_closes(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = claude_project(tmp_path / "p", f"{sys.executable} -c 'import sys; sys.exit(3)'")
    TrustStore(isolated_home).trust(project)
    write_policy(
        isolated_home / ".hookwright" / "policy.yaml",
        [{"fail": "closed", "dialects": ["claude_code"]}],
    )
    loosen = write_policy(project / ".hookwright" / "policy.yaml", [{"fail": "open"}])
    async with await HookSession.open(project) as session:
        decision = await session.before_tool("Bash", {"command": "ls"}, "t1")
    assert isinstance(decision.action, Deny)
    [warning] = [d for d in session.diagnostics if "'fail: open' ignored" in d]
    assert warning.startswith(f"warning: {loosen}: rules[0]: 'fail: open' ignored for hook")
