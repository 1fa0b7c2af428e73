from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from bounds import GENEROUS_BOUND, SLOW
from hookwright import (
    Decision,
    Event,
    HookEngine,
    HookInput,
    HookResult,
    HookSpec,
    PythonHandler,
    Status,
    add_context,
    allow,
    ask,
    deny,
    respond,
    rewrite_input,
    stop,
)
from hookwright.core.matching import compile_matcher
from hookwright.engine.kernel import plan_stages


@pytest.fixture
def engine() -> Any:
    eng = HookEngine(audit_path=None)
    yield eng
    eng.close()


def bash(command: str, **common: Any) -> HookInput:
    return HookInput(
        Event.PreToolUse,
        payload={"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1"},
        **common,
    )


def tool(name: str, **tool_input: Any) -> HookInput:
    return HookInput(Event.PreToolUse, payload={"tool_name": name, "tool_input": tool_input})


# Selection --------------------------------------------------------------------------------


def test_no_hooks_gives_an_empty_verdict(engine: HookEngine) -> None:
    verdict = engine.dispatch_sync(bash("ls"))
    assert verdict.decision is None
    assert verdict.runs == []
    assert verdict.event is Event.PreToolUse


@pytest.mark.parametrize(
    ("matcher", "tool_name", "runs"),
    [
        ("Bash", "Bash", True),
        ("Bash", "BashOutput", False),
        ("Edit|Write", "Write", True),
        ("Edit.*", "NotebookEdit", True),
        ("*", "Anything", True),
        ("", "Anything", True),
        ("Task", "Agent", True),
        ("[", "Bash", False),
    ],
)
def test_matcher_selects(engine: HookEngine, matcher: str, tool_name: str, runs: bool) -> None:
    engine.add(lambda inp: deny("x"), "PreToolUse", matcher=matcher)
    assert bool(engine.select(tool(tool_name))) is runs


def test_if_rule_selects_on_tool_events(engine: HookEngine) -> None:
    engine.add(lambda inp: deny("no rm"), "PreToolUse", matcher="Bash", if_="Bash(rm *)")
    assert engine.dispatch_sync(bash("FOO=1 rm -rf /tmp/x")).decision is Decision.deny
    assert engine.dispatch_sync(bash("echo ok && rm x")).decision is Decision.deny
    assert engine.dispatch_sync(bash("ls -la")).decision is None


def test_if_rule_never_runs_on_non_tool_events(engine: HookEngine) -> None:
    engine.add(lambda inp: add_context("x"), "UserPromptSubmit", if_="Bash(*)")
    verdict = engine.dispatch_sync(HookInput(Event.UserPromptSubmit, payload={"prompt": "hi"}))
    assert verdict.runs == []


def test_disabled_hooks_do_not_run(engine: HookEngine) -> None:
    spec = HookSpec("off", Event.PreToolUse, PythonHandler(lambda inp: deny("x")), enabled=False)
    engine.register(spec)
    assert engine.dispatch_sync(bash("ls")).runs == []


def test_registered_specs_are_immutable_numbered_copies(engine: HookEngine) -> None:
    first = engine.add(lambda inp: None, "PreToolUse")
    spec = HookSpec("second", Event.PreToolUse, PythonHandler(lambda inp: None))
    registered = engine.register(spec)
    assert registered is not spec and (first.order, registered.order) == (0, 1)
    with pytest.raises(AttributeError):
        registered.enabled = False  # type: ignore[misc]
    assert engine.unregister(registered) and engine.hooks(Event.PreToolUse) == [first]


def test_match_field_override(engine: HookEngine) -> None:
    spec = HookSpec(
        name="oh",
        event=Event.Stop,
        handler=PythonHandler(lambda inp: add_context("done")),
        matcher=compile_matcher("^message$", "regex"),
        match_field="trigger_type",
    )
    engine.register(spec)
    hit = HookInput(Event.Stop, payload={"trigger_type": "message"})
    miss = HookInput(Event.Stop, payload={"trigger_type": "api_action"})
    assert engine.dispatch_sync(hit).additional_context == ["done"]
    assert engine.dispatch_sync(miss).runs == []


