"""OpenHarness hooks (`.openharness/hooks/*.yaml`, real command and prompt handlers) through the
reference agent: what the model, the tools and the hooks actually received, for each effect
docs/openharness.md and the dialect's README promise. A before_tool_dispatch block (the seed's
example) is tests/openharness/test_e2e_run.py."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

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
    """A workspace whose `.openharness/hooks/` holds one YAML file per hook."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.hooks = root / ".openharness" / "hooks"
        self.hooks.mkdir(parents=True)

    def hook(
        self,
        name: str,
        events: list[str],
        body: str,
        *,
        capabilities: list[str] | None = None,
        matcher: str | None = None,
    ) -> Path:
        """A command hook running `body`; returns the file its stdin envelopes are logged to."""
        script, log = write_script(self.hooks / "scripts", name, body)
        handler = {"type": "command", "command": f'"{sys.executable}" "{script}" "{log}"'}
        self.write(name, events, handler, capabilities=capabilities, matcher=matcher)
        return log

    def write(
        self,
        name: str,
        events: list[str],
        handler: dict[str, Any],
        *,
        capabilities: list[str] | None = None,
        matcher: str | None = None,
    ) -> None:
        data: dict[str, Any] = {"name": name, "events": events, "handler": handler}
        if matcher is not None:
            data["matcher"] = matcher
        if capabilities:
            data["capabilities"] = capabilities
        (self.hooks / f"{name}.yaml").write_text(yaml.safe_dump(data))


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path / "workspace")


def output(
    *, patch: dict[str, Any] | None = None, context: str | None = None, **fields: Any
) -> dict[str, Any]:
    """The unified output: top-level fields, `hookSpecificOutput.patch` / `additionalContext`."""
    specific: dict[str, Any] = {}
    if patch is not None:
        specific["patch"] = patch
    if context is not None:
        specific["additionalContext"] = context
    return {**fields, "hookSpecificOutput": specific} if specific else fields


BASH: list[dict[str, Any]] = [
    {"content": "", "tool_calls": [call("Bash", command="touch original.txt")]},
    {"content": "done"},
]
ECHO: list[dict[str, Any]] = [
    {"content": "", "tool_calls": [call("Bash", command="echo tool-said-this")]},
    {"content": "done"},
]


# before_tool_dispatch / after_tool_dispatch -------------------------------------------------------


@pytest.mark.parametrize("capable", [True, False])
async def test_tool_input_patch_is_what_runs_only_with_its_capability(
    project: Project, isolated_home: Path, capable: bool
) -> None:
    out = output(
        patch={"tool_input": {"command": "touch patched.txt"}},
        systemMessage="ignored at tool dispatch",
        context="also ignored",
    )
    log = project.hook(
        "patcher",
        ["before_tool_dispatch"],
        reply(out),
        matcher="Bash",
        capabilities=["rewrite_tool_request"] if capable else None,
    )
    live = await run_once(project.root, isolated_home, BASH)
    [seen] = jsonl(log)
    assert seen["tool_input"] == {"command": "touch original.txt"}
    assert (project.root / "patched.txt").exists() is capable
    assert (project.root / "original.txt").exists() is not capable
    for request in live.calls:
        assert "ignored at tool dispatch" not in json.dumps(request.messages)
        assert "also ignored" not in json.dumps(request.messages)


async def test_tool_output_patch_replaces_the_result(project: Project, isolated_home: Path) -> None:
    log = project.hook(
        "rewriter",
        ["after_tool_dispatch"],
        reply(output(patch={"tool_output": "tool output patched"})),
        capabilities=["rewrite_tool_response"],
    )
    live = await run_once(project.root, isolated_home, ECHO)
    [seen] = jsonl(log)
    assert seen["tool_output"]["stdout"] == "tool-said-this"
    assert tool_messages(live.calls[1]) == ["tool output patched"]


async def test_notes_on_an_object_output_become_hook_notes(
    project: Project, isolated_home: Path
) -> None:
    project.hook(
        "noter", ["after_tool_dispatch"], reply(output(systemMessage="note 1", context="note 2"))
    )
    live = await run_once(project.root, isolated_home, ECHO)
    [content] = tool_messages(live.calls[1])
    shown = json.loads(content)
    assert shown["stdout"] == "tool-said-this"
    assert shown["hookNotes"] == ["note 1", "note 2"]


