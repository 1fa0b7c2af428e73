"""OpenHarness hooks (`.openharness/hooks/*.yaml`, real command and prompt handlers) through the
reference agent: what the model, the tools and the hooks actually received, for each effect
docs/openharness.md and the dialect's README promise. A before_tool_dispatch block (the seed's
example) is tests/openharness/test_e2e_run.py."""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from hookwright.engine.host_seams import LeaseMode, WorkspaceLease
from hookwright.runtime.agent import DEFAULT_SYSTEM_PROMPT

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


async def test_notes_follow_the_text_the_model_reads_of_an_object_output(
    project: Project, isolated_home: Path
) -> None:
    """The hook sees the structured output; the model reads the tool's text with each note
    after a blank line (measured against the real engine), not an object with `hookNotes`."""
    project.hook(
        "noter", ["after_tool_dispatch"], reply(output(systemMessage="note 1", context="note 2"))
    )
    live = await run_once(project.root, isolated_home, ECHO)
    assert tool_messages(live.calls[1]) == ["tool-said-this\n\nnote 1\n\nnote 2"]


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
        {"role": "system", "content": "patched system\n\nsys\n\nctx"},
        {"role": "user", "content": "patched question"},
    ]


def router(project: Project, model_ref: str) -> Path:
    """A before_model_call hook that switches the model to `model_ref`, and an
    after_model_call hook that logs what it sees; returns the latter's log."""
    project.hook(
        "a-router",
        ["before_model_call"],
        reply(output(patch={"model_request": {"model_ref": model_ref}})),
        capabilities=["rewrite_model_request"],
        matcher="^scripted/",
    )
    return project.hook("b-after", ["after_model_call"], reply({}))


@pytest.mark.parametrize(
    ("patched", "called", "ref"),
    [
        ("scripted/other-model", "other-model", "scripted/other-model"),
        ("platform/other-model", "other-model", "scripted/other-model"),
        ("other-model", "other-model", "scripted/other-model"),
        ("vendor/model", "vendor/model", "scripted/vendor/model"),
    ],
)
async def test_model_ref_patch_switches_the_model(
    project: Project, isolated_home: Path, patched: str, called: str, ref: str
) -> None:
    """The call is made with the patched model; after_model_call sees its ref (spec §5)."""
    after = router(project, patched)
    live = await run_once(project.root, isolated_home, [{"content": "ok"}])
    assert live.model.requested_models == [called]
    [seen] = jsonl(after)
    assert (seen["model_ref"], seen["model_request"]["canonicalModelRef"]) == (ref, ref)


async def test_model_ref_patch_to_a_model_spec_switches_the_provider(
    project: Project, isolated_home: Path
) -> None:
    other = project.root / "other.yaml"
    other.write_text(yaml.safe_dump({"model": "second", "turns": [{"content": "from other"}]}))
    after = router(project, f"scripted:{other}")
    live = await run_once(project.root, isolated_home, [{"content": "never"}])
    assert live.calls == []  # the session's model was not asked
    assert live.results[0].final_text == "from other"
    assert jsonl(after)[0]["model_ref"] == "scripted/second"


async def test_a_model_ref_that_cannot_be_built_fails_the_run(
    project: Project, isolated_home: Path
) -> None:
    failed = project.hook("on-failed", ["run_failed"], reply({}))
    router(project, "scripted:missing-script.yaml")
    live = await run_once(project.root, isolated_home, [{"content": "never"}])
    assert live.calls == []
    result = live.results[0]
    assert result.status == "failed" and "missing-script.yaml" in (result.reason or "")
    assert jsonl(failed)[0]["run_status"] == "failed"


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


