"""Engine-level effects: matcher targets, chaining in file order, where blocks land,
observe-only lifecycle hooks, and the real project's tests (spec §7) rebuilt on real hook
scripts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hookwright import Decision, Event, HookEngine, HookInput, Status
from hookwright.engine.kernel import apply_to_input
from hookwright.monitor.audit import AuditRecord

from .helpers import (
    MESSAGES,
    Workspace,
    context_event,
    install_ws,
    model_call,
    model_reply,
    read_records,
    reply_script,
    run_end,
    tool_call,
    tool_result,
)


def recorder(
    ws: Workspace, file: str, name: str, events: list[str], record: Path, **kw: Any
) -> None:
    output = kw.pop("output", {})
    ws.command_hook(
        file,
        name,
        events,
        reply_script(output, record=True),
        environment={"RECORD_TO": str(record)},
        **kw,
    )


def patch(scope: str, value: Any, **extra: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"patch": {scope: value}}, **extra}


# Matcher targets (seed table) -----------------------------------------------------------


@pytest.mark.parametrize(
    ("events", "matcher", "hit", "miss"),
    [
        (["before_tool_dispatch"], "^Bash$", tool_call("Bash"), tool_call("Read")),
        (["after_tool_dispatch"], "Write|Edit", tool_result("x", "Edit"), tool_result("x", "Read")),
        (
            ["before_model_call"],
            "platform/openai-default|workspace/openai-default",
            model_call("workspace/openai-default"),
            model_call("platform/anthropic"),
        ),
        (["after_model_call"], "^platform/", model_reply(), model_reply(model_ref="local/x")),
        (
            ["run_completed"],
            "api_action",
            run_end(Event.Stop, "api_action"),
            run_end(Event.Stop, "manual_action"),
        ),
        (
            ["run_failed"],
            "message",
            run_end(Event.StopFailure),
            run_end(Event.StopFailure, "api_action"),
        ),
    ],
)
async def test_matcher_targets_per_event(
    ws: Workspace,
    engine: HookEngine,
    tmp_path: Path,
    events: list[str],
    matcher: str,
    hit: HookInput,
    miss: HookInput,
) -> None:
    record = tmp_path / "r.jsonl"
    recorder(ws, "m.yaml", "m", events, record, matcher=matcher)
    install_ws(engine, ws)
    await engine.dispatch(miss)
    assert read_records(record) == []
    await engine.dispatch(hit)
    assert len(read_records(record)) == 1


async def test_context_events_ignore_the_matcher(
    ws: Workspace, engine: HookEngine, tmp_path: Path
) -> None:
    record = tmp_path / "r.jsonl"
    recorder(
        ws,
        "c.yaml",
        "c",
        ["before_context_build", "after_context_compact", "before_tool_dispatch"],
        record,
        matcher="^NeverMatches$",
    )
    install_ws(engine, ws)
    await engine.dispatch(context_event(Event.PreContextBuild))
    await engine.dispatch(HookInput(Event.PostCompact, payload={"compact_summary": "s"}))
    await engine.dispatch(tool_call(command="ls"))
    assert [r["hook_event_name"] for r in read_records(record)] == [
        "before_context_build",
        "after_context_compact",
    ]


async def test_matcher_is_an_unanchored_search_and_no_matcher_matches_all(
    ws: Workspace, engine: HookEngine, tmp_path: Path
) -> None:
    record = tmp_path / "r.jsonl"
    recorder(ws, "a.yaml", "searching", ["before_tool_dispatch"], record, matcher="Bash")
    recorder(ws, "b.yaml", "everything", ["before_tool_dispatch"], record)
    install_ws(engine, ws)
    await engine.dispatch(tool_call("BashOutput"))
    await engine.dispatch(tool_call("Read"))
    assert len(read_records(record)) == 3


# Chain ------------------------------------------------------------------------------------


async def test_hooks_chain_in_file_order_each_seeing_the_previous_patch(
    ws: Workspace, engine: HookEngine, tmp_path: Path
) -> None:
    record = tmp_path / "r.jsonl"
    recorder(
        ws,
        "20-second.yaml",
        "second",
        ["before_tool_dispatch"],
        record,
        output=patch("tool_input", {"second": True}),
        capabilities=["rewrite_tool_request"],
    )
    recorder(
        ws,
        "10-first.yaml",
        "first",
        ["before_tool_dispatch"],
        record,
        output=patch("tool_input", {"command": "ls -la"}),
        capabilities=["patch_tool_input"],
    )
    recorder(ws, "30-third.yaml", "third", ["before_tool_dispatch"], record)
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="ls"))
    assert [s.name for s, _, _ in verdict.runs] == ["first", "second", "third"]
    seen = [r["tool_input"] for r in read_records(record)]
    assert seen == [
        {"command": "ls"},
        {"command": "ls -la"},
        {"command": "ls -la", "second": True},
    ]
    assert verdict.updated_input == {"command": "ls -la", "second": True}


async def test_model_request_patches_accumulate_along_the_chain(
    ws: Workspace, engine: HookEngine, tmp_path: Path
) -> None:
    record = tmp_path / "r.jsonl"
    caps = ["rewrite_model_request"]
    recorder(
        ws,
        "a.yaml",
        "a",
        ["before_model_call"],
        record,
        output=patch("model_request", {"temperature": 0.7}),
        capabilities=caps,
    )
    recorder(
        ws,
        "b.yaml",
        "b",
        ["before_model_call"],
        record,
        output=patch("model_request", {"model_ref": "platform/b"}),
        capabilities=caps,
    )
    recorder(ws, "c.yaml", "c", ["before_model_call"], record)
    install_ws(engine, ws)
    inp = model_call(temperature=0.1)
    verdict = await engine.dispatch(inp)
    last = read_records(record)[-1]
    assert last["model_ref"] == "platform/b"
    assert last["model_request"]["temperature"] == 0.7
    assert verdict.updated_input is not None
    assert verdict.updated_input["options"] == {"temperature": 0.7}
    assert verdict.updated_input["model"] == "platform/b"
    applied = apply_to_input(inp, verdict)
    assert applied.payload["model_ref"] == "platform/b"


async def test_context_patches_accumulate_along_the_chain(
    ws: Workspace, engine: HookEngine, tmp_path: Path
) -> None:
    record = tmp_path / "r.jsonl"
    caps = ["rewrite_context"]
    recorder(
        ws,
        "a.yaml",
        "a",
        ["after_context_build"],
        record,
        output=patch("context", {"tags": {"a": 1}}),
        capabilities=caps,
    )
    recorder(
        ws,
        "b.yaml",
        "b",
        ["after_context_build"],
        record,
        output=patch("context", {"tags": {"b": 2}}),
        capabilities=caps,
    )
    install_ws(engine, ws)
    verdict = await engine.dispatch(context_event(Event.PostContextBuild))
    assert read_records(record)[1]["context"]["tags"] == {"a": 1}
    merged = {"messages": MESSAGES, "tags": {"a": 1, "b": 2}}
    assert verdict.chain_state["openharness"]["context"] == merged
    assert verdict.patches["context"] == {"tags": {"b": 2}}  # the last hook's own patch


# Where blocks land ---------------------------------------------------------------------------


async def test_block_at_tool_dispatch_is_a_deny_the_model_sees(
    ws: Workspace, engine: HookEngine
) -> None:
    ws.command_hook(
        "b.yaml",
        "b",
        ["before_tool_dispatch", "after_tool_dispatch"],
        reply_script({"decision": "block", "reason": "nope"}),
    )
    install_ws(engine, ws)
    before = await engine.dispatch(tool_call(command="x"))
    after = await engine.dispatch(tool_result("out"))
    assert (before.decision, before.reason) == (Decision.deny, "nope")
    assert (after.decision, after.reason) == (Decision.block, "nope")
    assert before.continue_ and after.continue_, "a tool block does not stop the run by itself"


@pytest.mark.parametrize(
    ("oh_event", "inp"),
    [
        ("before_context_build", context_event(Event.PreContextBuild)),
        ("after_context_build", context_event(Event.PostContextBuild)),
        ("before_model_call", model_call()),
        ("after_model_call", model_reply()),
        ("before_context_compact", HookInput(Event.PreCompact, payload={"messages": MESSAGES})),
        ("after_context_compact", HookInput(Event.PostCompact, payload={"compact_summary": "s"})),
    ],
)
async def test_block_at_model_and_context_events_fails_the_run(
    ws: Workspace, engine: HookEngine, oh_event: str, inp: HookInput
) -> None:
    ws.command_hook(
        "b.yaml", "b", [oh_event], reply_script({"continue": False, "stopReason": "halt"})
    )
    install_ws(engine, ws)
    verdict = await engine.dispatch(inp)
    assert (verdict.decision, verdict.reason) == (Decision.block, "halt")
    assert verdict.terminal and verdict.blocked


@pytest.mark.parametrize("event", [Event.Stop, Event.StopFailure])
async def test_lifecycle_hooks_cannot_block_or_rewrite(
    ws: Workspace, engine: HookEngine, tmp_path: Path, event: Event
) -> None:
    record = tmp_path / "r.jsonl"
    body = "import sys\nsys.stdin.read()\nsys.stderr.write('stop!')\nsys.exit(2)\n"
    ws.command_hook("a.yaml", "exit2", ["run_completed", "run_failed"], body)
    recorder(
        ws,
        "b.yaml",
        "json",
        ["run_completed", "run_failed"],
        record,
        output={"decision": "block", "continue": False, "systemMessage": "x"},
    )
    recorder(ws, "c.yaml", "after", ["run_completed", "run_failed"], record)
    install_ws(engine, ws)
    verdict = await engine.dispatch(run_end(event))
    assert verdict.decision is None and not verdict.terminal and not verdict.system_messages
    assert [s.name for s, _, _ in verdict.runs] == ["exit2", "json", "after"]
    assert all(r.status is Status.ok for r in verdict.results)


async def test_failures_never_escape_dispatch(ws: Workspace, engine: HookEngine) -> None:
    ws.hook(
        "x.yaml",
        {
            "name": "crash",
            "events": ["before_tool_dispatch"],
            "handler": {"type": "command", "command": "kill -9 $$"},
        },
    )
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="ls"))
    (result,) = verdict.results
    assert result.status is Status.error and result.exit_code == 137
    assert verdict.effects.notices[0].detail["hookName"] == "crash"


# The real project's tests (spec §7) ---------------------------------------------------------


async def test_upstream_1_before_model_call_patches_request_and_injects_context(
    ws: Workspace, engine: HookEngine
) -> None:
    out = {
        "systemMessage": "Hook system note",
        "hookSpecificOutput": {
            "additionalContext": "Hook additional context",
            "patch": {"model_request": {"temperature": 0.7, "top_p": 0.6}},
        },
    }
    ws.command_hook(
        "m.yaml",
        "model",
        ["before_model_call"],
        reply_script(out),
        capabilities=["rewrite_model_request"],
    )
    install_ws(engine, ws)
    verdict = await engine.dispatch(model_call())
    assert verdict.updated_input is not None
    assert verdict.updated_input["options"] == {"temperature": 0.7, "top_p": 0.6}
    # both are notes for the model, inserted as system messages by the runtime
    assert not verdict.system_messages
    assert verdict.additional_context == ["Hook system note\n\nHook additional context"]
    assert verdict.results[0].status is Status.ok


async def test_upstream_4_context_build_hooks(ws: Workspace, engine: HookEngine) -> None:
    rewrite = patch("context", {"messages": [{"role": "user", "content": "rewritten hello"}]})
    ws.command_hook(
        "a.yaml",
        "before",
        ["before_context_build"],
        reply_script(rewrite),
        capabilities=["rewrite_context"],
    )
    ws.command_hook(
        "b.yaml",
        "after",
        ["after_context_build"],
        reply_script({"systemMessage": "Context assembled."}),
    )
    install_ws(engine, ws)
    inp = context_event(Event.PreContextBuild, [{"role": "user", "content": "hello"}])
    before = await engine.dispatch(inp)
    assert before.payload_updates["messages"] == [{"role": "user", "content": "rewritten hello"}]
    assert "hello" not in str(apply_to_input(inp, before).payload["messages"]).replace(
        "rewritten hello", ""
    )
    after = await engine.dispatch(context_event(Event.PostContextBuild))
    # the note goes into the context itself (the next hook of the chain sees it): after the
    # leading system message, with which it is sent as one
    assert not after.additional_context
    assert after.payload_updates["messages"] == [
        {"role": "system", "content": "You are helpful.\n\nContext assembled."},
        {"role": "user", "content": "hello"},
    ]


async def test_upstream_5_tool_dispatch_hooks(ws: Workspace, engine: HookEngine) -> None:
    ws.command_hook(
        "a.yaml",
        "before",
        ["before_tool_dispatch"],
        reply_script(patch("tool_input", {"input": {"message": "patched"}})),
        matcher="run_action",
        capabilities=["rewrite_tool_request"],
    )
    ws.command_hook(
        "b.yaml",
        "after",
        ["after_tool_dispatch"],
        reply_script(patch("tool_output", "tool output patched")),
        capabilities=["rewrite_tool_response"],
    )
    install_ws(engine, ws)
    before = await engine.dispatch(tool_call("run_action", action="x", input={"message": "hi"}))
    assert before.updated_input == {"action": "x", "input": {"message": "patched"}}
    after = await engine.dispatch(tool_result({"ok": True}, "run_action"))
    assert after.updated_output == "tool output patched"


async def test_upstream_7_before_context_compact_rewrites_summarizer_input(
    ws: Workspace, engine: HookEngine
) -> None:
    out = patch("context", {"messages": [{"role": "user", "content": "HOOK-SUMMARIZE"}]})
    ws.command_hook(
        "c.yaml",
        "compact",
        ["before_context_compact"],
        reply_script(out),
        capabilities=["rewrite_context"],
    )
    install_ws(engine, ws)
    inp = HookInput(Event.PreCompact, payload={"trigger": "auto", "messages": MESSAGES})
    verdict = await engine.dispatch(inp)
    applied = apply_to_input(inp, verdict).payload["messages"]
    assert applied == [{"role": "user", "content": "HOOK-SUMMARIZE"}]


async def test_upstream_8_after_context_compact_patches_the_summary(
    ws: Workspace, engine: HookEngine
) -> None:
    out = patch("context", {"summaryText": "HOOKED SUMMARY"}, systemMessage="compacted note")
    ws.command_hook(
        "c.yaml",
        "compact",
        ["after_context_compact"],
        reply_script(out),
        capabilities=["rewrite_context"],
    )
    ws.command_hook("d.yaml", "build", ["before_context_build"], reply_script({}))
    install_ws(engine, ws)
    verdict = await engine.dispatch(
        HookInput(Event.PostCompact, payload={"trigger": "auto", "compact_summary": "orig"})
    )
    # no messages in this context: the note is appended to the summary
    assert verdict.payload_updates["compact_summary"] == "HOOKED SUMMARY\n\ncompacted note"
    assert not verdict.system_messages
    build = await engine.dispatch(context_event(Event.PreContextBuild))
    assert [s.name for s, _, _ in build.runs] == ["build"]


async def test_upstream_9_and_10_audit_rows(ws: Workspace, tmp_path: Path) -> None:
    ws.command_hook("a.yaml", "api", ["run_completed"], reply_script({}), matcher="api_action")
    ws.command_hook(
        "b.yaml", "manual", ["run_completed"], reply_script({}), matcher="manual_action"
    )
    ws.command_hook(
        "c.yaml",
        "patcher",
        ["before_model_call"],
        reply_script(patch("model_request", {"temperature": 0.5})),
        capabilities=["rewrite_model_request"],
    )
    records: list[AuditRecord] = []
    engine = HookEngine(audit_path=None)
    engine.add_audit_callback(records.append)
    try:
        install_ws(engine, ws)
        await engine.dispatch(run_end(Event.Stop, "api_action"))
        await engine.dispatch(model_call())
        engine.audit.flush()
    finally:
        await engine.aclose()
    assert [(r.hook, r.event, r.dialect, r.status) for r in records] == [
        ("api", "Stop", "openharness", "ok"),
        ("patcher", "PreModelCall", "openharness", "ok"),
    ]
    assert all(r.origin and r.origin.endswith("events[0]") for r in records)


async def test_upstream_12_discovery_and_stored_capabilities(
    ws: Workspace, engine: HookEngine
) -> None:
    ws.hook(
        "redact.yaml",
        {
            "name": "redact-secrets",
            "events": ["before_model_call"],
            "matcher": "platform/openai-default|workspace/openai-default",
            "handler": {
                "type": "command",
                "command": "node ./.openharness/hooks/scripts/redact-secrets.js",
            },
            "capabilities": ["rewrite_model_request"],
        },
    )
    ws.hook(
        "compact.yaml",
        {
            "name": "compact-review",
            "events": ["before_context_compact"],
            "handler": {"type": "prompt", "prompt": {"inline": "Review the summary."}},
            "capabilities": ["rewrite_context"],
        },
    )
    result = install_ws(engine, ws)
    catalog = [
        (s.name, s.dialect_data.handler_type, s.dialect_data.event, list(s.capabilities))
        for s in result.specs
    ]
    assert catalog == [
        ("compact-review", "prompt", "before_context_compact", ["rewrite_context"]),
        ("redact-secrets", "command", "before_model_call", ["rewrite_model_request"]),
    ]
    redact = result.specs[1]
    assert redact.matcher is not None and redact.match_field == "model_ref"
    assert redact.matcher.matches("workspace/openai-default")
    assert not redact.matcher.matches("platform/anthropic")
