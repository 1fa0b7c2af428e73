"""Each rule of the run loop, through both of its drivers: the inline fast path
(`dispatch_sync` with sync in-process hooks, run on the calling thread) and the awaited loop
(`dispatch` with async hooks). The rules live once (`hookwright.engine.run_loop`); these tests
hold both drivers to them."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from bounds import SLOW
from hookwright import (
    Decision,
    Event,
    HookEngine,
    HookInput,
    HookResult,
    HookSpec,
    Status,
    Verdict,
    add_context,
    deny,
    rewrite_input,
)
from hookwright.host import Deny, HookSession, Run, SessionIdentity

PATHS = ["fast", "awaited"]


@pytest.fixture
def engine() -> Any:
    eng = HookEngine(audit_path=None)
    yield eng
    eng.close()


def bash(command: str) -> HookInput:
    return HookInput(
        Event.PreToolUse,
        session_id="s1",
        payload={"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1"},
    )


def add(engine: HookEngine, path: str, func: Callable[[HookInput], Any], **options: Any) -> None:
    """`func` as a sync hook (the fast path) or wrapped in an async one (the awaited path)."""
    if path == "awaited":
        sync = func

        async def func(inp: HookInput) -> Any:
            await asyncio.sleep(0)
            return sync(inp)

    engine.add(func, Event.PreToolUse, **options)


async def fire(engine: HookEngine, path: str, inp: HookInput) -> Verdict:
    if path == "fast":
        return await asyncio.to_thread(engine.dispatch_sync, inp)
    return await engine.dispatch(inp)


@pytest.mark.parametrize("path", PATHS)
async def test_each_path_is_the_one_named(engine: HookEngine, path: str) -> None:
    loops: list[bool] = []

    def where(inp: HookInput) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            loops.append(False)
        else:
            loops.append(True)

    add(engine, path, where)
    await fire(engine, path, bash("ls"))
    assert loops == [path == "awaited"]


@pytest.mark.parametrize("path", PATHS)
async def test_a_stage_ends_before_a_chain_hook(engine: HookEngine, path: str) -> None:
    seen: list[tuple[str, str]] = []

    def hook(name: str, rewrite: str | None = None) -> Callable[[HookInput], Any]:
        def run(inp: HookInput) -> HookResult | None:
            seen.append((name, inp.tool_input["command"]))
            return rewrite_input({"command": rewrite}) if rewrite else None

        return run

    add(engine, path, hook("rewrite", "ls --safe"), name="rewrite")
    add(engine, path, hook("sibling"), name="sibling")
    add(engine, path, hook("chained", "ls --safer"), name="chained", mode="chain")
    add(engine, path, hook("last"), name="last", mode="chain")
    verdict = await fire(engine, path, bash("ls"))
    # The hooks of one stage see the same input; each later stage sees the rewrites so far.
    assert sorted(seen[:2]) == [("rewrite", "ls"), ("sibling", "ls")]
    assert seen[2:] == [("chained", "ls --safe"), ("last", "ls --safer")]
    assert verdict.updated_input == {"command": "ls --safer"}


@pytest.mark.parametrize("path", PATHS)
async def test_a_terminal_verdict_ends_the_dispatch_after_its_stage(
    engine: HookEngine, path: str
) -> None:
    calls: list[str] = []
    add(engine, path, lambda i: calls.append("deny") or deny("no"), name="deny")
    add(engine, path, lambda i: calls.append("sibling") or add_context("c"), name="sibling")
    add(engine, path, lambda i: calls.append("next stage"), name="next", mode="chain")
    verdict = await fire(engine, path, bash("rm -rf /"))
    assert sorted(calls) == ["deny", "sibling"]
    assert verdict.decision is Decision.deny
    assert verdict.additional_context == ["c"]


def _raises(inp: HookInput) -> HookResult:
    raise RuntimeError("kaput")


def _returns_error(inp: HookInput) -> HookResult:
    return HookResult(status=Status.error, error="kaput")


def _returns_timeout(inp: HookInput) -> HookResult:
    return HookResult(status=Status.timeout, error="kaput")


FAILURES = {
    "raised": (_raises, Status.error, "hook failing failed: RuntimeError: kaput"),
    "returned-error": (_returns_error, Status.error, "hook failing failed: kaput"),
    "returned-timeout": (_returns_timeout, Status.timeout, "hook failing timed out: kaput"),
}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("how", list(FAILURES))
@pytest.mark.parametrize("on_error", ["continue", "block"])
async def test_on_error_applies_to_raised_and_returned_failures(
    engine: HookEngine, path: str, how: str, on_error: str
) -> None:
    failing, status, reason = FAILURES[how]
    later: list[str] = []
    add(engine, path, failing, name="failing", on_error=on_error)
    add(engine, path, lambda i: later.append("ran"), name="later", mode="chain")
    verdict = await fire(engine, path, bash("ls"))
    assert verdict.results[0].status is status
    if on_error == "block":
        assert verdict.decision is Decision.deny
        assert verdict.reason == reason
        assert later == []
    else:
        assert verdict.decision is None
        assert later == ["ran"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("how", ["raised", "returned-error", "returned-timeout"])
async def test_a_blocking_failure_keeps_the_tool_from_running(
    engine: HookEngine, path: str, how: str
) -> None:
    """The host's view: `on_error: block` and a failure, raised or returned, deny the call."""
    add(engine, path, FAILURES[how][0], name="failing", on_error="block")
    session = HookSession(engine, SessionIdentity(session_id="s1", cwd="/w"))
    if path == "fast":
        # The fast path also serves `await engine.dispatch` when every hook is a sync callable.
        assert all(spec.inline for spec in engine.hooks(Event.PreToolUse))
    decision = await session.before_tool("Bash", {"command": "rm -rf /"}, "t1")
    assert isinstance(decision.action, Deny), decision
    assert not isinstance(decision.action, Run)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("on_error", ["continue", "block"])
