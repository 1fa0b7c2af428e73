"""A Codex project's hooks around a subagent in `hookwright run`, as Codex CLI 0.171.0 runs
them around one its `spawn_agent` tool starts (conformance cases `subagent_*`): SubagentStart
context ahead of the subagent's prompt, UserPromptSubmit on that prompt (Codex's hooks only; a
Claude Code hook does not see it), the subagent named after `turn_id` in its hooks' input, and
SubagentStop's own field order."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.cli.walk_kit import summary_rows
from tests.cli_runner import run_hookwright
from tests.codex.project import command, script, write_project
from tests.codex.test_codex_context_placement import context_hook, run

from hookwright.dialects.codex.layers import MANAGED_DIR_ENV
from hookwright.dialects.codex.loader import run_label
from runtime.fake_llm_server import FakeLLMServer, FakeReply, FakeToolCall


def logging(label: str, log: Path) -> list[dict[str, Any]]:
    """A hook appending its label and stdin, a line, to `log`."""
    return command(f'printf "%s %s\\n" {label} "$(cat)" >> {log}')


def logged(log: Path) -> list[tuple[str, dict[str, Any]]]:
    lines = log.read_text().splitlines() if log.exists() else []
    return [(label, json.loads(text)) for label, text in (line.split(" ", 1) for line in lines)]


def test_codex_hooks_around_a_subagent(server: FakeLLMServer, tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    hooks = {
        "SubagentStart": context_hook("SubagentStart", "start context"),
        "UserPromptSubmit": logging("codex-prompt", log),
        "SubagentStop": logging("codex-stop", log),
    }
    home, project = write_project(tmp_path, hooks)
    claude = {"hooks": {"UserPromptSubmit": logging("claude-prompt", log)}}
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(claude))
    spawn = {"prompt": "print sub", "description": "subtask", "subagent_type": "default"}
    call = FakeToolCall("Agent", json.dumps(spawn), id="call_spawn")
    server.queue_openai(FakeReply(tool_calls=[call]), FakeReply("sub done"), FakeReply("done"))
    _, sub, _ = run(home, project, server)
    assert sub[1:] == [
        {"role": "system", "content": "start context"},
        {"role": "user", "content": "print sub"},
    ]
    seen = logged(log)
    labels = [label for label, _ in seen]
    assert sorted(labels[:2]) == ["claude-prompt", "codex-prompt"]  # the main prompt's
    assert labels[2:] == ["codex-prompt", "codex-stop"]  # the subagent's: Codex's hooks only
    (_, prompt), (_, stop) = seen[2:]
    assert list(prompt)[:5] == [
        "session_id",
        "turn_id",
        "agent_id",
        "agent_type",
        "transcript_path",
    ]
    assert prompt["agent_type"] == "default" and prompt["prompt"] == "print sub"
    assert list(stop) == [
        "session_id",
        "turn_id",
        "transcript_path",
        "agent_transcript_path",
        "cwd",
        "hook_event_name",
        "permission_mode",
        "stop_hook_active",
        "agent_id",
        "agent_type",
        "last_assistant_message",
    ]
    assert stop["agent_id"] == prompt["agent_id"] and stop["last_assistant_message"] == "sub done"
    # Inside the subagent `transcript_path` is its own; on SubagentStop the session's, its own
    # the `agent_transcript_path` (measured: case `subagent_events`).
    main = next(wire for label, wire in seen[:2] if label == "codex-prompt")
    assert stop["transcript_path"] == main["transcript_path"]
    assert prompt["transcript_path"] == stop["agent_transcript_path"] != main["transcript_path"]
    assert Path(stop["agent_transcript_path"]).is_file()


def test_a_subagent_stop_continuation_is_named_in_kebab_case() -> None:
    """Codex names the run `subagent-stop:N:FILE` in its `<hook_prompt>` (measured), where its
    review keys say `subagent_stop`."""
    assert run_label("SubagentStop") == "subagent-stop"
    assert run_label("Stop") == "stop"


def test_a_codex_hook_on_spawn_agent_denies_the_agent_call(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    """Codex hooks see the reference agent's `Agent` call as Codex's `spawn_agent`: a matcher
    naming it selects it (and `Agent`, as in Codex; `Task` does not), and the model reads the
    deny as Codex words it; a Claude Code hook matching `Agent` in the same project still sees
    `Agent` and Claude Code's input."""
    log = tmp_path / "log.txt"
    deny = f'printf "%s %s\\n" codex-deny "$(cat)" >> {log}; echo R >&2; exit 2'
    hooks = {
        "PreToolUse": [
            *command(deny, "spawn_agent"),
            {"matcher": "Agent", **logging("codex-agent", log)[0]},
            {"matcher": "Task", **logging("codex-task", log)[0]},
        ],
        "SubagentStart": logging("codex-start", log),
    }
    home, project = write_project(tmp_path, hooks)
    claude = {"hooks": {"PreToolUse": [{"matcher": "Agent", **logging("claude-agent", log)[0]}]}}
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(claude))
    spawn = {"prompt": "print sub", "description": "subtask"}
    call = FakeToolCall("Agent", json.dumps(spawn), id="call_spawn")
    server.queue_openai(FakeReply(tool_calls=[call]), FakeReply("done"))
    requests = run(home, project, server)
    assert len(requests) == 2  # no subagent asked its model
    answer = [m for m in requests[1] if m["role"] == "tool"]
    assert [m["content"] for m in answer] == [
        "Tool call blocked by PreToolUse hook: R. Tool: spawn_agent"
    ]
    seen = dict(logged(log))
    assert sorted(seen) == ["claude-agent", "codex-agent", "codex-deny"]  # no SubagentStart
    for label in ("codex-deny", "codex-agent"):
        codex = seen[label]
        shown = {"message": "print sub"}
        assert (codex["tool_name"], codex["tool_input"]) == ("spawn_agent", shown)
    assert (seen["claude-agent"]["tool_name"], seen["claude-agent"]["tool_input"]) == (
        "Agent",
        spawn,
    )


