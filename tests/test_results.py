from __future__ import annotations

from typing import Any

import pytest

from hookwright.core.effect_parts import ToolResult
from hookwright.core.effects import Effects
from hookwright.core.events import Event, HookInput
from hookwright.core.results import Decision, HookResult, Verdict, respond
from hookwright.engine.kernel import HookEngine


def merged(*results: HookResult, event: Event = Event.PreToolUse) -> Verdict:
    verdict = Verdict(event)
    for result in results:
        verdict.absorb(result)
    return verdict


D = Decision


@pytest.mark.parametrize(
    ("decisions", "expected"),
    [
        ([D.allow, D.deny], D.deny),
        ([D.deny, D.allow], D.deny),
        ([D.ask, D.allow], D.ask),
        ([D.allow, D.ask], D.ask),
        ([D.defer, D.ask], D.defer),
        ([D.ask, D.defer, D.allow], D.defer),
        ([D.defer, D.deny], D.deny),
        ([D.allow, D.allow], D.allow),
        ([None, D.allow], D.allow),
        ([None, None], None),
        ([D.block, D.allow], D.block),
    ],
)
def test_decision_precedence(decisions: list[Decision | None], expected: Decision | None) -> None:
    verdict = merged(*(HookResult(decision=d) for d in decisions))
    assert verdict.decision == expected


def test_reasons_of_every_winning_hook_are_kept_in_order() -> None:
    verdict = merged(
        HookResult(decision=D.allow, reason="fine"),
        HookResult(decision=D.deny, reason="first"),
        HookResult(decision=D.ask, reason="maybe"),
        HookResult(decision=D.deny, reason="second"),
    )
    assert verdict.decision is D.deny
    assert verdict.reason == "first\nsecond"


def test_no_decision_is_not_allow() -> None:
    verdict = merged(HookResult(additional_context="ctx"))
    assert verdict.decision is None
    assert verdict.additional_context == ["ctx"]


def test_updated_input_last_wins_only_from_allow_ask_or_no_decision() -> None:
    verdict = merged(
        HookResult(decision=D.allow, updated_input={"n": 1}),
        HookResult(updated_input={"n": 2}),
        HookResult(decision=D.ask, updated_input={"n": 3}),
        HookResult(decision=D.deny, updated_input={"n": 4}),
        HookResult(decision=D.defer, updated_input={"n": 5}),
    )
    assert verdict.updated_input == {"n": 3}


def test_contexts_and_system_messages_all_kept_once() -> None:
    verdict = merged(
        HookResult(additional_context="a", system_message="m1"),
        HookResult(additional_context="b", system_message="m1"),
        HookResult(additional_context="a"),
    )
    assert verdict.additional_context == ["a", "b"]
    assert verdict.system_messages == ["m1"]


def test_any_continue_false_stops_and_first_stop_reason_kept() -> None:
    verdict = merged(
        HookResult(),
        HookResult(continue_=False, stop_reason="first"),
        HookResult(continue_=False, stop_reason="second"),
    )
    assert verdict.continue_ is False
    assert verdict.stop_reason == "first"
    assert verdict.terminal


@pytest.mark.parametrize(
    ("aborts", "expected"),
    [(["turn"], "turn"), (["turn", "hard"], "hard"), (["hard", "turn"], "hard"), ([None], None)],
)
def test_hard_abort_beats_turn_abort(aborts: list[str | None], expected: str | None) -> None:
    verdict = merged(*(HookResult(abort=a) for a in aborts))
    assert verdict.abort == expected


def test_first_respond_wins_and_is_terminal() -> None:
    verdict = merged(respond({"for_llm": "one"}), respond({"for_llm": "two"}))
    assert verdict.respond == respond({"for_llm": "one"}).respond
    assert verdict.terminal


def test_effects_concatenate_tuples_or_flags_and_override_scalars() -> None:
    verdict = merged(
        HookResult(effects=Effects(permission_updates=({"a": 1},), session_title="one")),
        HookResult(effects=Effects(permission_updates=({"b": 2},), retry=True)),
        HookResult(effects=Effects(session_title="three")),
    )
    assert verdict.effects == Effects(
        permission_updates=({"a": 1}, {"b": 2}), retry=True, session_title="three"
    )


def test_patches_and_payload_updates_later_override() -> None:
    verdict = merged(
        HookResult(patches={"tool_input": {"a": 1}}, payload_updates={"tool_name": "X"}),
        HookResult(patches={"tool_input": {"a": 2}}),
    )
    assert verdict.patches == {"tool_input": {"a": 2}}
    assert verdict.payload_updates == {"tool_name": "X"}


@pytest.mark.parametrize(
    ("result", "terminal"),
    [
        (HookResult(decision=D.deny), True),
        (HookResult(decision=D.block), True),
        (HookResult(decision=D.defer), True),
        (HookResult(decision=D.ask), False),
        (HookResult(decision=D.allow), False),
        (HookResult(abort="turn"), True),
        (HookResult(respond=ToolResult("x")), True),
        (HookResult(continue_=False), True),
        (HookResult(additional_context="x"), False),
    ],
)
def test_terminal_answers(result: HookResult, terminal: bool) -> None:
    assert result.terminal is terminal
    assert merged(result).terminal is terminal


def test_to_json_shape() -> None:
    verdict = merged(HookResult(decision=D.deny, reason="no"))
    data = verdict.to_json()
    assert list(data) == [
        "event",
        "decision",
        "reason",
        "continue",
        "stop_reason",
        "updated_input",
        "updated_output",
        "respond",
        "additional_context",
        "system_messages",
        "abort",
        "hooks",
    ]
    assert data["decision"] == "deny"
    assert data["continue"] is True


# A Python hook's tool result, read once when the hook returns ------------------------------


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (lambda: respond("cached rows"), ToolResult("cached rows")),
        (lambda: {"respond": {"rows": 2}}, ToolResult('{"rows": 2}', False, {"rows": 2})),
        (lambda: {"respond": [1, 2]}, ToolResult("[1, 2]", False, {"result": [1, 2]})),
        (lambda: HookResult(respond="untyped"), ToolResult("untyped")),
    ],
    ids=["helper", "dict-field", "list", "untyped-result"],
)
async def test_a_python_hooks_respond_reaches_the_verdict_typed(
    answer: Any, expected: ToolResult
) -> None:
    engine = HookEngine(audit_path=None)
    engine.add(lambda inp: answer(), Event.PreToolUse)
    verdict = await engine.dispatch(
        HookInput(Event.PreToolUse, payload={"tool_name": "Read", "tool_input": {}})
    )
    engine.close()
    assert verdict.respond == expected and verdict.terminal


def test_hooks_test_prints_a_tool_result_by_its_fields() -> None:
    result = ToolResult("done", data={"n": 1}, media=("m1",), response_handled=True)
    printed = merged(HookResult(respond=result)).to_json()["respond"]
    assert printed == {
        "content": "done",
        "is_error": False,
        "data": {"n": 1},
        "response_handled": True,
        "media": ["m1"],
    }
