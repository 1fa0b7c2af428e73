"""The run context a handler is handed: one per hook and services, the same on every run,
immutable, and made again when the engine's services are replaced or its hooks change."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from hookwright import Event, HookEngine, HookInput, HookResult, HookSpec, RunContext


class Recorder:
    """A handler that keeps the context of each of its runs."""

    def __init__(self) -> None:
        self.contexts: list[RunContext] = []

    async def __call__(self, inp: Any, ctx: RunContext) -> HookResult | None:
        self.contexts.append(ctx)
        return None


def spec(handler: Recorder, name: str = "recorder", timeout: float | None = 3.0) -> HookSpec:
    return HookSpec(name=name, event=Event.PreToolUse, handler=handler, timeout=timeout)


def tool_call() -> HookInput:
    return HookInput(Event.PreToolUse, session_id="s", payload={"tool_name": "Bash"})


def test_every_run_of_a_hook_gets_the_same_immutable_context() -> None:
    engine = HookEngine(audit_path=None)
    first, second = Recorder(), Recorder()
    registered = engine.register(spec(first))
    engine.register(spec(second, "second", timeout=None))

    async def main() -> None:
        for _ in range(3):
            verdict = await engine.dispatch(tool_call())
            assert [run[0] for run in verdict.runs] == engine.hooks(Event.PreToolUse)

    try:
        asyncio.run(main())
        engine.dispatch_sync(tool_call())
    finally:
        engine.close()
    context = first.contexts[0]
    assert first.contexts == [context] * 4 and all(c is context for c in first.contexts)
    assert (context.spec, context.timeout, context.services) == (registered, 3.0, engine.services)
    assert second.contexts[0].timeout is None and second.contexts[0] is not context
    with pytest.raises(dataclasses.FrozenInstanceError):
        context.timeout = 1.0  # type: ignore[misc]


def test_replaced_services_and_changed_hooks_give_new_contexts() -> None:
    engine = HookEngine(audit_path=None)
    recorder = Recorder()
    engine.register(spec(recorder))
    try:
        engine.dispatch_sync(tool_call())
        engine.services = dataclasses.replace(engine.services)
        engine.dispatch_sync(tool_call())
        engine.register(spec(Recorder(), "another"))
        engine.dispatch_sync(tool_call())
    finally:
        engine.close()
    before, after, later = recorder.contexts
    assert before.services is not engine.services
    assert after.services is engine.services and later.services is engine.services
    assert after is not before and later is not after
