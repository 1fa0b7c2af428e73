"""Claude Code hooks (`.claude/settings.json`, real command hooks) through the reference agent:
what the model, the tools and the hooks actually received, for each effect docs/claude-code.md
and docs/runtime.md promise that the end-to-end tests in tests/claude_code/test_e2e_run.py do
not already check."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from .support import (
    Live,
    call,
    jsonl,
    reply,
    run_once,
    texts,
    tool_messages,
    two_turns_then_compact,
    write_script,
)


class Project:
    """A project whose `.claude/settings.json` runs Python command hooks."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.hooks_dir = root / ".claude" / "hooks"
        self.settings: dict[str, Any] = {"hooks": {}}
        root.mkdir(parents=True, exist_ok=True)

    def on(
        self,
        event: str,
        body: str,
        *,
        matcher: str | None = None,
        flags: dict[str, bool] | None = None,
    ) -> Path:
        """Add a command hook running `body`; returns the file its stdin inputs are logged to."""
        name = f"{event}-{len(self.settings['hooks'].get(event, []))}"
        script, log = write_script(self.hooks_dir, name, body)
        handler: dict[str, Any] = {
            "type": "command",
            "command": f'"{sys.executable}" "{script}" "{log}"',
        }
        handler.update(flags or {})
        group: dict[str, Any] = {"hooks": [handler]}
        if matcher is not None:
            group["matcher"] = matcher
        self.settings["hooks"].setdefault(event, []).append(group)
        path = self.root / ".claude" / "settings.json"
        path.write_text(json.dumps(self.settings))
        return log


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path / "project")


def reminder(text: str) -> str:
    return f"<system-reminder>\n{text}\n</system-reminder>"


def specific(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}


# UserPromptSubmit ---------------------------------------------------------------------------------


async def test_user_prompt_block_erases_the_prompt_and_calls_no_model(
    project: Project, isolated_home: Path
) -> None:
    project.on(
        "UserPromptSubmit",
        "if 'password' in data['prompt']:\n"
        "    print(json.dumps({'decision': 'block', 'reason': 'no secrets in prompts'}))\n",
    )

    async def second_prompt(live: Live) -> None:
        await live.run("Now list the files.")

    live = await run_once(
        project.root,
        isolated_home,
        [{"content": "Listing."}],
        "my password is hunter2",
        then=second_prompt,
    )
    blocked, allowed = live.results
    assert (blocked.status, blocked.reason) == ("blocked", "no secrets in prompts")
    assert [e["reason"] for e in live.of("prompt_blocked")] == ["no secrets in prompts"]
    [request] = live.calls  # only the second prompt reached the model
    assert "hunter2" not in json.dumps(request.messages)
    assert texts(request, "user") == ["Now list the files."]
    assert allowed.status == "completed"


async def test_user_prompt_context_lands_with_the_prompt(
    project: Project, isolated_home: Path
) -> None:
    project.on("UserPromptSubmit", reply(specific("UserPromptSubmit", additionalContext="ctx-42")))
    project.on("UserPromptSubmit", reply("plain stdout is context too"))
    live = await run_once(project.root, isolated_home, [{"content": "ok"}], "Fix the bug.")
    [request] = live.calls
    [user] = texts(request, "user")
    assert user.startswith("Fix the bug.\n\n")
    assert reminder("ctx-42") in user
    assert reminder("plain stdout is context too") in user


# PreToolUse ---------------------------------------------------------------------------------------


async def test_pre_tool_use_continue_false_ends_the_turn_after_the_tool(
    project: Project, isolated_home: Path
) -> None:
    project.on("PreToolUse", reply({"continue": False, "stopReason": "budget spent"}))
    post = project.on("PostToolUse", reply(""))
    batch = project.on("PostToolBatch", reply(""))
    stop = project.on("Stop", reply(""))
    live = await run_once(
        project.root,
        isolated_home,
        [{"content": "", "tool_calls": [call("Bash", command="echo hi")]}, {"content": "never"}],
    )
    [result] = live.results
    assert (result.status, result.reason) == ("stopped", "budget spent")
    assert len(live.calls) == 1  # no follow-up model call
    assert len(jsonl(post)) == 1  # the tool ran; then, as in Claude Code, the turn just ends
    assert not batch.exists() and not stop.exists()


async def test_system_message_is_shown_to_the_user_not_the_model(
    project: Project, isolated_home: Path
) -> None:
    project.on("PreToolUse", reply({"systemMessage": "heads up: Bash is audited"}))
    live = await run_once(
        project.root,
        isolated_home,
        [{"content": "", "tool_calls": [call("Bash", command="echo hi")]}, {"content": "done"}],
    )
    assert "heads up: Bash is audited" in [e["text"] for e in live.of("notice")]
    assert all("heads up" not in json.dumps(c.messages) for c in live.calls)
    assert tool_messages(live.calls[1]) == ["hi"]