def test_a_codex_hooks_rewrite_of_spawn_agent_reaches_the_subagent(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    """An `updatedInput` of Codex's `spawn_agent` shape is read back as the `Agent` call: the
    subagent's model reads the rewritten message as its prompt, in the subagent type the call
    asked for; PostToolUse reads the call as `spawn_agent` and the subagent's answer."""
    log = tmp_path / "log.txt"
    rewrite = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"message": "print safe", "agent_type": "default"},
        }
    }
    hooks = {
        "PreToolUse": command(f"echo '{json.dumps(rewrite)}'", "spawn_agent"),
        "PostToolUse": [{"matcher": "spawn_agent", **logging("codex-post", log)[0]}],
        "SubagentStart": logging("codex-start", log),
    }
    home, project = write_project(tmp_path, hooks)
    spawn = {"prompt": "print sub", "description": "subtask", "subagent_type": "explorer"}
    call = FakeToolCall("Agent", json.dumps(spawn), id="call_spawn")
    server.queue_openai(FakeReply(tool_calls=[call]), FakeReply("sub done"), FakeReply("done"))
    _, sub, _ = run(home, project, server)
    assert sub[-1] == {"role": "user", "content": "print safe"}
    seen = dict(logged(log))
    assert seen["codex-start"]["agent_type"] == "default"
    post = seen["codex-post"]
    assert (post["tool_name"], post["tool_input"], post["tool_response"]) == (
        "spawn_agent",
        {"message": "print safe", "agent_type": "default"},
        "sub done",
    )


def _script(project: Path, name: str, body: str) -> dict[str, str]:
    """A command hook running the shell script `body`, saved as `hooks/<name>` in `project`."""
    (project / "hooks").mkdir(parents=True, exist_ok=True)
    (project / "hooks" / name).write_text(body)
    return {"type": "command", "command": f"sh hooks/{name}"}


