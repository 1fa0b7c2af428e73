"""What the debug trace (`hookwright.monitor.debug`) says about a dispatch: the selection of
every hook registered on the event, and each hook's result.

Why each hook was or was not selected is the engine's rule table (`engine.selection`); the
engine hands it in as an `Explain` function, so this package never imports the engine."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from hookwright.core.effects import failure_fix
from hookwright.core.events import MATCH_FIELD, HookInput
from hookwright.core.results import HookResult, Status, Verdict, effect_of
from hookwright.core.spec import HookSpec
from hookwright.core.systems import authored_event, effect_words, event_words
from hookwright.core.words import counted
from hookwright.monitor.debug import short, trace


class Explained(Protocol):
    """One registered hook as the selection rules judged it."""

    @property
    def spec(self) -> HookSpec: ...
    @property
    def selected(self) -> bool: ...
    @property
    def reason(self) -> str: ...


#: The selection rules, spelled out: each hook's verdict, and warnings about the input.
Explain = Callable[[Sequence[HookSpec], HookInput], tuple[Sequence[Explained], Sequence[str]]]


def selection(hooks: Sequence[HookSpec], inp: HookInput, explain: Explain | None) -> None:
    event = inp.event.value
    field = MATCH_FIELD.get(inp.event)
    query = f" ({field}={inp.match_value()!r})" if field else ""
    if not hooks:
        trace("match", f"{event}{query}: no hooks registered")
        return
    if explain is None:
        trace("match", f"{event}{query}: {counted(len(hooks), 'hook')} registered")
        return
    candidates, warnings = explain(hooks, inp)
    chosen = sum(1 for c in candidates if c.selected)
    registered = counted(len(candidates), "hook")
    trace("match", f"{event}{query}: {registered} registered, {chosen} selected")
    for candidate in candidates:
        mark = "run " if candidate.selected else "skip"
        trace("match", f"  {mark} {candidate.spec.describe()}: {candidate.reason}")
    for warning in warnings:
        trace("match", f"  warning: {warning}")


def results(verdict: Verdict) -> None:
    event = verdict.event.value
    for result in verdict.results:
        spec = result.hook
        name = spec.describe() if spec else "?"
        own = authored_event(spec.dialect_data) if spec else None
        parts = [result.status.value]
        if result.status is Status.ok:
            dialect = spec.dialect if spec else None
            said = effect_words(effect_of(result), dialect, own, result.own_word)
            effect = said if result.has_effect else None
            parts.append(effect or "ran, no decision")
        parts.append(f"{result.duration_ms:.1f} ms")
        if result.exit_code is not None:
            parts.append(f"exit {result.exit_code}")
        text = ", ".join(parts)
        for label, value in (
            ("reason", result.reason),
            ("error", result.error),
            ("context", result.additional_context),
            ("updated input", result.updated_input),
            ("stderr", result.stderr),
        ):
            if value:
                text += f"; {label}: {short(value)}"
        if result.status is not Status.ok or result.error:
            text += _failure_facts(result)
        trace("result", f"{event_words(event, own)} {name}: {text}")
    decision = verdict.decision.value if verdict.decision else "none"
    trace(
        "result", f"{event}: merged decision {decision}, {counted(len(verdict.runs), 'hook')} ran"
    )


def _failure_facts(result: HookResult) -> str:
    """Where a failed hook (or one whose answer was not all applied) was declared, and what
    makes it work when its dialect says."""
    text = f"; declared in: {result.hook.origin}" if result.hook and result.hook.origin else ""
    fix = failure_fix(result.effects)
    return text + (f"; fix: {fix}" if fix else "")