async def test_notes_on_a_string_output_are_appended(project: Project, isolated_home: Path) -> None:
    project.hook(
        "a-rewriter",
        ["after_tool_dispatch"],
        reply(output(patch={"tool_output": "short output"})),
        capabilities=["rewrite_tool_response"],
    )
    log = project.hook("b-noter", ["after_tool_dispatch"], reply(output(context="checked")))
    live = await run_once(project.root, isolated_home, ECHO)
    assert jsonl(log)[0]["tool_output"] == "short output"  # the chain: b saw a's patch
    assert tool_messages(live.calls[1]) == ["short output\n\nchecked"]


async def test_suppress_output_hides_the_result(project: Project, isolated_home: Path) -> None:
    project.hook(
        "quiet",
        ["after_tool_dispatch"],
        reply({"suppressOutput": True}),
        capabilities=["suppress_output"],
    )
    live = await run_once(project.root, isolated_home, ECHO)
    assert tool_messages(live.calls[1]) == [""]


async def test_after_tool_block_replaces_the_result_with_the_reason(
    project: Project, isolated_home: Path
) -> None:
    project.hook("checker", ["after_tool_dispatch"], reply({"decision": "block", "reason": "leak"}))
    live = await run_once(project.root, isolated_home, ECHO)
    [content] = tool_messages(live.calls[1])
    assert "leak" in content and "tool-said-this" not in content
    assert live.results[0].final_text == "done"  # the loop goes on


# before_model_call / after_model_call -------------------------------------------------------------


async def test_model_request_patch_and_notes_reach_the_model(
    project: Project, isolated_home: Path
) -> None:
    request_patch = {
        "temperature": 0.7,
        "top_p": 0.6,
        "maxTokens": 64,
        "messages": [
            {"role": "system", "content": "patched system"},
            {"role": "user", "content": "patched question"},
        ],
    }
    log = project.hook(
        "model",
        ["before_model_call"],
        reply(output(patch={"model_request": request_patch}, systemMessage="sys", context="ctx")),
        capabilities=["rewrite_model_request"],
    )
    live = await run_once(project.root, isolated_home, [{"content": "ok"}], "original question")
    [seen] = jsonl(log)
    assert seen["model_request"]["messages"][-1]["content"] == "original question"
    [request] = live.calls
    assert request.options == {"temperature": 0.7, "top_p": 0.6, "max_tokens": 64}
    assert request.messages == [
        {"role": "system", "content": "patched system"},
        {"role": "system", "content": "sys\n\nctx"},
        {"role": "user", "content": "patched question"},
    ]


async def test_model_ref_patch_switches_the_model(project: Project, isolated_home: Path) -> None:
    project.hook(
        "router",
        ["before_model_call"],
        reply(output(patch={"model_request": {"model_ref": "other/model"}})),
        capabilities=["rewrite_model_request"],
    )
    live = await run_once(project.root, isolated_home, [{"content": "ok"}])
    assert live.model.requested_models == ["other/model"]


async def test_model_response_patch_and_notes_are_the_persisted_reply(
    project: Project, isolated_home: Path
) -> None:
    project.hook(
        "replier",
        ["after_model_call"],
        reply(output(patch={"model_response": {"text": "hooked reply"}}, systemMessage="signed")),
        capabilities=["rewrite_model_response"],
    )

    async def again(live: Live) -> None:
        await live.run("And again.")

    live = await run_once(project.root, isolated_home, [{"content": "model reply"}], then=again)
    assert live.results[0].final_text == "hooked reply\n\nsigned"
    assert texts(live.calls[1], "assistant") == ["hooked reply\n\nsigned"]


# Context build ------------------------------------------------------------------------------------


async def test_context_build_rewrite_and_note_reach_the_model(
    project: Project, isolated_home: Path
) -> None:
    rewritten = [{"role": "user", "content": "rewritten hello"}]
    before = project.hook(
        "before",
        ["before_context_build"],
        reply(output(patch={"context": {"messages": rewritten}})),
        capabilities=["rewrite_context"],
    )
    after = project.hook(
        "after", ["after_context_build"], reply(output(systemMessage="Context assembled."))
    )
    live = await run_once(project.root, isolated_home, [{"content": "ok"}], "hello")
    assert jsonl(before)[0]["context"]["messages"][-1]["content"] == "hello"
    assert jsonl(after)[0]["context"]["messages"] == rewritten
    [request] = live.calls
    assert request.messages == [
        {"role": "system", "content": "Context assembled."},
        {"role": "user", "content": "rewritten hello"},
    ]


