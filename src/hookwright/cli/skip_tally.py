"""Why a hook did not run on a dispatch, as the engine decided it, for `hookwright run
--summary`: a monitor around the engine's own (`engine.monitoring.DispatchMonitor`) that, after
each dispatch, asks the engine's selection rules (`HookEngine.explain`: matcher, `if` rule,
condition, `once`, ...) about every hook of the event and hands each one that did not run to
its recorder as a typed `Skipped`. A hook the rules selected that neither ran nor was cut by
an earlier answer (`Verdict.cut`, which the audit records) was left out by the host, which
fired the event for other hooks only (`Check.held`). Nothing is written to the audit: the
summary is per run."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from hookwright.core.events import MATCH_FIELD, Event, HookInput
from hookwright.core.results import Verdict
from hookwright.core.spec import HookSpec
from hookwright.dialects.tool_views import tool_seen
from hookwright.engine.monitoring import DispatchMonitor
from hookwright.engine.selection import Candidate, Check

#: The mark `SkipTally.before` returns when the engine's monitor wants no `after`.
_QUIET = -1


@dataclass(frozen=True, slots=True)
class Skipped:
    """One dispatch that did not run a hook, and why."""

    check: Check
    #: The event, canonical (`Event.value`).
    event: str
    #: The matcher's pattern or the `if` rule's text when one of them decided; else None.
    rule: str | None = None
    #: What the matcher read (the tool name on a tool event) or the tool the `if` rule was
    #: false on, a tool named as the hook reads it (`spawn_agent` to a Codex hook); else None.
    seen: str | None = None


def skipped(candidate: Candidate, event: Event, check: Check) -> Skipped:
    spec = candidate.spec
    rule: str | None = None
    if check is Check.matcher and spec.matcher is not None:
        rule = spec.shown_matcher()
    elif check is Check.if_rule and spec.if_rule is not None:
        rule = spec.if_rule.source
    seen = candidate.seen
    if seen is not None and _reads_tool(spec, event, check):
        seen = tool_seen(spec.dialect, seen)
    return Skipped(check, event.value, rule, seen)


def _reads_tool(spec: HookSpec, event: Event, check: Check) -> bool:
    """Whether what the deciding check read is a tool's name: an `if` rule's, or a matcher's
    on the tool name."""
    if check is Check.if_rule:
        return True
    return check is Check.matcher and (spec.match_field or MATCH_FIELD.get(event)) == "tool_name"


class SkipTally:
    """Wraps the engine's monitor; after every dispatch, records each hook of the event that
    did not run (`record(spec, skipped)`), on the dispatching thread."""

    __slots__ = ("_explain", "_inner", "_record")

    def __init__(
        self,
        inner: DispatchMonitor,
        explain: Callable[[HookInput], Sequence[Candidate]],
        record: Callable[[HookSpec, Skipped], None],
    ) -> None:
        self._inner = inner
        self._explain = explain
        self._record = record

    def before(self, inp: HookInput, registered: Mapping[Event, Sequence[HookSpec]]) -> int | None:
        mark = self._inner.before(inp, registered)
        return _QUIET if mark is None else mark

    def after(self, inp: HookInput, verdict: Verdict, mark: int) -> None:
        if mark != _QUIET:
            self._inner.after(inp, verdict, mark)
        done = {id(spec) for spec, _result, _duration in verdict.runs}
        done.update(id(spec) for spec in verdict.cut)
        try:
            candidates = self._explain(inp)
        except Exception:  # a dialect's condition that raises: the run goes on, unexplained
            return
        for candidate in candidates:
            if candidate.selected:
                if id(candidate.spec) in done:
                    continue
                check = Check.held
            elif candidate.check is Check.disabled:
                continue
            else:
                check = candidate.check
            self._record(candidate.spec, skipped(candidate, inp.event, check))


__all__ = ["SkipTally", "Skipped"]
