"""Hook text on the wire: the request bodies a real HTTP model server receives.

Through `hookwright run` and the Anthropic Messages API, hook text is where Claude Code 2.1.240
puts it: the system prompt in `system`, hook context as `system` messages inside `messages`
after the prompt or the tool results, a blocked call as an `is_error` tool result, and Stop
feedback as user text blocks. Through the OpenAI API, the same history travels as chat
messages (a mid-conversation system message is valid there) without Anthropic's fields.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_hookwright
from hookwright.runtime.agent import DEFAULT_SYSTEM_PROMPT
from hookwright.runtime.opening import SessionOptions, open_session

from .fake_llm_server import FakeLLMServer, FakeReply, FakeToolCall

PRE_TOOL = """\
import json, sys
data = json.load(sys.stdin)
if data["tool_input"]["command"] == "echo no":
    print("no", file=sys.stderr)
    sys.exit(2)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                         "additionalContext": "ok"}}))
"""
SESSION_START = """\
import json
print(json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart",
                                         "additionalContext": "S"}}))
"""
STOP = """\
import json, sys, time
data = json.load(sys.stdin)
time.sleep(float(sys.argv[2]))
if not data["stop_hook_active"]:
    print(json.dumps({"decision": "block", "reason": sys.argv[1]}))
"""
BLOCK_PROMPT = """\
import json
print(json.dumps({"decision": "block", "reason": "nope"}))
"""


def project_with(root: Path, hooks: dict[str, list[tuple[str, str]]]) -> dict[str, str]:
    """A project whose settings run Python `hooks` (event -> [(script, arguments)]); returns
    each event's first command, as Claude Code quotes it in the text it shows."""
    settings: dict[str, Any] = {"hooks": {}}
    commands: dict[str, str] = {}
    for event, scripts in hooks.items():
        for index, (body, arguments) in enumerate(scripts):
            script = root / ".claude" / f"{event}-{index}.py"
            script.parent.mkdir(parents=True, exist_ok=True)
            script.write_text(body)
            command = f"{sys.executable} {script} {arguments}".strip()
            commands.setdefault(event, command)
            entry = {"hooks": [{"type": "command", "command": command}]}
            settings["hooks"].setdefault(event, []).append(entry)
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    return commands


def run(root: Path, home: Path, server: FakeLLMServer, prompt: str = "go") -> Any:
    return run_hookwright(
        "run",
        prompt,
        "--project",
        str(root),
        "--trust",
        "--model",
        "anthropic:claude-test",
        "--permission-mode",
        "bypassPermissions",
        home=home,
        env={"ANTHROPIC_BASE_URL": server.anthropic_base_url, "ANTHROPIC_API_KEY": "sk-ant-t"},
    )


def test_anthropic_requests_carry_hook_text_as_claude_code_sends_it(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    commands = project_with(
        tmp_path,
        {
            "SessionStart": [(SESSION_START, "")],
            "PreToolUse": [(PRE_TOOL, "")],
            "Stop": [(STOP, "B1 0"), (STOP, "B2 0.4")],
        },
    )
    server.queue_anthropic(
        FakeReply(
            tool_calls=[
                FakeToolCall("Bash", json.dumps({"command": "echo no"}), id="toolu_1"),
                FakeToolCall("Bash", json.dumps({"command": "echo yes"}), id="toolu_2"),
            ]
        ),
        FakeReply("first"),
        FakeReply("second"),
    )
    done = run(tmp_path, isolated_home, server)
    assert done.returncode == 0, done.stderr
    first, second, third = (r.body for r in server.requests_for("anthropic"))
    assert first["system"] == second["system"] == DEFAULT_SYSTEM_PROMPT
    prompt = [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {"role": "system", "content": "SessionStart hook additional context: S"},
    ]
    assert first["messages"] == prompt
    uses = [
        {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "echo no"}},
        {"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"command": "echo yes"}},
    ]
    error = f"PreToolUse:Bash hook error: [{commands['PreToolUse']}]: no\n"
    results = [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": error, "is_error": True},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "yes"},
    ]
    round_one = [
        *prompt,
        {"role": "assistant", "content": uses},
        {"role": "user", "content": results},
        {"role": "system", "content": "PreToolUse:Bash hook additional context: ok"},
    ]
    assert second["messages"] == round_one
    assert third["messages"] == [
        *round_one,
        {"role": "assistant", "content": [{"type": "text", "text": "first"}]},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Stop hook feedback:\nB1\n"},
                {"type": "text", "text": "Stop hook feedback:\nB2"},
            ],
        },
    ]


def test_a_blocked_prompt_prints_claude_codes_message_and_calls_no_model(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    project_with(tmp_path, {"UserPromptSubmit": [(BLOCK_PROMPT, "")]})
    done = run(tmp_path, isolated_home, server, "my prompt")
    assert "UserPromptSubmit operation blocked by hook:\nnope\n\nOriginal prompt: my prompt" in (
        done.stdout
    )
    assert server.requests_for("anthropic") == []


async def test_openai_requests_carry_hook_text_as_chat_messages(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    commands = project_with(tmp_path, {"PreToolUse": [(PRE_TOOL, "")]})
    server.queue_openai(
        FakeReply(
            tool_calls=[
                FakeToolCall("Bash", json.dumps({"command": "echo no"}), id="c1"),
                FakeToolCall("Bash", json.dumps({"command": "echo yes"}), id="c2"),
            ]
        ),
        FakeReply("done"),
    )
    setup = await open_session(
        SessionOptions(
            tmp_path,
            home=isolated_home,
            model="openai:test-model",
            trust=True,
            permission_mode="bypassPermissions",
        )
    )
    try:
        result = await setup.agent.run("go")
    finally:
        await setup.agent.close()
        await setup.engine.aclose()
    assert result.status == "completed"
    second = server.requests_for("openai")[1].body["messages"]
    assert second[-3:] == [
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": f"PreToolUse:Bash hook error: [{commands['PreToolUse']}]: no\n",
        },
        {"role": "tool", "tool_call_id": "c2", "content": "yes"},
        {"role": "system", "content": "PreToolUse:Bash hook additional context: ok"},
    ]
