"""The word a result says its decision in (`HookResult.own_word`) is kept by the engine only
where it is its answer's: one its hook's system spells, on an answer that did not fail."""

from __future__ import annotations

import pytest

from hookwright import HookEngine, HookInput
from hookwright.core.events import Event
from hookwright.core.results import Decision, HookResult, Status
from hookwright.core.spec import HookSpec, PythonHandler


def _kept(dialect: str, result: HookResult) -> str | None:
    engine = HookEngine(audit_path=None)
    handler = PythonHandler(lambda inp: result)
    engine.register(HookSpec(name="h", event=Event.PreToolUse, handler=handler, dialect=dialect))
    inp = HookInput("PreToolUse", session_id="s", payload={"tool_name": "Bash", "tool_input": {}})
    [ran] = engine.dispatch_sync(inp).results
    assert ran.decision is result.decision  # the word never changes the decision
    return ran.own_word


@pytest.mark.parametrize(
    ("dialect", "word", "kept"),
    [
        ("gemini", "block", "block"),
        ("gemini", "deny", "deny"),
        ("gemini", "allow", None),  # not a word Gemini CLI spells a decision two ways in
        ("claude_code", "approve", "approve"),
        ("openharness", "continue: false", "continue: false"),
        ("python", "block", None),  # a Python hook's decision has one word
        ("picoclaw", "deny_tool", None),  # PicoClaw's are per method, not per answer
    ],
)
def test_a_word_is_kept_only_where_its_system_spells_it(
    dialect: str, word: str, kept: str | None
) -> None:
    assert _kept(dialect, HookResult(decision=Decision.deny, own_word=word)) == kept


def test_a_failed_answer_keeps_no_word() -> None:
    failed = HookResult(decision=Decision.deny, own_word="block", status=Status.error, error="x")
    assert _kept("gemini", failed) is None