# PermissionRequest --------------------------------------------------------------------------------


async def test_permission_request_updated_input_is_what_runs(
    project: Project, isolated_home: Path
) -> None:
    decision = {"behavior": "allow", "updatedInput": {"command": "touch rewritten.txt"}}
    log = project.on(
        "PermissionRequest", reply(specific("PermissionRequest", decision=decision)), matcher="Bash"
    )
    live = await run_once(
        project.root,
        isolated_home,
        [
            {"content": "", "tool_calls": [call("Bash", command="touch original.txt")]},
            {"content": "done"},
        ],
        permission_mode="default",
    )
    assert (project.root / "rewritten.txt").exists()
    assert not (project.root / "original.txt").exists()
    [seen] = jsonl(log)
    assert seen["tool_input"] == {"command": "touch original.txt"}
    assert live.results[0].status == "completed"


async def test_permission_request_updated_permissions_allow_the_next_call(
    project: Project, isolated_home: Path
) -> None:
    rule = {
        "type": "addRules",
        "rules": [{"toolName": "Bash"}],
        "behavior": "allow",
        "destination": "session",
    }
    decision = {"behavior": "allow", "updatedPermissions": [rule]}
    log = project.on(
        "PermissionRequest", reply(specific("PermissionRequest", decision=decision)), matcher="Bash"
    )
    await run_once(
        project.root,
        isolated_home,
        [
            {"content": "", "tool_calls": [call("Bash", command="touch one.txt")]},
            {"content": "", "tool_calls": [call("Bash", command="touch two.txt")]},
            {"content": "done"},
        ],
        permission_mode="default",
    )
    assert (project.root / "one.txt").exists() and (project.root / "two.txt").exists()
    assert len(jsonl(log)) == 1  # the session rule answered the second call: no prompt


async def test_permission_request_interrupt_ends_the_turn(
    project: Project, isolated_home: Path
) -> None:
    decision = {"behavior": "deny", "message": "not now", "interrupt": True}
    project.on("PermissionRequest", reply(specific("PermissionRequest", decision=decision)))
    live = await run_once(
        project.root,
        isolated_home,
        [
            {"content": "", "tool_calls": [call("Bash", command="touch x.txt")]},
            {"content": "never"},
        ],
        permission_mode="default",
    )
    assert live.results[0].status == "aborted"
    assert len(live.calls) == 1
    assert not (project.root / "x.txt").exists()


# PostToolUse, PostToolUseFailure, PostToolBatch ---------------------------------------------------


async def test_post_tool_use_block_reason_is_shown_next_to_the_result(
    project: Project, isolated_home: Path
) -> None:
    project.on("PostToolUse", reply({"decision": "block", "reason": "lint failed"}))
    live = await run_once(
        project.root,
        isolated_home,
        [{"content": "", "tool_calls": [call("Bash", command="echo built")]}, {"content": "ok"}],
    )
    assert tool_messages(live.calls[1]) == ["built\n\nPostToolUse hook feedback:\nlint failed"]


async def test_post_tool_use_updated_tool_output_replaces_the_result(
    project: Project, isolated_home: Path
) -> None:
    output = {"stdout": "token=[REDACTED]", "stderr": "", "interrupted": False, "isImage": False}
    log = project.on("PostToolUse", reply(specific("PostToolUse", updatedToolOutput=output)))
    live = await run_once(
        project.root,
        isolated_home,
        [
            {"content": "", "tool_calls": [call("Bash", command="echo token=s3cr3t")]},
            {"content": "ok"},
        ],
    )
    [seen] = jsonl(log)
    assert seen["tool_response"]["stdout"] == "token=s3cr3t"
    [content] = tool_messages(live.calls[1])
    assert "token=[REDACTED]" in content and "s3cr3t" not in content


async def test_post_tool_context_reaches_the_next_call_after_the_batch(
    project: Project, isolated_home: Path
) -> None:
    project.on("PostToolUse", reply(specific("PostToolUse", additionalContext="ran fine")))
    project.on(
        "PostToolUseFailure", reply(specific("PostToolUseFailure", additionalContext="try -v"))
    )
    live = await run_once(
        project.root,
        isolated_home,
        [
            {
                "content": "",
                "tool_calls": [call("Bash", command="echo ok"), call("Bash", command="exit 3")],
            },
            {"content": "done"},
        ],
    )
    messages = live.calls[1].messages
    roles = [m["role"] for m in messages]
    assert roles[-3:] == ["tool", "tool", "user"]  # after the whole batch of results
    assert messages[-1]["content"] == f"{reminder('ran fine')}\n{reminder('try -v')}"