# Ordering and stages ------------------------------------------------------------------------


def test_order_priority_then_source_then_declaration(engine: HookEngine) -> None:
    calls: list[str] = []

    def rec(name: str) -> Any:
        return lambda inp: calls.append(name)

    engine.add(rec("project-0"), "Stop", source="project", name="project-0")
    engine.add(rec("inproc-0"), "Stop", name="inproc-0")
    engine.add(rec("user-0"), "Stop", source="user", name="user-0")
    engine.add(rec("late-high"), "Stop", priority=-5, source="session", name="late-high")
    engine.add(rec("inproc-1"), "Stop", name="inproc-1")
    engine.add(rec("low"), "Stop", priority=10, name="low")
    engine.dispatch_sync(HookInput(Event.Stop))
    assert calls == ["late-high", "inproc-0", "inproc-1", "user-0", "project-0", "low"]


def test_consecutive_parallel_hooks_form_one_stage(engine: HookEngine) -> None:
    a = engine.add(lambda i: None, "Stop", name="a")
    b = engine.add(lambda i: None, "Stop", name="b")
    c = engine.add(lambda i: None, "Stop", name="c", mode="chain")
    d = engine.add(lambda i: None, "Stop", name="d", mode="chain")
    e = engine.add(lambda i: None, "Stop", name="e")
    f = engine.add(lambda i: None, "Stop", name="f")
    stages = plan_stages(engine.select(HookInput(Event.Stop)))
    assert stages == [[a, b], [c], [d], [e, f]]


async def test_parallel_stage_runs_concurrently_and_all_complete(engine: HookEngine) -> None:
    started: list[str] = []
    both_started = asyncio.Event()

    async def hook(name: str) -> None:
        started.append(name)
        if len(started) == 2:
            both_started.set()
        await asyncio.wait_for(both_started.wait(), GENEROUS_BOUND)

    engine.add(lambda i: hook("a"), "Stop", name="a")
    engine.add(lambda i: hook("b"), "Stop", name="b")

    async def run_a(inp: HookInput) -> None:
        await hook("a")

    async def run_b(inp: HookInput) -> HookResult:
        await hook("b")
        return deny("b denies")

    engine.end_scope("unused")
    for spec in engine.hooks("Stop"):
        engine.unregister(spec)
    engine.add(run_a, "Stop", name="a")
    engine.add(run_b, "Stop", name="b")
    verdict = await engine.dispatch(HookInput(Event.Stop))
    assert sorted(started) == ["a", "b"]
    assert verdict.decision is Decision.deny
    assert [r.status for r in verdict.results] == [Status.ok, Status.ok]


async def test_deny_in_parallel_stage_does_not_cancel_siblings(engine: HookEngine) -> None:
    finished: list[str] = []

    async def slow(inp: HookInput) -> None:
        await asyncio.sleep(0.05)
        finished.append("slow")

    async def fast_deny(inp: HookInput) -> HookResult:
        return deny("no")

    engine.add(slow, "PreToolUse", name="slow")
    engine.add(fast_deny, "PreToolUse", name="deny")
    verdict = await engine.dispatch(bash("ls"))
    assert verdict.decision is Decision.deny
    assert finished == ["slow"]
    assert [r.hook.name for r in verdict.results if r.hook] == ["deny", "slow"]