def _three_systems(tmp_path: Path) -> tuple[Path, Path]:
    """(home, project): on PreToolUse, a Codex hook denying `spawn_agent` and one on `Write`;
    Claude Code hooks on `Agent` (reading its input) and on `Write`; Gemini CLI hooks
    denying `run_shell_command` and on `write_file`; the project trusted by Gemini CLI."""
    root = tmp_path / "project"
    deny = "cat > /dev/null; echo {} >&2; exit 2\n"
    hooks = {"PreToolUse": [
        {"matcher": "spawn_agent", "hooks": [_script(root, "no_agents.sh", deny.format("NA"))]},
        {"matcher": "Write", "hooks": [_script(root, "codex_write.sh", "exit 0\n")]},
    ]}  # fmt: skip
    home, project = write_project(tmp_path, hooks)
    claude = {"hooks": {"PreToolUse": [
        {"matcher": "Agent", "hooks": [_script(root, "claude_agent.sh", "cat > /dev/null\n")]},
        {"matcher": "Write", "hooks": [_script(root, "claude_write.sh", "exit 0\n")]},
    ]}}  # fmt: skip
    gemini = {"hooks": {"BeforeTool": [
        {"matcher": "run_shell_command",
         "hooks": [{**_script(root, "no_shell.sh", deny.format("NS")), "name": "no_shell"}]},
        {"matcher": "write_file",
         "hooks": [{**_script(root, "gemini_write.sh", "exit 0\n"), "name": "gemini_write"}]},
    ]}}  # fmt: skip
    for folder, settings in ((".claude", claude), (".gemini", gemini)):
        (project / folder).mkdir()
        (project / folder / "settings.json").write_text(json.dumps(settings))
    (home / ".gemini").mkdir()
    trusted = {str(project): "TRUST_FOLDER"}
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trusted))
    return home, project


def test_the_run_summary_names_each_call_as_the_hooks_of_its_system_read_it(
    tmp_path: Path,
) -> None:
    """`run --summary` over an `Agent` call and a `Bash` call: a Codex hook's row names the
    first `spawn_agent` with the input Codex showed it, a Gemini CLI hook's the second
    `run_shell_command`; a Claude Code hook's row names the host's `Agent` and `Bash`, in the
    same run, for what each hook did and for what a matcher that took neither read."""
    home, project = _three_systems(tmp_path)
    spawn = {"prompt": "print sub", "description": "subtask"}
    turns = [
        {"tool_calls": [{"id": "c1", "name": "Agent", "arguments": spawn}]},
        {"tool_calls": [{"id": "c2", "name": "Bash", "arguments": {"command": "echo hi"}}]},
        {"content": "ok"},
    ]
    model = script(tmp_path / "model.json", turns)
    done = run_hookwright(
        "run", "go", "--project", str(project), "--trust", "--model", f"scripted:{model}",
        "--permission-mode", "bypassPermissions", "--summary", home=home,
        env={"CODEX_HOME": str(home / ".codex"), MANAGED_DIR_ENV: os.environ[MANAGED_DIR_ENV]},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = summary_rows(done.stdout)
    assert 'denied spawn_agent {"message": "print sub"}: NA' in rows["no_agents.sh"], rows
    assert "matched no call (spawn_agent, Bash)" in rows["codex_write.sh"], rows
    assert "run_shell_command echo hi: NS" in rows["no_shell"], rows
    assert "matched no call (Agent, run_shell_command)" in rows["gemini_write"], rows
    assert "PreToolUse: ran, no decision once" in rows["claude_agent.sh"], rows
    assert "matched no call (Agent, Bash)" in rows["claude_write.sh"], rows
    assert "spawn_agent" not in rows["claude_write.sh"] + rows["claude_agent.sh"]