async def test_post_tool_batch_block_stops_the_loop(project: Project, isolated_home: Path) -> None:
    log = project.on("PostToolBatch", reply({"decision": "block", "reason": "review first"}))
    live = await run_once(
        project.root,
        isolated_home,
        [{"content": "", "tool_calls": [call("Bash", command="echo a")]}, {"content": "never"}],
    )
    assert (live.results[0].status, live.results[0].reason) == ("stopped", "review first")
    assert len(live.calls) == 1
    [seen] = jsonl(log)
    assert [c["tool_input"] for c in seen["tool_calls"]] == [{"command": "echo a"}]


# Stop ---------------------------------------------------------------------------------------------


async def test_stop_blocks_continue_the_loop_up_to_the_cap(
    project: Project, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "2")
    log = project.on("Stop", reply({"decision": "block", "reason": "keep going"}))
    live = await run_once(
        project.root,
        isolated_home,
        [{"content": "first"}, {"content": "second"}, {"content": "third"}, {"content": "x"}],
    )
    assert [c.messages[-1]["content"] for c in live.calls[1:]] == [
        "Stop hook feedback:\nkeep going",
        "Stop hook feedback:\nkeep going",
    ]
    assert len(live.calls) == 3  # two blocks honoured, the third Stop ends the turn anyway
    assert [s["stop_hook_active"] for s in jsonl(log)] == [False, True, True]
    assert (live.results[0].status, live.results[0].final_text) == ("completed", "third")


# Compaction ---------------------------------------------------------------------------------------

COMPACT_TURNS = [{"content": "one"}, {"content": "two"}, {"content": "SUMMARY"}]


async def test_pre_compact_instructions_reach_the_compactor(
    project: Project, isolated_home: Path
) -> None:
    log = project.on("PreCompact", reply("Keep every error message verbatim."))
    live = await run_once(project.root, isolated_home, COMPACT_TURNS, then=two_turns_then_compact)
    [seen] = jsonl(log)
    assert seen["trigger"] == "manual"
    summary_request = live.calls[2]
    assert "Keep every error message verbatim." in summary_request.messages[-1]["content"]


async def test_pre_compact_block_skips_compaction(project: Project, isolated_home: Path) -> None:
    project.on("PreCompact", reply("", exit_code=2, stderr="not during a release"))
    compacted: list[bool] = []

    async def compact(live: Live) -> None:
        compacted.append(await two_turns_then_compact(live))

    live = await run_once(project.root, isolated_home, COMPACT_TURNS, then=compact)
    assert compacted == [False]
    assert len(live.calls) == 2  # no summary request
    assert any("not during a release" in e["text"] for e in live.of("notice"))


# Environment files and async hooks ----------------------------------------------------------------


async def test_session_start_env_file_is_sourced_before_bash(
    project: Project, isolated_home: Path
) -> None:
    project.on(
        "SessionStart",
        "with open(os.environ['CLAUDE_ENV_FILE'], 'a') as fh:\n"
        "    fh.write('export GREETING=from-env-file\\n')\n",
    )
    live = await run_once(
        project.root,
        isolated_home,
        [
            {"content": "", "tool_calls": [call("Bash", command='echo "$GREETING"')]},
            {"content": "done"},
        ],
    )
    assert tool_messages(live.calls[1]) == ["from-env-file"]


async def test_async_hook_context_reaches_a_later_model_call(
    project: Project, isolated_home: Path
) -> None:
    marker = project.root / "async-done"
    project.on(
        "UserPromptSubmit",
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'UserPromptSubmit',\n"
        "    'additionalContext': 'async says hi'}}))\n"
        f"open({str(marker)!r}, 'w').close()\n",
        flags={"async": True},
    )
    wait = f"while [ ! -f {marker} ]; do sleep 0.05; done; sleep 1; echo waited"
    live = await run_once(
        project.root,
        isolated_home,
        [{"content": "", "tool_calls": [call("Bash", command=wait)]}, {"content": "done"}],
    )
    assert "async says hi" not in json.dumps(live.calls[0].messages)
    assert live.calls[1].messages[-1]["content"] == reminder("async says hi")


async def test_async_rewake_exit_2_reaches_a_later_model_call(
    project: Project, isolated_home: Path
) -> None:
    marker = project.root / "rewake-done"
    project.on(
        "UserPromptSubmit",
        f"open({str(marker)!r}, 'w').close()\n"
        "print('tests are failing on main', file=sys.stderr)\n"
        "sys.exit(2)\n",
        flags={"asyncRewake": True},
    )
    wait = f"while [ ! -f {marker} ]; do sleep 0.05; done; sleep 1; echo waited"
    live = await run_once(
        project.root,
        isolated_home,
        [{"content": "", "tool_calls": [call("Bash", command=wait)]}, {"content": "done"}],
    )
    assert live.results[0].status == "completed"  # exit 2 of an async hook blocks nothing
    woke = live.calls[1].messages[-1]["content"]
    assert woke.startswith("<system-reminder>\nStop hook blocking error from command ")
    assert woke.endswith(": tests are failing on main\n</system-reminder>")