def test_parallel_stage_hooks_see_the_same_input(engine: HookEngine) -> None:
    seen: list[str] = []

    def rewrite(inp: HookInput) -> HookResult:
        seen.append(inp.tool_input["command"])
        return rewrite_input({"command": "ls --safe"})

    def observe(inp: HookInput) -> None:
        seen.append(inp.tool_input["command"])

    engine.add(rewrite, "PreToolUse")
    engine.add(observe, "PreToolUse")
    engine.add(observe, "PreToolUse", mode="chain", name="after-stage")
    verdict = engine.dispatch_sync(bash("ls"))
    assert seen == ["ls", "ls", "ls --safe"]
    assert verdict.updated_input == {"command": "ls --safe"}


@pytest.mark.parametrize("use_async", [False, True])
async def test_chain_each_hook_sees_previous_rewrite(engine: HookEngine, use_async: bool) -> None:
    seen: list[str] = []

    def make(suffix: str) -> Any:
        def step(inp: HookInput) -> HookResult:
            command = inp.tool_input["command"]
            seen.append(command)
            return rewrite_input({"command": command + suffix})

        async def astep(inp: HookInput) -> HookResult:
            return step(inp)

        return astep if use_async else step

    for suffix in ("-a", "-b", "-c"):
        engine.add(make(suffix), "before_tool", mode="chain")
    verdict = await engine.dispatch(bash("x"))
    assert seen == ["x", "x-a", "x-a-b"]
    assert verdict.updated_input == {"command": "x-a-b-c"}


@pytest.mark.parametrize("use_async", [False, True])
@pytest.mark.parametrize(
    "terminal",
    [deny("stop here"), respond({"for_llm": "cached"}), stop("halt"), HookResult(abort="turn")],
    ids=["deny", "respond", "continue-false", "abort"],
)
async def test_chain_stops_at_first_terminal_answer(
    engine: HookEngine, terminal: HookResult, use_async: bool
) -> None:
    calls: list[str] = []

    def first(inp: HookInput) -> HookResult:
        calls.append("first")
        return terminal

    def second(inp: HookInput) -> HookResult:
        calls.append("second")
        return allow()

    async def afirst(inp: HookInput) -> HookResult:
        return first(inp)

    engine.add(afirst if use_async else first, "PreToolUse", mode="chain")
    engine.add(second, "PreToolUse", mode="chain")
    verdict = await engine.dispatch(bash("ls"))
    assert calls == ["first"]
    assert verdict.terminal


def test_terminal_parallel_stage_ends_dispatch_after_the_stage(engine: HookEngine) -> None:
    calls: list[str] = []
    engine.add(lambda i: calls.append("a") or deny("no"), "PreToolUse", name="a")
    engine.add(lambda i: calls.append("b"), "PreToolUse", name="b")
    engine.add(lambda i: calls.append("c"), "PreToolUse", name="c", mode="chain")
    verdict = engine.dispatch_sync(bash("ls"))
    assert calls == ["a", "b"]
    assert verdict.decision is Decision.deny


def test_mixed_dialects_merge_across_stages(engine: HookEngine) -> None:
    engine.add(lambda i: allow("ok"), "PreToolUse", name="cc1")
    engine.add(lambda i: add_context("ctx"), "PreToolUse", name="cc2")
    engine.add(lambda i: ask("check"), "PreToolUse", name="pico", mode="chain")
    verdict = engine.dispatch_sync(bash("ls"))
    assert verdict.decision is Decision.ask
    assert verdict.additional_context == ["ctx"]
    assert len(verdict.runs) == 3


# Timeouts and failures ----------------------------------------------------------------------


async def test_async_hook_past_its_timeout_is_cancelled(engine: HookEngine) -> None:
    cancelled = asyncio.Event()

    async def sleeper(inp: HookInput) -> HookResult:
        try:
            await asyncio.sleep(SLOW)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return deny("never")

    engine.add(sleeper, "PreToolUse", timeout=0.3)
    started = time.monotonic()
    verdict = await engine.dispatch(bash("ls"))
    assert time.monotonic() - started < GENEROUS_BOUND
    assert cancelled.is_set()
    assert verdict.decision is None
    assert verdict.results[0].status is Status.timeout
    assert "timed out after 0.3s" in (verdict.results[0].error or "")