# Blocks and lifecycle -----------------------------------------------------------------------------


async def test_model_call_block_fails_the_run_and_run_failed_observes_it(
    project: Project, isolated_home: Path
) -> None:
    project.hook("gate", ["before_model_call"], reply({"decision": "block", "reason": "quota"}))
    failed = project.hook("on-failed", ["run_failed"], reply({"decision": "block"}))
    completed = project.hook("on-completed", ["run_completed"], reply({}))
    live = await run_once(project.root, isolated_home, [{"content": "never"}])
    assert live.calls == []
    assert (live.results[0].status, live.results[0].reason) == ("failed", "quota")
    [seen] = jsonl(failed)
    assert (seen["hook_event_name"], seen["run_status"]) == ("run_failed", "failed")
    assert jsonl(completed) == []


async def test_run_completed_observes_the_run(project: Project, isolated_home: Path) -> None:
    log = project.hook("done", ["run_completed"], reply({"decision": "block", "reason": "x"}))
    live = await run_once(project.root, isolated_home, [{"content": "finished"}])
    [seen] = jsonl(log)
    assert (seen["hook_event_name"], seen["run_status"]) == ("run_completed", "completed")
    assert live.results[0].status == "completed" and len(live.calls) == 1  # observe only


# Prompt handlers through the session's model ------------------------------------------------------


async def test_prompt_hook_asks_the_session_model_and_blocks_the_tool(
    project: Project, isolated_home: Path
) -> None:
    project.write(
        "reviewer",
        ["before_tool_dispatch"],
        {"type": "prompt", "prompt": {"inline": "Is this command safe?"}},
    )
    verdict = json.dumps({"decision": "block", "reason": "prompt hook says no"})
    live = await run_once(
        project.root,
        isolated_home,
        [BASH[0], {"content": verdict}, {"content": "done"}],
    )
    assert not (project.root / "original.txt").exists()
    [asked] = texts(live.calls[1], "user")
    assert asked.startswith("Is this command safe?\n\n")
    assert '"tool_input": {"command": "touch original.txt"}' in asked
    assert tool_messages(live.calls[2]) == ["prompt hook says no"]


# Compaction ---------------------------------------------------------------------------------------

COMPACT_TURNS = [{"content": "one"}, {"content": "two"}, {"content": "SUMMARY"}, {"content": "x"}]


async def test_before_compact_patch_rewrites_the_summarizer_input(
    project: Project, isolated_home: Path
) -> None:
    out = output(patch={"context": {"messages": [{"role": "user", "content": "HOOK-SUMMARIZE"}]}})
    log = project.hook(
        "compact", ["before_context_compact"], reply(out), capabilities=["rewrite_context"]
    )
    live = await run_once(project.root, isolated_home, COMPACT_TURNS, then=two_turns_then_compact)
    assert jsonl(log)[0]["context"]["trigger"] == "manual"
    summary_request = json.dumps(live.calls[2].messages)
    assert "HOOK-SUMMARIZE" in summary_request
    assert "Do the task." not in summary_request


async def test_after_compact_patch_rewrites_the_summary(
    project: Project, isolated_home: Path
) -> None:
    out = output(patch={"context": {"summaryText": "HOOKED SUMMARY"}}, systemMessage="the note")
    log = project.hook(
        "compact", ["after_context_compact"], reply(out), capabilities=["rewrite_context"]
    )

    async def compact_then_ask(live: Live) -> None:
        await two_turns_then_compact(live)
        await live.run("Third prompt.")

    live = await run_once(project.root, isolated_home, COMPACT_TURNS, then=compact_then_ask)
    assert jsonl(log)[0]["context"]["summaryText"] == "SUMMARY"
    history = json.dumps(live.calls[3].messages)
    assert "HOOKED SUMMARY\\n\\nthe note" in history
    assert "Summary:\\nSUMMARY" not in history
