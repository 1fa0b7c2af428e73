"""Why each hook of an event was or was not selected for one input.

`HookEngine.select` is the fast path and says only *which* hooks run. `explain` walks the same
checks in the same order (enabled, scope, matcher, `if` rule, the dialect's condition, dedup)
for every hook registered on the event, and the `once` hooks of the event that ran already,
and says, for each, whether it was selected and why (a typed `Check`), for `hookwright hooks
test --explain`, the `--debug` trace and `hookwright run --summary`. `input_warnings` names what
the input lacks that the event's matchers and `if` rules read.

Loaded where a selection is explained: a dispatch uses `engine.if_rules` alone.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from hookwright.core.events import MATCH_FIELD, TOOL_EVENTS, HookInput
from hookwright.core.spec import HookSpec
from hookwright.engine.if_rules import if_rule_matches


class Check(StrEnum):
    """The check that decided whether a hook runs for one input."""

    selected = "selected"
    disabled = "disabled"
    #: Registered for another session or agent.
    scope = "scope"
    matcher = "matcher"
    #: Its `if` rule was false on the call (or the event is not a tool event).
    if_rule = "if"
    #: Its dialect's own condition was not met.
    condition = "condition"
    #: A hook identical to it came first: that one runs.
    dedup = "dedup"
    #: A `once` hook that ran already (the engine retired it).
    once = "once"
    #: Selected, but the host fired the event for other hooks only (`HookSession.fire_for`):
    #: never `explain`'s answer, which knows no host; a dispatch's observer sets it.
    held = "held"


@dataclass(frozen=True, slots=True)
class Candidate:
    """One hook registered on the input's event: selected or not, and why."""

    spec: HookSpec
    selected: bool
    #: The check that decided.
    check: Check
    reason: str
    #: What the deciding matcher read (the tool name on a tool event) or the tool the `if`
    #: rule was false on; None for the other checks.
    seen: str | None = None


def _matcher_text(spec: HookSpec, value: str | None, field: str | None) -> str | None:
    """Why the matcher accepts or rejects `value`; None when the hook has no matcher."""
    matcher = spec.matcher
    if matcher is None or matcher.matches_all:
        return None
    pattern = matcher.pattern
    if matcher.error is not None:
        return f"matcher {pattern!r} is an invalid regex ({matcher.error})"
    if not value:
        return f"matcher {pattern!r}: the input has no {field}, so every matcher matches"
    verb = "matches" if matcher.matches(value) else "does not match"
    return f"matcher {pattern!r} {verb} {field} {value!r}"


def _condition_text(spec: HookSpec) -> str:
    """The first sentence of the dialect condition's docstring, or its name."""
    when = spec.when
    doc = (getattr(when, "__doc__", None) or "").strip()
    if doc:
        return " ".join(doc.split(". ")[0].split())
    return getattr(when, "__name__", "a condition of its dialect")


def _explain_one(
    spec: HookSpec, inp: HookInput, seen: set[Hashable]
) -> tuple[bool, Check, list[str]]:
    """(selected, deciding check, reasons) for one hook, checks in `select`'s order."""
    reasons: list[str] = []
    if not spec.enabled:
        return False, Check.disabled, [f"disabled: {spec.description or 'enabled: false'}"]
    if spec.scope is not None and spec.scope not in (inp.session_id, inp.agent_id):
        return False, Check.scope, [f"registered for session or agent {spec.scope!r} only"]
    field = spec.match_field or MATCH_FIELD.get(inp.event)
    value = inp.match_value(spec.match_field)
    matched = spec.matcher is None or spec.matcher.matches(value)
    text = _matcher_text(spec, value, field)
    if text is not None:
        reasons.append(text)
    if not matched:
        return False, Check.matcher, reasons
    if spec.if_rule is not None:
        rule = spec.if_rule.source
        if inp.event not in TOOL_EVENTS:
            return False, Check.if_rule, [*reasons, f"`if` rule {rule!r} only runs on tool events"]
        if not if_rule_matches(spec.if_rule, inp):
            return False, Check.if_rule, [*reasons, f"`if` rule {rule!r} does not match the call"]
        reasons.append(f"`if` rule {rule!r} matches")
    if spec.when is not None and not spec.when(inp):
        return False, Check.condition, [*reasons, f"condition not met: {_condition_text(spec)}"]
    if spec.dedup_key is not None:
        if spec.dedup_key in seen:
            return False, Check.dedup, [*reasons, "identical to a hook before it: runs once"]
        seen.add(spec.dedup_key)
    # A dialect's own selection inside the hook (a skill hook's `tool_filter`)
    own = spec.dialect_data.selection_reason(inp) if spec.dialect_data is not None else None
    if own is not None:
        reasons.append(own)
    return True, Check.selected, reasons or ["no matcher: runs on every " + inp.event.value]


def _seen(spec: HookSpec, check: Check, inp: HookInput) -> str | None:
    """What the deciding check read: the matcher's value, or the tool of a false `if`."""
    if check is Check.matcher:
        return inp.match_value(spec.match_field)
    if check is Check.if_rule:
        return inp.tool_name
    return None


def explain(
    hooks: Sequence[HookSpec], inp: HookInput, spent: Sequence[HookSpec] = ()
) -> list[Candidate]:
    """Every hook of `hooks` (the event's, in run order) with the check that decided it, then
    each of `spent` (the event's `once` hooks that ran already): `once` where nothing else
    keeps it out."""
    seen: set[Hashable] = set()
    out: list[Candidate] = []
    for spec in hooks:
        selected, check, reasons = _explain_one(spec, inp, seen)
        out.append(Candidate(spec, selected, check, "; ".join(reasons), _seen(spec, check, inp)))
    for spec in spent:
        selected, check, reasons = _explain_one(spec, inp, set())
        if selected:
            check, reasons = Check.once, ["`once`: it ran already"]
        out.append(Candidate(spec, False, check, "; ".join(reasons), _seen(spec, check, inp)))
    return out


def input_warnings(hooks: Sequence[HookSpec], inp: HookInput) -> list[str]:
    """What the input lacks that these hooks' matchers or `if` rules read, one line a field."""
    readers: dict[str, list[str]] = {}
    for spec in hooks:
        if spec.matcher is not None and not spec.matcher.matches_all:
            field = spec.match_field or MATCH_FIELD.get(inp.event)
            if field and not (field == "agent_type" and inp.agent_type):
                readers.setdefault(field, [])
                if "matchers" not in readers[field]:
                    readers[field].append("matchers")
    if inp.event in TOOL_EVENTS and any(spec.if_rule is not None for spec in hooks):
        for field in ("tool_name", "tool_input"):
            readers.setdefault(field, []).append("`if` rules")
    warnings: list[str] = []
    for field, who in readers.items():
        if field in inp.payload:
            continue
        effects = []
        if "matchers" in who:
            effects.append("every matcher matches")
        if "`if` rules" in who:
            effects.append("no hook with an `if` rule runs")
        warnings.append(
            f"the input has no {field!r}, which the {' and '.join(who)} of "
            f"{inp.event.value} hooks read: {' and '.join(effects)}"
        )
    return warnings


def explain_with_warnings(
    hooks: Sequence[HookSpec], inp: HookInput
) -> tuple[list[Candidate], list[str]]:
    """`explain` and `input_warnings` together: what the debug trace prints for a dispatch."""
    return explain(hooks, inp), input_warnings(hooks, inp)