async def test_after_model_call_fires_once_on_the_final_response(
    project: Project, isolated_home: Path
) -> None:
    """Once per run, on the response the run ends with: the tool-calling reply before it is
    neither seen nor patched (spec §2)."""
    log = project.hook(
        "replier",
        ["after_model_call"],
        reply(output(patch={"model_response": {"text": "hooked reply"}}, systemMessage="signed")),
        capabilities=["rewrite_model_response"],
    )
    turns = [
        {"content": "let me look", "tool_calls": [call("Bash", command="echo hi")]},
        {"content": "final answer"},
    ]
    live = await run_once(project.root, isolated_home, turns)
    [seen] = jsonl(log)
    assert seen["model_response"]["text"] == "final answer"
    assert seen["model_request"]["messages"][-1]["role"] == "tool"  # the last request
    assert texts(live.calls[1], "assistant") == ["let me look"]
    assert live.results[0].final_text == "hooked reply\n\nsigned"


# Context build ------------------------------------------------------------------------------------


async def test_context_build_rewrite_and_note_reach_the_model(
    project: Project, isolated_home: Path
) -> None:
    """before_context_build gets the history only and rewrites it; its note goes into the
    context, which after_context_build gets with the system prompt; the model gets the system
    prompt and every note as one system message (spec §3, §5; upstream test 4)."""
    rewritten = [{"role": "user", "content": "rewritten hello"}]
    before = project.hook(
        "before",
        ["before_context_build"],
        reply(output(patch={"context": {"messages": rewritten}}, systemMessage="Before note.")),
        capabilities=["rewrite_context"],
    )
    after = project.hook(
        "after", ["after_context_build"], reply(output(systemMessage="Context assembled."))
    )
    model = project.hook("model", ["before_model_call"], reply({}))
    live = await run_once(project.root, isolated_home, [{"content": "ok"}], "hello")
    assert jsonl(before)[0]["context"]["messages"] == [{"role": "user", "content": "hello"}]
    assert jsonl(after)[0]["context"]["messages"] == [
        {"role": "system", "content": DEFAULT_SYSTEM_PROMPT},
        {"role": "system", "content": "Before note."},
        *rewritten,
    ]
    sent = [
        {
            "role": "system",
            "content": f"{DEFAULT_SYSTEM_PROMPT}\n\nBefore note.\n\nContext assembled.",
        },
        *rewritten,
    ]
    assert jsonl(model)[0]["model_request"]["messages"] == sent
    [request] = live.calls
    assert request.messages == sent


# The envelope -------------------------------------------------------------------------------------


async def test_every_envelope_names_the_agent_and_the_trigger(
    project: Project, isolated_home: Path
) -> None:
    """`agent_name`, `effective_agent_name` and `trigger_type` on every event, as the real
    engine sends them: the main agent is `main`, a subagent its type (spec §3)."""
    events = ["before_context_build", "before_model_call", "before_tool_dispatch", "run_completed"]
    log = project.hook("observer", events, reply({}))
    turns = [
        {"content": "", "tool_calls": [call("Agent", prompt="Look.", subagent_type="explorer")]},
        {"content": "sub answer"},
        {"content": "done"},
    ]
    await run_once(project.root, isolated_home, turns)
    seen = [
        (e["hook_event_name"], e["agent_name"], e["effective_agent_name"], e["trigger_type"])
        for e in jsonl(log)
    ]
    assert seen == [
        ("before_context_build", "main", "main", "message"),
        ("before_model_call", "main", "main", "message"),
        ("before_tool_dispatch", "main", "main", "message"),
        ("before_context_build", "explorer", "explorer", "message"),
        ("before_model_call", "explorer", "explorer", "message"),
        ("before_context_build", "main", "main", "message"),
        ("before_model_call", "main", "main", "message"),
        ("run_completed", "main", "main", "message"),
    ]


async def test_the_audit_records_capabilities_and_the_applied_patch(
    project: Project, isolated_home: Path
) -> None:
    """The real engine's hookrun record: the hook's capabilities and the patch it applied
    (upstream test 10)."""
    project.hook(
        "tuner",
        ["before_model_call"],
        reply(output(patch={"model_request": {"temperature": 0.2}})),
        capabilities=["rewrite_model_request"],
    )
    live = await run_once(project.root, isolated_home, [{"content": "ok"}])
    assert live.calls[0].options == {"temperature": 0.2}
    audit = jsonl(isolated_home / ".hookwright" / "audit.jsonl")
    [record] = [r for r in audit if r["hook"] == "tuner"]
    assert (record["event"], record["status"]) == ("PreModelCall", "ok")
    assert record["capabilities"] == ["rewrite_model_request"]
    assert record["patch"] == {"model_request": {"temperature": 0.2}}


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