def test_sync_hook_past_its_timeout_is_abandoned(engine: HookEngine) -> None:
    release = threading.Event()

    def sleeper(inp: HookInput) -> HookResult:
        release.wait(SLOW)
        return deny("late")

    engine.add(sleeper, "PreToolUse", timeout=0.3, on_error="block")
    started = time.monotonic()
    verdict = engine.dispatch_sync(bash("ls"))
    elapsed = time.monotonic() - started
    release.set()
    assert elapsed < GENEROUS_BOUND
    assert verdict.results[0].status is Status.timeout
    assert verdict.decision is Decision.deny
    assert verdict.reason and "timed out" in verdict.reason


@pytest.mark.parametrize(
    ("on_error", "event", "expected"),
    [
        ("continue", Event.PreToolUse, None),
        ("block", Event.PreToolUse, Decision.deny),
        ("block", Event.PermissionRequest, Decision.deny),
        ("block", Event.Stop, Decision.block),
        ("continue", Event.Stop, None),
    ],
)
def test_on_error_policy(
    engine: HookEngine, on_error: Any, event: Event, expected: Decision | None
) -> None:
    def boom(inp: HookInput) -> None:
        raise RuntimeError("kaput")

    engine.add(boom, event, on_error=on_error, name="boom")
    verdict = engine.dispatch_sync(HookInput(event, payload={"tool_name": "Bash"}))
    result = verdict.results[0]
    assert result.status is Status.error
    assert result.error == "RuntimeError: kaput"
    assert verdict.decision is expected
    if expected:
        assert verdict.reason == "hook boom failed: RuntimeError: kaput"


async def test_on_error_applies_to_async_hooks_and_other_hooks_still_run(
    engine: HookEngine,
) -> None:
    async def boom(inp: HookInput) -> None:
        raise ValueError("bad")

    engine.add(boom, "PreToolUse", name="boom")
    engine.add(lambda i: add_context("still here"), "PreToolUse", name="ok")
    verdict = await engine.dispatch(bash("ls"))
    assert verdict.decision is None
    assert verdict.additional_context == ["still here"]
    assert {r.status for r in verdict.results} == {Status.ok, Status.error}


@pytest.mark.parametrize(
    ("returned", "message"),
    [
        (42, "returned int"),
        ({"decision": "maybe"}, "unknown decision 'maybe'"),
        ({"permissionDecision": "deny"}, "unknown field permissionDecision"),
    ],
)
def test_bad_return_values_are_errors(engine: HookEngine, returned: Any, message: str) -> None:
    engine.add(lambda i: returned, "PreToolUse")
    verdict = engine.dispatch_sync(bash("ls"))
    assert verdict.results[0].status is Status.error
    assert message in (verdict.results[0].error or "")


def test_dict_return_values_are_decoded(engine: HookEngine) -> None:
    engine.add(lambda i: {"decision": "deny", "reason": "dict", "continue": True}, "PreToolUse")
    verdict = engine.dispatch_sync(bash("ls"))
    assert verdict.decision is Decision.deny
    assert verdict.reason == "dict"


def test_invalid_timeout_is_rejected(engine: HookEngine) -> None:
    with pytest.raises(ValueError, match="timeout must be > 0"):
        engine.add(lambda i: None, "Stop", timeout=0, name="zero")


def test_hooks_added_or_removed_between_dispatches_take_effect_at_the_next(
    engine: HookEngine,
) -> None:
    calls: list[str] = []
    engine.add(lambda i: calls.append(f"first:{i.tool_name}"), "PreToolUse", matcher="Bash")
    engine.dispatch_sync(bash("ls"))
    engine.dispatch_sync(tool("Write", file_path="a"))
    added = engine.add(lambda i: calls.append(f"second:{i.tool_name}"), "PreToolUse")
    engine.dispatch_sync(bash("ls"))
    engine.dispatch_sync(tool("Write", file_path="a"))
    engine.unregister(added)
    engine.dispatch_sync(bash("ls"))
    engine.add(lambda i: deny("no writes"), "PreToolUse", matcher="Write")
    verdict = engine.dispatch_sync(tool("Write", file_path="a"))
    assert calls == ["first:Bash", "first:Bash", "second:Bash", "second:Write", "first:Bash"]
    assert verdict.decision is Decision.deny and verdict.reason == "no writes"


