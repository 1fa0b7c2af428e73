"""The kernel keeps the candidates of an event once per event when none of its hooks matches on
the match value, and per (event, value) otherwise; a change of the hooks starts both afresh."""

from __future__ import annotations

from hookwright.core.events import Event, HookInput
from hookwright.core.results import Verdict
from hookwright.engine.kernel import HookEngine


def tool_call(tool: str) -> HookInput:
    return HookInput(Event.PreToolUse, session_id="s", payload={"tool_name": tool})


def ran(verdict: Verdict) -> list[str]:
    return [spec.name for spec, _result, _duration in verdict.runs]


def test_a_matcher_added_after_dispatches_selects_by_value_from_then_on() -> None:
    engine = HookEngine(audit_path=None)
    engine.add(lambda inp: None, Event.PreToolUse, name="every")
    assert ran(engine.dispatch_sync(tool_call("Read"))) == ["every"]
    engine.add(lambda inp: None, Event.PreToolUse, name="bash", matcher="Bash")
    assert ran(engine.dispatch_sync(tool_call("Read"))) == ["every"]
    assert sorted(ran(engine.dispatch_sync(tool_call("Bash")))) == ["bash", "every"]
    engine.close()


def test_removing_the_only_matcher_selects_every_remaining_hook_for_any_value() -> None:
    engine = HookEngine(audit_path=None)
    bash = engine.add(lambda inp: None, Event.PreToolUse, name="bash", matcher="Bash")
    assert ran(engine.dispatch_sync(tool_call("Read"))) == []
    engine.add(lambda inp: None, Event.PreToolUse, name="every")
    engine.unregister(bash)
    assert ran(engine.dispatch_sync(tool_call("Read"))) == ["every"]
    assert ran(engine.dispatch_sync(tool_call("Bash"))) == ["every"]
    assert ran(engine.dispatch_sync(HookInput(Event.Stop, session_id="s"))) == []
    engine.close()