def reviewer_agent(project: Project) -> None:
    """`.openharness/agents/reviewer.md`, and an agent hook naming it on before_tool_dispatch."""
    agents = project.root / ".openharness" / "agents"
    agents.mkdir()
    (agents / "reviewer.md").write_text(
        "---\ntemperature: 0.1\nmax_tokens: 200\n---\nYou review shell commands.\n"
    )
    task = {"inline": "Is this command safe?"}
    project.write(
        "guard", ["before_tool_dispatch"], {"type": "agent", "agent": "reviewer", "task": task}
    )


async def test_agent_hook_runs_the_named_agent_and_can_block(
    project: Project, isolated_home: Path
) -> None:
    """The named agent's prompt, task and the instruction with the envelope, with its sampling
    options; an answer in the OpenHarness protocol blocks the tool (spec §4)."""
    reviewer_agent(project)
    verdict = json.dumps({"decision": "block", "reason": "reviewer says no"})
    live = await run_once(
        project.root, isolated_home, [BASH[0], {"content": verdict}, {"content": "done"}]
    )
    assert not (project.root / "original.txt").exists()
    asked = live.calls[1]
    system, task, instruction = asked.messages
    assert system == {"role": "system", "content": "You review shell commands."}
    assert task == {"role": "user", "content": "Is this command safe?"}
    assert instruction["content"].startswith(
        "Return only JSON matching the Open Agent Harness hook output protocol.\n\n"
    )
    sent = json.loads(instruction["content"].split("\n\n", 1)[1])
    assert sent["hook"] == "guard"
    assert sent["envelope"]["tool_input"] == {"command": "touch original.txt"}
    assert asked.options == {"temperature": 0.1, "max_tokens": 200}
    assert tool_messages(live.calls[2]) == ["reviewer says no"]


async def test_agent_hook_with_an_unknown_agent_fails_open(
    project: Project, isolated_home: Path
) -> None:
    task = {"inline": "Is this command safe?"}
    project.write(
        "guard", ["before_tool_dispatch"], {"type": "agent", "agent": "ghost", "task": task}
    )
    live = await run_once(project.root, isolated_home, BASH)
    assert (project.root / "original.txt").exists()
    assert len(live.calls) == 2  # no model call for the hook
    [failed] = [e for e in live.of("hook_result") if e["hook"] == "guard"]
    assert failed["code"] == "agent_not_found"
    assert failed["error"].startswith("Agent ghost was not found in workspace")


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


async def test_auto_compaction_hooks_rewrite_the_input_and_the_summary_in_order(
    project: Project, isolated_home: Path
) -> None:
    """before_context_compact -> summary -> after_context_compact -> before_context_build, and
    the final model input holds the hooked summary and the note (upstream tests 7 and 8)."""
    order = project.root / "order.txt"
    mark = f"open({str(order)!r}, 'a').write(data['hook_event_name'] + '\\n')\n"
    summarize = [{"role": "user", "content": "HOOK-SUMMARIZE"}]
    project.hook(
        "a-before-compact",
        ["before_context_compact"],
        mark + reply(output(patch={"context": {"messages": summarize}})),
        capabilities=["rewrite_context"],
    )
    project.hook(
        "b-after-compact",
        ["after_context_compact"],
        mark + reply(output(patch={"context": {"summaryText": "HOOKED"}}, systemMessage="note")),
        capabilities=["rewrite_context"],
    )
    build = project.hook("c-build", ["before_context_build"], mark + reply({}))

    async def second_turn(live: Live) -> None:
        order.write_text("")
        live.agent.config.keep_recent = 1
        await live.run("Second prompt.")

    turns = [{"content": "one"}, {"content": "SUMMARY"}, {"content": "two"}]
    live = await run_once(
        project.root, isolated_home, turns, "First prompt.", then=second_turn, compact_tokens=1
    )
    assert order.read_text().split() == [
        "before_context_compact",
        "after_context_compact",
        "before_context_build",
    ]
    summary_request = json.dumps(live.calls[1].messages)
    assert "HOOK-SUMMARIZE" in summary_request and "First prompt." not in summary_request
    summary = "This session continues an earlier conversation. Summary:\nHOOKED\n\nnote"
    assert {"role": "user", "content": summary} in jsonl(build)[-1]["context"]["messages"]
    assert {"role": "user", "content": summary} in live.calls[2].messages