# Dedup, once, scopes ------------------------------------------------------------------------


def test_identical_dedup_keys_run_once(engine: HookEngine) -> None:
    calls: list[str] = []
    for name in ("user", "project", "plugin"):
        spec = HookSpec(
            name=name,
            event=Event.Stop,
            handler=PythonHandler(lambda i, n=name: calls.append(n)),
            dedup_key=("", "bash", "echo hi", None) if name != "plugin" else ("/p", "echo hi"),
        )
        engine.register(spec)
    engine.dispatch_sync(HookInput(Event.Stop))
    assert calls == ["user", "plugin"]


def test_once_hooks_are_removed_after_first_run(engine: HookEngine) -> None:
    calls: list[int] = []
    engine.add(lambda i: calls.append(1), "Stop", once=True)
    engine.dispatch_sync(HookInput(Event.Stop))
    engine.dispatch_sync(HookInput(Event.Stop))
    assert calls == [1]


def test_scoped_hooks_fire_only_for_their_session_and_are_cleared(engine: HookEngine) -> None:
    calls: list[str | None] = []
    with engine.scoped("s1") as s1:
        s1.add(lambda i: calls.append(i.session_id), "Stop")
        engine.dispatch_sync(HookInput(Event.Stop, session_id="s1"))
        engine.dispatch_sync(HookInput(Event.Stop, session_id="s2"))
        assert calls == ["s1"]
    engine.dispatch_sync(HookInput(Event.Stop, session_id="s1"))
    assert calls == ["s1"]
    assert engine.hooks() == []


def test_session_end_clears_session_hooks(engine: HookEngine) -> None:
    engine.add(lambda i: None, "Stop", scope="s1")
    engine.add(lambda i: None, "SessionEnd", scope="s1")
    engine.add(lambda i: None, "Stop", scope="s2")
    engine.dispatch_sync(HookInput(Event.SessionEnd, session_id="s1", payload={"reason": "other"}))
    assert [s.scope for s in engine.hooks()] == ["s2"]


def test_subagent_stop_clears_agent_hooks(engine: HookEngine) -> None:
    calls: list[str | None] = []
    engine.add(lambda i: calls.append(i.agent_id), "PreToolUse", scope="agent-1")
    engine.dispatch_sync(bash("ls", session_id="s", agent_id="agent-1"))
    engine.dispatch_sync(bash("ls", session_id="s", agent_id="agent-2"))
    engine.dispatch_sync(HookInput(Event.SubagentStop, session_id="s", agent_id="agent-1"))
    engine.dispatch_sync(bash("ls", session_id="s", agent_id="agent-1"))
    assert calls == ["agent-1"]
    assert engine.hooks() == []


# Sync facade --------------------------------------------------------------------------------


def test_sync_facade_runs_async_hooks_on_its_own_loop(engine: HookEngine) -> None:
    async def ahook(inp: HookInput) -> HookResult:
        await asyncio.sleep(0)
        return deny("async says no")

    engine.add(ahook, "PreToolUse")
    assert engine.dispatch_sync(bash("ls")).reason == "async says no"
    assert engine.dispatch_sync(bash("ls")).reason == "async says no"


