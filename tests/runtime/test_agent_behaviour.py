"""How the reference agent applies verdicts and survives bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hookwright import (
    HookEngine,
    HookInput,
    HookResult,
    abort,
    add_context,
    allow,
    ask,
    block,
    deny,
    respond,
    rewrite_input,
    stop,
)
from hookwright.core.effects import Effects
from hookwright.runtime import transcript as transcripts
from hookwright.runtime.agent import Agent, AgentConfig
from hookwright.runtime.models import ModelConfigError, make_model
from hookwright.runtime.models.scripted import ScriptedModel
from hookwright.runtime.opening import SessionOptions, open_session
from hookwright.runtime.permissions import PermissionPolicy
from hookwright.runtime.tools import default_tools


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


@pytest.fixture
def make_agent(tmp_path: Path, isolated_home: Path) -> Any:
    engines: list[HookEngine] = []

    def build(
        turns: list[dict[str, Any]], **config: Any
    ) -> tuple[Agent, HookEngine, ScriptedModel, list[dict[str, Any]]]:
        project = tmp_path / "project"
        project.mkdir(exist_ok=True)
        for name in ("a", "b"):
            (project / name).write_text(f"file {name}\n")
        engine = HookEngine(audit_path=None)
        engines.append(engine)
        model = ScriptedModel.from_turns(turns)
        events: list[dict[str, Any]] = []
        cfg = AgentConfig(project_dir=project, home=isolated_home, **config)
        agent = Agent(engine, model, default_tools(), cfg, on_event=events.append)
        return agent, engine, model, events

    yield build
    for engine in engines:
        engine.close()


def tool_messages(model: ScriptedModel, index: int) -> list[str]:
    return [m["content"] for m in model.calls[index].messages if m["role"] == "tool"]


# Bad input ---------------------------------------------------------------------------------


async def test_unknown_tool_and_invalid_arguments_are_tool_errors(make_agent: Any) -> None:
    agent, _, model, _ = make_agent(
        [
            {"tool_calls": [call("Teleport", to="mars"), call("Read", path="x")]},
            {"tool_calls": [{"name": "Read", "arguments": "{not json"}]},
            {"content": "recovered"},
        ]
    )
    result = await agent.run("go")
    assert result.status == "completed"
    assert result.final_text == "recovered"
    unknown, invalid = tool_messages(model, 1)
    assert unknown == "Error: No such tool available: Teleport"
    assert invalid == (
        "<tool_use_error>InputValidationError: Read failed due to the following issues:\n"
        "The required parameter `file_path` is missing\n"
        "An unexpected parameter `path` was provided</tool_use_error>"
    )
    assert tool_messages(model, 2)[-1].startswith(
        "InputValidationError: the tool arguments are not a JSON object: {not json"
    )
    assert transcripts.load(Path(agent.transcript_path))[-1]["content"] == "recovered"


def test_unknown_model_and_malformed_script(tmp_path: Path) -> None:
    with pytest.raises(ModelConfigError, match="unknown model 'gpt4'"):
        make_model("gpt4")
    script = tmp_path / "script.yaml"
    script.write_text("turns:\n  - content: hi\n    tool_calls:\n      - arguments: {}\n")
    with pytest.raises(ModelConfigError, match=r"script.yaml: turns\[0\].tool_calls\[0\].name"):
        make_model(f"scripted:{script}")


async def test_model_error_fires_stop_failure_and_keeps_the_transcript(make_agent: Any) -> None:
    agent, engine, _, events = make_agent([{"error": "rate_limit"}])
    seen: list[HookInput] = []
    engine.add(seen.append, "StopFailure")
    result = await agent.run("hello")
    assert result.status == "failed"
    assert seen[0].payload["error"] == "rate_limit"
    assert seen[0].payload["last_assistant_message"]
    assert any(e["type"] == "error" and e["kind"] == "rate_limit" for e in events)
    assert transcripts.load(Path(agent.transcript_path))[-1] == {
        "role": "user",
        "content": "hello",
    }


# Verdicts ----------------------------------------------------------------------------------


async def test_prompt_blocked_by_user_prompt_submit(make_agent: Any) -> None:
    agent, engine, model, events = make_agent([{"content": "never"}])
    engine.add(lambda i: block("no secrets in prompts"), "UserPromptSubmit")
    result = await agent.run("my password is hunter2")
    assert result.status == "blocked"
    assert model.calls == []
    assert all(m.get("content") != "my password is hunter2" for m in agent.messages)
    assert events[-2] == {
        "type": "prompt_blocked",
        "reason": "no secrets in prompts",
        "message": "UserPromptSubmit operation blocked by hook:\nno secrets in prompts\n\n"
        "Original prompt: my password is hunter2",
    }


async def test_context_from_user_prompt_and_session_start_reaches_the_model_once(
    make_agent: Any,
) -> None:
    agent, engine, model, _ = make_agent([{"content": "one"}, {"content": "two"}])
    engine.add(lambda i: add_context("repo uses tabs"), "SessionStart")
    engine.add(lambda i: add_context(f"prompt was {i['prompt']}"), "UserPromptSubmit")
    await agent.start()
    await agent.run("first")
    await agent.run("second")
    assert model.calls[0].messages[1:] == [
        {"role": "user", "content": "first"},
        {"role": "system", "content": "repo uses tabs\n\nprompt was first"},
    ]
    joined = json.dumps(model.calls[1].messages)
    assert joined.count("repo uses tabs") == 1
    assert joined.count("prompt was second") == 1


async def test_rewritten_input_is_what_runs_and_is_rechecked_by_rules(
    make_agent: Any, tmp_path: Path
) -> None:
    agent, engine, model, _ = make_agent(
        [
            {"tool_calls": [call("Bash", command="echo original")]},
            {"tool_calls": [call("Bash", command="echo sneaky")]},
            {"content": "done"},
        ],
        permission_mode="bypassPermissions",
    )
    agent.policy.add_rules("deny", ["Bash(rm *)"])

    def rewrite(inp: HookInput) -> HookResult:
        if "sneaky" in inp.tool_input["command"]:
            return rewrite_input({"command": "rm -rf /tmp/nothing-here"})
        return rewrite_input({"command": "echo rewritten"})

    engine.add(rewrite, "PreToolUse", matcher="Bash")
    await agent.run("go")
    assert tool_messages(model, 1)[0].strip() == "rewritten"
    assert "denied by rule Bash(rm *)" in tool_messages(model, 2)[-1]


async def test_respond_answers_a_plugin_tool_without_running_anything(make_agent: Any) -> None:
    weather = {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "weather",
            "parameters": {"type": "object"},
        },
    }
    agent, engine, model, _ = make_agent(
        [{"tool_calls": [call("get_weather", city="Oslo")]}, {"content": "It is sunny."}]
    )

    def add_tool(inp: HookInput) -> HookResult:
        return rewrite_input({"tools": [*inp.payload["tools"], weather]})

    def answer(inp: HookInput) -> HookResult | None:
        if inp.tool_name == "get_weather":
            return respond({"for_llm": f"sunny in {inp.tool_input['city']}", "is_error": False})
        return None

    engine.add(add_tool, "before_llm", mode="chain")
    engine.add(answer, "before_tool", mode="chain")
    result = await agent.run("weather?")
    assert result.final_text == "It is sunny."
    assert "get_weather" in [t["function"]["name"] for t in model.calls[0].tools or []]
    assert tool_messages(model, 1) == ["sunny in Oslo"]


async def test_hard_abort_rolls_history_back_to_the_turn_start(make_agent: Any) -> None:
    agent, engine, _, _ = make_agent(
        [{"tool_calls": [call("Read", file_path="a")]}, {"content": "never"}]
    )
    engine.add(lambda i: abort("hard", "security stop"), "PreToolUse")
    before = list(agent.messages)
    result = await agent.run("read a")
    assert result.status == "aborted"
    assert agent.messages == before
    assert transcripts.load(Path(agent.transcript_path)) == before


async def test_turn_abort_keeps_history_valid(make_agent: Any) -> None:
    agent, engine, _, _ = make_agent(
        [{"tool_calls": [call("Read", file_path="a"), call("Read", file_path="b")]}]
    )
    engine.add(lambda i: abort("turn", "enough"), "PreToolUse")
    result = await agent.run("read")
    assert result.status == "aborted"
    calls = agent.messages[-3]["tool_calls"]
    answered = [m["tool_call_id"] for m in agent.messages if m["role"] == "tool"]
    assert answered == [c["id"] for c in calls]


async def test_continue_false_stops_after_the_tool_batch(make_agent: Any) -> None:
    agent, engine, model, _ = make_agent(
        [{"tool_calls": [call("Read", file_path="a")]}, {"content": "never"}]
    )
    engine.add(lambda i: stop("quota reached"), "PostToolUse")
    result = await agent.run("read")
    assert result.status == "stopped"
    assert result.reason == "quota reached"
    assert len(model.calls) == 1


async def test_pre_model_call_rewrites_the_request_and_block_fails_the_run(
    make_agent: Any,
) -> None:
    agent, engine, model, _ = make_agent([{"content": "ok"}])

    def add_message(inp: HookInput) -> HookResult:
        messages = [*inp.payload["messages"], {"role": "user", "content": "(be brief)"}]
        return rewrite_input({"messages": messages, "options": {"temperature": 0}})

    engine.add(add_message, "PreModelCall", mode="chain")
    await agent.run("hi")
    assert model.calls[0].messages[-1] == {"role": "user", "content": "(be brief)"}
    assert model.calls[0].options == {"temperature": 0}
    failed: list[HookInput] = []
    engine.add(lambda i: block("model calls are frozen"), "PreModelCall", mode="chain")
    engine.add(failed.append, "run_failed")
    result = await agent.run("again")
    assert result.status == "failed"
    assert failed[0].payload["error"] == "hook_blocked"


async def test_post_model_call_replaces_the_response(make_agent: Any) -> None:
    agent, engine, _, _ = make_agent([{"content": "the secret is 42"}])

    def redact(inp: HookInput) -> HookResult:
        response = dict(inp.payload["response"])
        response["content"] = response["content"].replace("42", "[redacted]")
        return HookResult(updated_output=response)

    engine.add(redact, "after_llm", mode="chain")
    result = await agent.run("secret?")
    assert result.final_text == "the secret is [redacted]"


async def test_stop_block_cap(make_agent: Any) -> None:
    agent, engine, model, events = make_agent([{"content": f"try {n}"} for n in range(12)])
    engine.add(lambda i: block("keep going"), "Stop")
    result = await agent.run("loop")
    assert result.status == "completed"
    assert len(model.calls) == 9
    assert any("blocked 8 times" in e.get("text", "") for e in events)


@pytest.mark.parametrize(
    ("cap", "calls", "status"), [("2", 3, "completed"), ("0", 20, "max_turns")]
)
async def test_stop_block_cap_from_the_environment(
    make_agent: Any, monkeypatch: pytest.MonkeyPatch, cap: str, calls: int, status: str
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", cap)
    agent, engine, model, _ = make_agent([{"content": f"try {n}"} for n in range(12)])
    engine.add(lambda i: block("keep going"), "Stop")
    result = await agent.run("loop")
    assert len(model.calls) == calls
    assert result.status == status


async def test_post_tool_use_block_feedback_reaches_the_model(make_agent: Any) -> None:
    agent, engine, model, _ = make_agent(
        [{"tool_calls": [call("Read", file_path="a")]}, {"content": "ok"}]
    )
    engine.add(lambda i: block("lint failed"), "PostToolUse")
    await agent.run("x")
    assert tool_messages(model, 1)[0] == "1\tfile a\n2\t"
    assert model.calls[1].messages[-1] == {
        "role": "system",
        "content": "PostToolUse hook feedback:\nlint failed",
    }


# Permissions -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "tool", "expected"),
    [
        ("default", "Read", "allow"),
        ("default", "Write", "ask"),
        ("default", "Bash", "ask"),
        ("acceptEdits", "Write", "allow"),
        ("acceptEdits", "Bash", "ask"),
        ("plan", "Read", "allow"),
        ("plan", "Bash", "deny"),
        ("dontAsk", "Bash", "deny"),
        ("bypassPermissions", "Bash", "allow"),
    ],
)
def test_permission_modes(mode: Any, tool: str, expected: str) -> None:
    policy = PermissionPolicy(mode=mode)
    outcome = policy.check(tool, {"command": "ls"}, read_only=tool == "Read", cwd="/w")
    assert outcome.behavior == expected


def test_rules_precedence_and_hook_allow() -> None:
    policy = PermissionPolicy(mode="bypassPermissions")
    policy.add_rules("allow", ["Bash(git *)"])
    policy.add_rules("ask", ["Bash(git push *)"])
    policy.add_rules("deny", ["Bash(git push --force *)"])
    check = policy.check
    assert check("Bash", {"command": "git status"}, read_only=False, cwd="/").behavior == "allow"
    assert check("Bash", {"command": "git push origin"}, read_only=False, cwd="/").behavior == "ask"
    assert (
        check("Bash", {"command": "git push --force x"}, read_only=False, cwd="/").behavior
        == "deny"
    )
    assert (
        check(
            "Bash", {"command": "git push o"}, read_only=False, cwd="/", hook_allowed=True
        ).behavior
        == "ask"
    )
    policy.mode = "default"
    assert (
        check("Bash", {"command": "ls"}, read_only=False, cwd="/", hook_allowed=True).behavior
        == "allow"
    )


async def test_unanswered_ask_is_denied_with_claude_codes_text(make_agent: Any) -> None:
    agent, _, model, _ = make_agent(
        [{"tool_calls": [call("Bash", command="ls")]}, {"content": "ok"}]
    )
    await agent.run("ls")
    assert tool_messages(model, 1) == ["This command requires approval"]


NOT_GRANTED = "Claude requested permissions to {}, but you haven't granted it yet."
HOOK_ASKED = "Hook PreToolUse:Read asked for confirmation for this tool"


@pytest.mark.parametrize(
    ("tool", "arguments", "ask_rule", "hook_answer", "expected"),
    [
        (
            "Write",
            {"file_path": "new.txt", "content": "x"},
            None,
            None,
            NOT_GRANTED.format("write to {project}/new.txt"),
        ),
        (
            "Edit",
            {"file_path": "a", "old_string": "a", "new_string": "b"},
            None,
            None,
            NOT_GRANTED.format("write to {project}/a"),
        ),
        ("Bash", {"command": "echo hi"}, "Bash(echo *)", None, NOT_GRANTED.format("use Bash")),
        ("Bash", {"command": "echo hi"}, None, ask("a human should look"), "a human should look"),
        ("Read", {"file_path": "a"}, None, ask(), HOOK_ASKED),
    ],
    ids=["write-by-mode", "edit-by-mode", "ask-rule", "hook-ask-reason", "hook-ask-bare"],
)
async def test_an_unanswered_permission_tells_the_model_what_claude_code_says(
    make_agent: Any,
    tool: str,
    arguments: dict[str, Any],
    ask_rule: str | None,
    hook_answer: HookResult | None,
    expected: str,
) -> None:
    """Measured in Claude Code 2.1.240 `-p` (default mode, no one to answer): the tool result
    is an error whose text is the PreToolUse ask reason, else who asked. PermissionRequest
    hooks still run in hookwright; this one decides nothing."""
    agent, engine, model, events = make_agent(
        [{"tool_calls": [call(tool, **arguments)]}, {"content": "ok"}]
    )
    if ask_rule is not None:
        agent.policy.add_rules("ask", [ask_rule])
    if hook_answer is not None:
        engine.add(lambda _: hook_answer, "PreToolUse")
    asked: list[str] = []
    engine.add(lambda inp: asked.append(inp.tool_name), "PermissionRequest")
    await agent.run("go")
    assert tool_messages(model, 1) == [expected.format(project=agent.config.project_dir)]
    [result] = [e for e in events if e["type"] == "tool_result"]
    assert (result["is_error"], result["skipped"]) == (True, "permission denied")
    assert asked == [tool]
    assert (agent.config.project_dir / "a").read_text() == "file a\n"
    assert not (agent.config.project_dir / "new.txt").exists()


async def test_permission_request_hook_allows_and_updates_permissions(
    make_agent: Any, tmp_path: Path
) -> None:
    agent, engine, model, _ = make_agent(
        [
            {"tool_calls": [call("Bash", command="echo one")]},
            {"tool_calls": [call("Bash", command="echo two")]},
            {"content": "ok"},
        ]
    )
    calls: list[str] = []

    def approve(inp: HookInput) -> HookResult | None:
        if not inp.payload["permission_prompt"]:
            return None
        calls.append(inp.tool_input["command"])
        update = {
            "type": "addRules",
            "rules": [{"toolName": "Bash", "ruleContent": "echo *"}],
            "behavior": "allow",
            "destination": "localSettings",
        }
        return HookResult(decision=allow().decision, effects=Effects(permission_updates=(update,)))

    engine.add(approve, "PermissionRequest")
    await agent.run("go")
    assert calls == ["echo one"]
    assert tool_messages(model, 2)[-1].strip() == "two"
    local = json.loads((agent.config.project_dir / ".claude" / "settings.local.json").read_text())
    assert local == {"permissions": {"allow": ["Bash(echo *)"]}}


async def test_permission_request_hook_denies(make_agent: Any) -> None:
    agent, engine, model, _ = make_agent(
        [{"tool_calls": [call("Write", file_path="x", content="y")]}, {"content": "ok"}]
    )
    engine.add(lambda i: deny("writes need review"), "PermissionRequest")
    await agent.run("write")
    assert tool_messages(model, 1)[0] == "Permission to use Write was denied: writes need review"
    assert not (agent.config.project_dir / "x").exists()


# Sessions, trust, transcript ---------------------------------------------------------------


def write_hooks(project: Path) -> None:
    hooks = project / ".hookwright"
    hooks.mkdir(parents=True, exist_ok=True)
    (hooks / "guard.py").write_text(
        "from hookwright import deny\ndef no_bash(inp):\n    return deny('project hook ran')\n"
    )
    (hooks / "hooks.yaml").write_text(
        "hooks:\n  - {name: no-bash, event: PreToolUse, matcher: Bash, call: 'guard:no_bash'}\n"
    )
    (hooks / "script.yaml").write_text(
        "turns:\n  - tool_calls: [{name: Bash, arguments: {command: 'echo hi'}}]\n"
        "  - content: finished\n"
    )


async def test_untrusted_project_hooks_do_not_run(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "repo"
    write_hooks(project)
    setup = await open_session(
        SessionOptions(
            project,
            home=isolated_home,
            permission_mode="bypassPermissions",
            model=f"scripted:{project / '.hookwright' / 'script.yaml'}",
        )
    )
    assert setup.untrusted_hooks == 1
    assert any("hookwright trust" in line and "--trust" in line for line in setup.diagnostics)
    assert setup.engine.hooks("PreToolUse") == []
    setup.engine.close()
    trusted = await open_session(SessionOptions(project, home=isolated_home, trust=True))
    assert [s.name for s in trusted.engine.hooks("PreToolUse")] == ["no-bash"]
    trusted.engine.close()


async def test_resume_continues_from_the_transcript(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "repo"
    write_hooks(project)
    setup = await open_session(
        SessionOptions(project, home=isolated_home, permission_mode="bypassPermissions", trust=True)
    )
    await setup.agent.run("say hi")
    await setup.agent.close()
    setup.engine.close()
    resumed = await open_session(
        SessionOptions(project, home=isolated_home, resume=setup.agent.session_id, trust=True)
    )
    assert resumed.agent.messages == transcripts.load(Path(setup.agent.transcript_path))
    assert resumed.agent.messages[-1] == {"role": "assistant", "content": "finished"}
    resumed.engine.close()
    with pytest.raises(ValueError, match="no transcript"):
        await open_session(SessionOptions(project, home=isolated_home, resume="nope", trust=True))


#: Lines as hookwright wrote them before transcripts were compact JSON in Claude Code's order.
SPACED_TRANSCRIPT = [
    {"parentUuid": None, "type": "system", "subtype": "hookwright_system", "content": "sys"},
    {"type": "user", "message": {"role": "user", "content": "list files"}},
    {
        "type": "assistant",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": [
                {"type": "tool_use", "id": "c1", "name": "Bash", "input": {"command": "ls"}}
            ],
            "stop_reason": "tool_use",
        },
    },
    {
        "type": "user",
        "message": {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "a.txt", "is_error": False}
            ],
        },
        "toolUseResult": {"stdout": "a.txt\n", "stderr": ""},
    },
    {
        "type": "assistant",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "one file"}]},
    },
]


async def test_resume_reads_transcripts_written_before_lines_were_compact(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    path = transcripts.transcript_path(isolated_home, project, "old-session")
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in SPACED_TRANSCRIPT))

    model = ScriptedModel.from_turns([{"content": "unused"}])
    resumed = await open_session(
        SessionOptions(project, home=isolated_home, resume="old-session", trust=True, model=model)
    )

    assert resumed.agent.messages == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "list files"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "Bash", "arguments": '{"command": "ls"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
        {"role": "assistant", "content": "one file"},
    ]
    resumed.engine.close()
    path.write_text("not json\n")
    with pytest.raises(ValueError, match="empty transcript"):
        await open_session(
            SessionOptions(
                project, home=isolated_home, resume="old-session", trust=True, model=model
            )
        )


def test_kill_9_leaves_a_readable_transcript(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    writer = (
        "import sys\n"
        "from pathlib import Path\n"
        "from hookwright.runtime.transcript import Transcript\n"
        f"t = Transcript(Path({str(path)!r}), 's', '/')\n"
        "print('ready', flush=True)\n"
        "i = 0\n"
        "while True:\n"
        "    t.message({'role': 'user', 'content': 'x' * 5000 + str(i)})\n"
        "    i += 1\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", writer], stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == b"ready"
        while not path.exists() or path.stat().st_size < 200_000:
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=10)
        if proc.stdout:
            proc.stdout.close()
    raw = path.read_text().splitlines()
    parsed = [json.loads(line) for line in raw[:-1]]
    assert len(parsed) > 10
    messages = transcripts.load(path)
    assert len(messages) >= len(parsed)
    assert all(m["content"].startswith("x" * 5000) for m in messages)


async def test_pre_compact_block_skips_compaction(make_agent: Any) -> None:
    agent, engine, model, events = make_agent(
        [{"content": "one"}, {"content": "two"}, {"content": "three"}], keep_recent=1
    )
    await agent.run("first")
    await agent.run("second")
    engine.add(lambda i: block("keep the full history"), "PreCompact")
    seen: list[str] = []
    engine.add(lambda i: seen.append("post"), "PostCompact")
    agent.config.compact_tokens = 1
    await agent.run("third")
    assert seen == []
    assert [e["text"] for e in events if e["type"] == "notice"] == [
        "compaction skipped: keep the full history"
    ]
    assert [m["content"] for m in model.calls[2].messages if m["role"] == "user"] == [
        "first",
        "second",
        "third",
    ]


# Prompts and the shell's directory ---------------------------------------------------------

TWO_PROMPTS = [
    {"tool_calls": [call("Bash", command="mkdir -p sub && cd sub")]},
    {"content": "moved"},
    {"tool_calls": [call("Bash", command="pwd")]},
    {"content": "looked"},
]


@pytest.mark.parametrize(("interactive", "second_dir"), [(False, ""), (True, "sub")])
async def test_each_prompt_gets_its_own_id_and_the_shell_directory_as_claude_code_keeps_it(
    make_agent: Any, interactive: bool, second_dir: str
) -> None:
    """`claude -p` with several prompts starts each one in the project; interactive Claude Code
    keeps the directory the shell was left in (both measured with Claude Code 2.1.240)."""
    agent, engine, model, _ = make_agent(
        TWO_PROMPTS, permission_mode="bypassPermissions", interactive=interactive
    )
    seen: list[tuple[str, str | None, str | None]] = []
    for event in ("UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"):
        engine.add(lambda i: seen.append((i.event.value, i.payload.get("prompt_id"), i.cwd)), event)
    project = agent.config.project_dir
    second = str(project / second_dir) if second_dir else str(project)

    await agent.run("first")
    await agent.run("second")
    await agent.close()

    first_id, second_id = seen[0][1], seen[3][1]
    assert first_id != second_id
    assert seen == [
        ("UserPromptSubmit", first_id, str(project)),
        ("PostToolUse", first_id, str(project / "sub")),
        ("Stop", first_id, str(project / "sub")),
        ("UserPromptSubmit", second_id, second),
        ("PostToolUse", second_id, second),
        ("Stop", second_id, second),
        ("SessionEnd", second_id, second),
    ]
    assert tool_messages(model, 3)[-1] == os.path.realpath(second)
