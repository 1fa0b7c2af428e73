"""Where a Codex hook's context reaches the model in `hookwright run`, read from the chat
completions requests a real HTTP model server receives: a SessionStart hook's context ahead of
the prompt, a message of its own (Codex's developer message), while a Claude Code SessionStart
hook's in the same project stays after the prompt; other context stays after the prompt or the
tool results."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.cli_runner import run_hookwright
from tests.codex.project import command, write_project

from hookwright.dialects.codex.layers import MANAGED_DIR_ENV
from hookwright.runtime.agent import DEFAULT_SYSTEM_PROMPT
from runtime.fake_llm_server import FakeLLMServer, FakeReply, FakeToolCall


def context_hook(event: str, text: str, matcher: str | None = None) -> list[dict[str, Any]]:
    answer = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    return command(f"echo '{json.dumps(answer)}'", matcher)


def claude_session_start(project: Path, text: str) -> None:
    answer = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    group = {"hooks": [{"type": "command", "command": f"echo '{json.dumps(answer)}'"}]}
    (project / ".claude").mkdir()
    settings = {"hooks": {"SessionStart": [group]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))


def run(home: Path, project: Path, server: FakeLLMServer) -> list[list[dict[str, Any]]]:
    done = run_hookwright(
        "run",
        "go",
        "--project",
        str(project),
        "--trust",
        "--model",
        "openai:gpt-5",
        "--permission-mode",
        "bypassPermissions",
        home=home,
        env={
            "CODEX_HOME": str(home / ".codex"),
            MANAGED_DIR_ENV: os.environ[MANAGED_DIR_ENV],
            "OPENAI_BASE_URL": server.openai_base_url,
            "OPENAI_API_KEY": "test-key",
        },
    )
    assert done.returncode == 0, done.stderr
    return [request.body["messages"] for request in server.requests_for("openai")]


def test_session_start_context_precedes_the_prompt_as_in_codex_and_claude_codes_follows(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    home, project = write_project(
        tmp_path, {"SessionStart": context_hook("SessionStart", "codex context")}
    )
    claude_session_start(project, "claude context")
    server.queue_openai(FakeReply("hi"))
    (messages,) = run(home, project, server)
    assert messages == [
        {"role": "system", "content": DEFAULT_SYSTEM_PROMPT},
        {"role": "system", "content": "codex context"},
        {"role": "user", "content": "go"},
        {"role": "system", "content": "SessionStart hook additional context: claude context"},
    ]


def test_prompt_and_tool_context_follow_the_prompt_and_the_tool_result(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    hooks = {
        "UserPromptSubmit": context_hook("UserPromptSubmit", "prompt context"),
        "PreToolUse": context_hook("PreToolUse", "pre context", "Bash"),
        "PostToolUse": context_hook("PostToolUse", "post context", "Bash"),
    }
    home, project = write_project(tmp_path, hooks)
    call = FakeToolCall("Bash", json.dumps({"command": "printf hi"}), id="call_1")
    server.queue_openai(FakeReply(tool_calls=[call]), FakeReply("done"))
    first, second = run(home, project, server)
    assert first[1:] == [
        {"role": "user", "content": "go"},
        {"role": "system", "content": "prompt context"},
    ]
    assert second[3]["tool_calls"][0]["id"] == "call_1"
    assert second[4:] == [
        {"role": "tool", "tool_call_id": "call_1", "content": "hi"},
        {"role": "system", "content": "pre context\n\npost context"},
    ]
