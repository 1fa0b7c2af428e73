"""`HookSession`: each checkpoint's typed decision, from real hooks on a real engine, without a
model or an agent loop."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hookwright import (
    Effects,
    Event,
    HookEngine,
    HookInput,
    HookResult,
    abort,
    add_context,
    ask,
    block,
    defer,
    deny,
    respond,
    rewrite_input,
    rewrite_output,
    stop,
)
from hookwright.host import (
    Ask,
    Defer,
    Deny,
    HookSession,
    ModelRequest,
    Respond,
    Run,
    SessionIdentity,
    ToolAlias,
    ToolMap,
    ToolResult,
    unmatched_tool_hooks,
)


@pytest.fixture
def engine() -> Iterator[HookEngine]:
    built = HookEngine(audit_path=None)
    yield built
    built.close()


def session(engine: HookEngine, **options: Any) -> HookSession:
    return HookSession(engine, SessionIdentity(session_id="s1", cwd="/w"), **options)


async def test_a_denied_call_gives_the_model_the_reason(engine: HookEngine) -> None:
    engine.add(lambda inp: deny("no rm"), "PreToolUse", matcher="Bash")
    decision = await session(engine).before_tool("Bash", {"command": "rm -rf /"}, "c1")
    assert decision.action == Deny("no rm", "no rm")


async def test_a_dialect_tool_message_is_what_the_model_sees(engine: HookEngine) -> None:
    engine.add(
        lambda inp: HookResult(
            decision=deny("x").decision,
            reason="why",
            effects=Effects(tool_message="Tool execution denied by hook: why"),
        ),
        "PreToolUse",
    )
    decision = await session(engine).before_tool("Bash", {}, "c1")
    assert decision.action == Deny("Tool execution denied by hook: why", "why")


async def test_a_rewrite_runs_the_tool_with_the_new_input(engine: HookEngine) -> None:
    engine.add(lambda inp: rewrite_input({"command": "ls --dry-run"}), "PreToolUse")
    decision = await session(engine).before_tool("Bash", {"command": "ls"}, "c1")
    assert decision.action == Run("Bash", {"command": "ls --dry-run"}, approved=False)


async def test_respond_ask_defer_and_allow(engine: HookEngine) -> None:
    answers = {
        "r": respond({"for_llm": "cached", "response_handled": True, "media": ["m1"]}),
        "a": ask("sure?"),
        "d": defer("later"),
        "ok": HookResult(decision=ask().decision and None),
    }
    engine.add(lambda inp: answers[inp.tool_input["k"]], "PreToolUse")
    hooks = session(engine)
    responded = (await hooks.before_tool("T", {"k": "r"}, "1")).action
    assert isinstance(responded, Respond)
    # PicoClaw's note for the model follows a result that already answered the user
    assert responded.result.content.startswith("cached\nThe requested output has already")
    assert responded.result.response_handled and responded.result.media == ("m1",)
    assert (await hooks.before_tool("T", {"k": "a"}, "2")).action == Ask("T", {"k": "a"}, "sure?")
    assert (await hooks.before_tool("T", {"k": "d"}, "3")).action == Defer("later")
    assert (await hooks.before_tool("T", {"k": "ok"}, "4")).action == Run("T", {"k": "ok"})


async def test_an_abort_ends_the_turn_and_continue_false_stops_after(engine: HookEngine) -> None:
    engine.add(lambda inp: abort("hard", "bad") if inp.tool_input else stop("enough"), "PreToolUse")
    hooks = session(engine)
    aborted = await hooks.before_tool("T", {"x": 1}, "1")
    assert aborted.end is not None and aborted.end.rollback and aborted.end.reason == "bad"
    stopped = await hooks.before_tool("T", {}, "2")
    assert isinstance(stopped.action, Run) and stopped.stop_after == "enough"


async def test_a_replayed_tool_use_id_gets_the_first_decision_without_rerunning(
    engine: HookEngine,
) -> None:
    seen: list[str] = []

    def hook(inp: HookInput) -> HookResult:
        seen.append(inp.payload["tool_use_id"])
        return add_context("once")

    engine.add(hook, "PreToolUse")
    hooks = session(engine)
    first = await hooks.before_tool("Bash", {"command": "ls"}, "c1")
    again = await hooks.before_tool("Bash", {"command": "ls"}, "c1")
    assert again is first and seen == ["c1"]


async def test_the_tool_map_translates_both_ways(engine: HookEngine) -> None:
    seen: list[tuple[str | None, dict[str, Any]]] = []

    def hook(inp: HookInput) -> HookResult:
        seen.append((inp.tool_name, inp.tool_input))
        return rewrite_input({"command": inp.tool_input["command"] + " -n"})

    engine.add(hook, "PreToolUse", matcher="Bash")
    tool_map = ToolMap([ToolAlias("run_shell", "Bash", {"cmd": "command"})])
    decision = await session(engine, tool_map=tool_map).before_tool(
        "run_shell", {"cmd": "make"}, "c1"
    )
    assert seen == [("Bash", {"command": "make"})]
    assert decision.action == Run("run_shell", {"cmd": "make -n"})


def test_a_matcher_that_matches_none_of_the_host_tools_is_reported(engine: HookEngine) -> None:
    engine.add(lambda inp: None, "PreToolUse", matcher="Bash", name="guard")
    engine.add(lambda inp: None, "PreToolUse", matcher="Read", name="reader")
    problems = unmatched_tool_hooks(engine.hooks(Event.PreToolUse), ["Read", "Write"])
    assert len(problems) == 1 and "guard" in problems[0] and "'Bash'" in problems[0]


async def test_tool_results_are_replaced_and_feedback_kept(engine: HookEngine) -> None:
    engine.add(lambda inp: rewrite_output("short"), "PostToolUse", matcher="Read")
    engine.add(lambda inp: block("look again"), "PostToolUse", matcher="Bash")
    hooks = session(engine)
    replaced = await hooks.after_tool("Read", {}, "1", ToolResult("long"), duration_ms=1.0)
    assert replaced.result.content == "short" and replaced.feedback is None
    blocked = await hooks.after_tool("Bash", {}, "2", ToolResult("out"), duration_ms=1.0)
    assert blocked.result.content == "out" and blocked.feedback == "look again"


async def test_a_failed_tool_fires_post_tool_use_failure(engine: HookEngine) -> None:
    events: list[tuple[str, Any]] = []
    for event in ("PostToolUse", "PostToolUseFailure"):
        engine.add(lambda inp: events.append((inp.event.value, inp.payload.get("error"))), event)
    await session(engine).after_tool(
        "Bash", {}, "1", ToolResult("boom", is_error=True), duration_ms=1.0, error="exit 1"
    )
    assert events == [("PostToolUseFailure", "exit 1")]


async def test_stop_blocks_continue_with_feedback_up_to_the_cap(engine: HookEngine) -> None:
    engine.add(lambda inp: block("keep going"), "Stop")
    hooks = session(engine, stop_block_cap=2)
    first = await hooks.stop("done")
    second = await hooks.stop("done")
    third = await hooks.stop("done")
    assert first.continue_with == second.continue_with == "Stop hook feedback:\nkeep going"
    assert third.continue_with is None and third.capped


async def test_model_request_notes_and_rewrites(engine: HookEngine) -> None:
    engine.add(lambda inp: add_context("from context build"), "PreContextBuild")
    engine.add(lambda inp: rewrite_input({"model": "other"}), "PreModelCall")
    request = ModelRequest(
        "m", [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}]
    )
    decision = await session(engine).model_request(request)
    assert decision.request.model == "other"
    assert [m["content"] for m in decision.request.messages] == ["sys\n\nfrom context build", "hi"]


async def test_context_build_hooks_see_the_history_then_the_whole_context(
    engine: HookEngine,
) -> None:
    seen: dict[str, list[Any]] = {}

    def record(inp: HookInput) -> None:
        seen[inp.event.value] = [m["role"] for m in inp.payload["messages"]]

    engine.add(record, "PreContextBuild")
    engine.add(record, "PostContextBuild")
    request = ModelRequest(
        "m", [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}]
    )
    decision = await session(engine).model_request(request)
    assert seen == {"PreContextBuild": ["user"], "PostContextBuild": ["system", "user"]}
    assert list(decision.request.messages) == list(request.messages)


async def test_a_blocked_model_call_fails_the_run(engine: HookEngine) -> None:
    engine.add(lambda inp: block("over budget"), "PreModelCall")
    decision = await session(engine).model_request(ModelRequest("m", []))
    assert decision.end is not None
    assert (decision.end.status, decision.end.failure) == ("failed", "hook_blocked")


async def test_compaction_instructions_from_every_hook(engine: HookEngine) -> None:
    for text in ("keep the API notes", "keep the todo list"):
        engine.add(
            lambda inp, t=text: HookResult(effects=Effects(compact_instructions=(t,))),
            "PreCompact",
        )
    decision = await session(engine).pre_compact("auto", "", [])
    assert decision.instructions == ("keep the API notes", "keep the todo list")


async def test_prompt_block_and_context(engine: HookEngine) -> None:
    engine.add(
        lambda inp: block("no secrets") if "secret" in inp.payload["prompt"] else add_context("c"),
        "UserPromptSubmit",
    )
    hooks = session(engine)
    blocked = await hooks.prompt("the secret")
    assert blocked.end is not None and blocked.end.status == "blocked"
    assert (await hooks.prompt("hello")).context == ("c",)