async def test_a_hook_past_its_timeout_times_out(
    engine: HookEngine, path: str, on_error: str
) -> None:
    """A timeout needs a clock the fast path does not keep: a timed sync hook leaves it for
    the worker pool, through the same step, and `dispatch_sync` waits on its own loop."""
    release = threading.Event()
    later: list[str] = []

    def slow(inp: HookInput) -> HookResult:
        release.wait(SLOW)
        return deny("late")

    async def aslow(inp: HookInput) -> HookResult:
        await asyncio.sleep(SLOW)
        return deny("late")

    handler = slow if path == "fast" else aslow
    engine.add(handler, Event.PreToolUse, name="slow", timeout=0.2, on_error=on_error)
    add(engine, path, lambda i: later.append("ran"), name="later", mode="chain")
    try:
        verdict = await fire(engine, path, bash("ls"))
    finally:
        release.set()
    result = verdict.results[0]
    assert result.status is Status.timeout
    assert result.error == "timed out after 0.2s"
    if on_error == "block":
        assert verdict.decision is Decision.deny
        assert verdict.reason == "hook slow timed out: timed out after 0.2s"
        assert later == []
    else:
        assert verdict.decision is None
        assert later == ["ran"]


class Recording:
    """A monitor that records what it is told."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Event, int]] = []

    def before(self, inp: HookInput, registered: Mapping[Event, Sequence[HookSpec]]) -> int:
        self.calls.append(("before", inp.event, len(registered.get(inp.event, ()))))
        return 7

    def after(self, inp: HookInput, verdict: Verdict, mark: int) -> None:
        self.calls.append(("after", inp.event, mark + len(verdict.runs)))


@pytest.mark.parametrize("path", PATHS)
async def test_the_monitor_sees_every_dispatch_once(engine: HookEngine, path: str) -> None:
    monitor = Recording()
    engine.monitor = monitor
    add(engine, path, lambda i: None, name="quiet")
    add(engine, path, lambda i: deny("no"), name="guard", mode="chain")
    await fire(engine, path, bash("ls"))
    await fire(engine, path, HookInput(Event.Stop, session_id="s1"))
    assert monitor.calls == [
        ("before", Event.PreToolUse, 2),
        ("after", Event.PreToolUse, 7 + 2),
        ("before", Event.Stop, 0),
        ("after", Event.Stop, 7 + 0),
    ]
