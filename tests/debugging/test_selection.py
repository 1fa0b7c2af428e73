"""`HookEngine.explain` says for every hook of an event whether it runs and which check
decided, and agrees with `select` on which hooks run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookwright import Event, HookEngine, HookInput, HookSpec, PythonHandler
from hookwright.cli.skip_tally import Skipped, SkipTally
from hookwright.engine.selection import Check, input_warnings


@pytest.fixture
def engine() -> Iterator[HookEngine]:
    eng = HookEngine(audit_path=None)
    yield eng
    eng.close()


def nothing(inp: HookInput) -> None:
    return None


def call(tool: str, command: str = "ls", **common: Any) -> HookInput:
    payload = {"tool_name": tool, "tool_input": {"command": command}}
    return HookInput("PreToolUse", payload=payload, **common)


def register_mix(engine: HookEngine) -> None:
    engine.add(nothing, "PreToolUse", matcher="Bash", if_="Bash(rm *)", name="no-rm")
    engine.add(nothing, "PreToolUse", matcher="Write|Edit", name="writes")
    engine.add(nothing, "PreToolUse", name="everything")
    engine.add(nothing, "PreToolUse", scope="other-session", name="scoped")
    for name in ("first", "twin"):
        engine.register(
            HookSpec(
                name=name,
                event=Event.PreToolUse,
                handler=PythonHandler(nothing),
                dedup_key=("echo", "same"),
            )
        )
    engine.register(
        HookSpec(name="off", event=Event.PreToolUse, handler=PythonHandler(nothing), enabled=False)
    )


def test_every_hook_is_explained_with_the_deciding_check(engine: HookEngine) -> None:
    register_mix(engine)
    explained = {c.spec.name: c for c in engine.explain(call("Bash", "ls -la", session_id="s"))}
    assert {name: (c.selected, c.check) for name, c in explained.items()} == {
        "no-rm": (False, "if"),
        "writes": (False, "matcher"),
        "everything": (True, "selected"),
        "scoped": (False, "scope"),
        "first": (True, "selected"),
        "twin": (False, "dedup"),
        "off": (False, "disabled"),
    }
    assert explained["writes"].reason == "matcher 'Write|Edit' does not match tool_name 'Bash'"
    assert "`if` rule 'Bash(rm *)' does not match the call" in explained["no-rm"].reason
    assert "matcher 'Bash' matches tool_name 'Bash'" in explained["no-rm"].reason
    assert "other-session" in explained["scoped"].reason


def test_if_rule_that_matches_is_named(engine: HookEngine) -> None:
    register_mix(engine)
    [no_rm] = [
        c for c in engine.explain(call("Bash", "cd x && rm -rf /")) if c.spec.name == "no-rm"
    ]
    assert no_rm.selected
    assert "`if` rule 'Bash(rm *)' matches" in no_rm.reason


def test_a_dialect_condition_is_explained_by_its_docstring(engine: HookEngine) -> None:
    def only_prompting(inp: HookInput) -> bool:
        """Runs only when a permission prompt would show. More text."""
        return False

    engine.register(
        HookSpec(
            name="cond", event=Event.PreToolUse, handler=PythonHandler(nothing), when=only_prompting
        )
    )
    [cond] = engine.explain(call("Bash"))
    assert (cond.selected, cond.check) == (False, "condition")
    assert cond.reason == "condition not met: Runs only when a permission prompt would show"


@given(
    tool=st.sampled_from(["Bash", "Write", "Edit", "Read", ""]),
    command=st.sampled_from(["ls", "rm -rf /", "git push", "echo hi && rm x"]),
    session=st.sampled_from(["s", "other-session", None]),
)
def test_explain_selects_exactly_what_select_selects(
    tool: str, command: str, session: str | None
) -> None:
    engine = HookEngine(audit_path=None)
    try:
        register_mix(engine)
        inp = call(tool, command, session_id=session)
        chosen = [c.spec for c in engine.explain(inp) if c.selected]
        assert chosen == engine.select(inp)
    finally:
        engine.close()


def test_input_warnings_name_the_fields_matchers_and_if_rules_read(engine: HookEngine) -> None:
    register_mix(engine)
    hooks = engine.hooks(Event.PreToolUse)
    warnings = input_warnings(hooks, HookInput("PreToolUse", payload={}))
    assert warnings == [
        "the input has no 'tool_name', which the matchers and `if` rules of PreToolUse hooks "
        "read: every matcher matches and no hook with an `if` rule runs",
        "the input has no 'tool_input', which the `if` rules of PreToolUse hooks read: no hook "
        "with an `if` rule runs",
    ]
    assert input_warnings(hooks, call("Bash")) == []


def test_hook_input_takes_event_names_and_aliases(engine: HookEngine) -> None:
    seen: list[str] = []
    engine.add(lambda inp: seen.append(inp.tool_name), "PreToolUse", matcher="Bash")
    for name in ("PreToolUse", "before_tool", "before_tool_dispatch", "hook.before_tool"):
        engine.dispatch_sync(HookInput(name, payload={"tool_name": "Bash"}))
    assert seen == ["Bash"] * 4
    assert HookInput("run_completed").event is Event.Stop


@pytest.mark.parametrize(
    ("value", "message"), [("PreToolUze", "unknown event 'PreToolUze'"), (7, "got int")]
)
def test_hook_input_refuses_what_is_not_an_event(value: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        HookInput(value)


async def test_a_once_hook_that_ran_is_explained_as_once_from_then_on(engine: HookEngine) -> None:
    ran: list[str] = []
    engine.add(lambda inp: ran.append(inp.tool_name or ""), "PreToolUse", once=True, name="first")
    engine.add(nothing, "PreToolUse", matcher="Write", once=True, name="writes")
    await engine.dispatch(call("Bash"))
    await engine.dispatch(call("Read"))
    assert ran == ["Bash"]
    explained = {c.spec.name: c for c in engine.explain(call("Read"))}
    assert (explained["first"].selected, explained["first"].check) == (False, Check.once)
    # a spent `once` hook another check keeps out is said by that check; one never run is
    # explained as any hook
    assert (explained["writes"].check, explained["writes"].seen) == (Check.matcher, "Read")
    assert engine.select(call("Read")) == []


async def test_the_tally_records_why_each_hook_did_not_run_and_keeps_the_audit(
    tmp_path: Path,
) -> None:
    """The tally wraps the engine's monitor: the audit still gets each run; a hook the engine
    selected but the host left out of the dispatch is `held`; a cut hook is not recorded."""
    engine = HookEngine(audit_path=tmp_path / "audit.jsonl")
    record: list[tuple[str, Skipped]] = []
    engine.monitor = SkipTally(
        engine.monitor, engine.explain, lambda spec, why: record.append((spec.name, why))
    )
    try:
        engine.add(nothing, "PreToolUse", name="sent")
        engine.add(nothing, "PreToolUse", name="left-out")
        engine.add(nothing, "PreToolUse", if_="Bash(rm *)", name="rm-only")
        inp = call("Bash")
        sent = [spec for spec in engine.select(inp) if spec.name == "sent"]
        verdict = await engine.dispatch(inp, sent)
        assert [spec.name for spec, _r, _d in verdict.runs] == ["sent"]
    finally:
        engine.close()
    assert record == [
        ("left-out", Skipped(Check.held, "PreToolUse")),
        ("rm-only", Skipped(Check.if_rule, "PreToolUse", "Bash(rm *)", "Bash")),
    ]
    audited = (tmp_path / "audit.jsonl").read_text().splitlines()
    assert [json.loads(line)["hook"] for line in audited] == ["sent"]