# The workspace file-access lease ------------------------------------------------------------------


@dataclass
class Materializer:
    """A host's workspace file-access provider: each lease is a fresh copy of the workspace's
    `.openharness` folder plus `extra` files, which exist only in the copies."""

    copies: Path
    extra: dict[str, str]
    leases: list[tuple[Path, str, Path]] = field(default_factory=list)
    released: list[bool] = field(default_factory=list)

    async def __call__(self, root: Path, mode: LeaseMode) -> WorkspaceLease:
        copy = self.copies / f"lease-{len(self.leases)}"
        shutil.copytree(root / ".openharness", copy / ".openharness")
        for name, text in self.extra.items():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            (copy / name).write_text(text)
        self.leases.append((root, mode, copy))
        return Lease(copy, self)


@dataclass
class Lease:
    root: Path
    owner: Materializer

    async def release(self, *, dirty: bool = False) -> None:
        self.owner.released.append(dirty)


async def test_hooks_run_under_a_read_lease_of_the_workspace_files(
    project: Project, isolated_home: Path, tmp_path: Path
) -> None:
    """A command hook runs in the lease's root, a prompt file is read from it, and every lease
    is released clean (upstream test 11)."""
    project.hook(
        "a-tuner",
        ["before_model_call"],
        "print(json.dumps({'hookSpecificOutput': {'patch': {'model_request': "
        "{'temperature': 0.2}}}, 'systemMessage': os.getcwd()}))\n",
        capabilities=["rewrite_model_request"],
    )
    prompt = {"file": ".openharness/prompts/review.md"}
    project.write("b-reviewer", ["before_tool_dispatch"], {"type": "prompt", "prompt": prompt})
    access = Materializer(tmp_path / "copies", {".openharness/prompts/review.md": "LEASED PROMPT"})
    turns = [BASH[0], {"content": "{}"}, {"content": "done"}]
    live = await run_once(project.root, isolated_home, turns, workspace_access=access)
    assert [(root, mode) for root, mode, _ in access.leases] == [(project.root, "read")] * 3
    assert access.released == [False, False, False]
    first, _, second = (copy for _, _, copy in access.leases)
    assert live.calls[0].options == {"temperature": 0.2}
    assert live.calls[0].messages[0]["content"].endswith(f"\n\n{first}")  # the hook's cwd
    assert texts(live.calls[1], "user")[0].startswith("LEASED PROMPT\n\n")
    assert live.calls[2].messages[0]["content"].endswith(f"\n\n{second}")
    assert (project.root / "original.txt").exists()


async def test_a_lease_that_cannot_be_had_fails_the_hook_open(
    project: Project, isolated_home: Path
) -> None:
    async def unavailable(root: Path, mode: LeaseMode) -> WorkspaceLease:
        raise OSError("sandbox offline")

    log = project.hook("guard", ["before_tool_dispatch"], reply({"decision": "block"}))
    live = await run_once(project.root, isolated_home, BASH, workspace_access=unavailable)
    assert jsonl(log) == [] and (project.root / "original.txt").exists()
    [failed] = [e for e in live.of("hook_result") if e["hook"] == "guard"]
    assert "sandbox offline" in failed["error"]