async def test_sync_facade_in_a_running_loop_fails_closed_without_raising(
    engine: HookEngine,
) -> None:
    ran: list[str] = []

    async def ahook(inp: HookInput) -> None:
        ran.append(inp.event.value)

    engine.add(ahook, "PreToolUse")
    engine.add(ahook, "PostToolUse")
    gate = engine.dispatch_sync(bash("ls"))
    assert gate.blocked and "await engine.dispatch" in (gate.reason or "")
    after = engine.dispatch_sync(HookInput(Event.PostToolUse, payload={"tool_name": "Bash"}))
    assert after.decision is None and ran == []


def test_decorator_api(engine: HookEngine) -> None:
    @engine.on("PreToolUse", matcher="Bash", if_="Bash(git push *)", priority=1)
    def guard(inp: HookInput) -> HookResult:
        return ask("confirm push")

    assert engine.dispatch_sync(bash("git push origin")).decision is Decision.ask
    assert engine.dispatch_sync(bash("git status")).decision is None
    assert engine.hooks("PreToolUse")[0].name.endswith("guard")


# Observers ----------------------------------------------------------------------------------


def test_observers_never_block_the_host_and_drops_are_counted() -> None:
    engine = HookEngine(audit_path=None, observer_capacity=4)
    release = threading.Event()
    received: list[str] = []

    def slow_observer(event: Any) -> None:
        release.wait(10)
        received.append(event.kind)

    engine.add_observer(slow_observer)
    accepted = [engine.publish(f"k{i}", {"i": i}) for i in range(20)]
    engine.add(lambda i: deny("still dispatching"), "PreToolUse")
    assert engine.dispatch_sync(bash("ls")).decision is Decision.deny
    release.set()
    engine.observers.drain()
    assert engine.observers.dropped == accepted.count(False)
    assert engine.observers.dropped >= 20 - 5
    assert received == [f"k{i}" for i, ok in enumerate(accepted) if ok]
    engine.close()


def test_observer_kinds_filter_and_failures_are_contained() -> None:
    engine = HookEngine(audit_path=None)
    got: list[str] = []

    async def async_observer(event: Any) -> None:
        got.append(event.kind)

    def broken(event: Any) -> None:
        raise RuntimeError("observer bug")

    engine.add_observer(async_observer, kinds=["agent.turn.start"])
    engine.add_observer(broken)
    engine.publish("agent.turn.start")
    engine.publish("agent.turn.end")
    engine.observers.drain()
    assert got == ["agent.turn.start"]
    assert engine.observers.failed == 2
    engine.close()


# Audit --------------------------------------------------------------------------------------


def test_every_hook_run_leaves_an_audit_record(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    engine = HookEngine(audit_path=path)
    records: list[Any] = []
    engine.add_audit_callback(records.append)
    engine.add(lambda i: deny("nope"), "PreToolUse", name="denier")
    engine.add(lambda i: None, "PreToolUse", name="silent")

    def boom(inp: HookInput) -> None:
        raise RuntimeError("token=s3cret")

    engine.add(boom, "PreToolUse", name="boom")
    engine.audit.add_secret("s3cret")
    engine.dispatch_sync(bash("rm -rf /", session_id="sess"))
    engine.close()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["hook"] for line in lines] == ["denier", "silent", "boom"]
    assert [line["status"] for line in lines] == ["ok", "ok", "error"]
    assert lines[0]["decision"] == "deny"
    assert lines[0]["reason"] == "nope"
    assert all(line["session_id"] == "sess" for line in lines)
    assert all(line["event"] == "PreToolUse" for line in lines)
    assert lines[2]["error"] == "RuntimeError: token=***"
    assert "s3cret" not in path.read_text()
    assert [r.hook for r in records] == ["denier", "silent", "boom"]


def test_default_audit_path_is_under_home(isolated_home: Path) -> None:
    engine = HookEngine()
    engine.add(lambda i: None, "Stop", name="x")
    engine.dispatch_sync(HookInput(Event.Stop))
    engine.close()
    assert (isolated_home / ".hookwright" / "audit.jsonl").read_text().count('"hook": "x"') == 1
