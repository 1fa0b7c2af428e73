"""`hooks test --explain`: every hook that could have run on the event, selected or skipped and
why, how each that ran ended (error text, stderr tail), and what the input lacks.

The explanation goes to stderr as text and into the JSON verdict (`candidates`, `warnings`,
and per hook `effect`, `reason`, `error`, `stderr_tail`). The text names each hook as the
terminal's hook lines and the summary do (`hookwright.host.labels`): its system, its file, its
event in its author's words when they differ, and what it did ("ran, no decision")."""

from __future__ import annotations

import sys
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookwright.config.loading import DiscoveredHook
from hookwright.core.effects import failure_fix
from hookwright.core.events import Event, HookInput
from hookwright.core.results import HookResult, Status, Verdict, effect_of
from hookwright.core.spec import HookSpec
from hookwright.core.systems import authored_event, effect_words
from hookwright.core.tracebacks import AUTHOR_TRACEBACK
from hookwright.core.verdict_chain import tiered, verdict_chain
from hookwright.core.words import counted
from hookwright.engine.selection import Candidate
from hookwright.host.labels import event_words, label_of, origin_file, system_name
from hookwright.host.not_run import NotRun
from hookwright.host.reports import failure_code

#: Characters of a hook's stderr kept in the explanation.
STDERR_TAIL = 1000
NOT_TRUSTED = (
    "its folder is not trusted: a session would not run it (`hookwright trust DIR`); "
    "hooks test runs it anyway"
)
UNLOADED = (
    "not loaded: turned off by its settings (disableAllHooks, allowManagedHooksOnly, a "
    "disabled plugin) or it failed to load (see the errors above)"
)


@dataclass(frozen=True, slots=True)
class Explanation:
    candidates: list[Candidate]
    #: Registered specs (by `id`) whose folder the user has not trusted.
    untrusted: Collection[int]
    #: Declared hooks for the event that bound to no spec.
    unloaded: list[NotRun]
    warnings: list[str]
    #: Hooks registered only on other events, grouped by (name, dialect, source).
    elsewhere: list[list[HookSpec]] = field(default_factory=list)
    #: The project the hooks' files are named relative to.
    project_dir: Path | None = None
    #: The event as the command named it (``BeforeTool``, ``before_tool``), said next to
    #: the canonical one when it differs.
    asked_as: str | None = None


def other_events(hooks: list[HookSpec], event: Event) -> list[list[HookSpec]]:
    """The hooks not registered on `event`: per hook, its specs on the other events."""
    here = {(s.name, s.dialect, s.source) for s in hooks if s.event is event}
    found: dict[tuple[str, str, str], list[HookSpec]] = {}
    for spec in hooks:
        key = (spec.name, spec.dialect, spec.source)
        if key not in here:
            found.setdefault(key, []).append(spec)
    return list(found.values())


def unloaded_for(hooks: list[NotRun], event: Event) -> list[NotRun]:
    return [item for item in hooks if event in item.hook.events]


def _unloaded_reason(item: NotRun) -> str:
    """Why a declared hook is not on the engine: what turned it off or the error it failed
    to load with (`NotRun.detail`), or, when neither is known, the ways it can happen."""
    if item.detail is not None:
        return f"not loaded: {item.detail}"
    return UNLOADED


def _tail(text: str | None) -> str | None:
    if not text:
        return None
    return text if len(text) <= STDERR_TAIL else "…" + text[-STDERR_TAIL:]


def _candidate_json(candidate: Candidate, untrusted: Collection[int]) -> dict[str, Any]:
    spec = candidate.spec
    return {
        "name": spec.name,
        "source": spec.source,
        "dialect": spec.dialect,
        "origin": spec.origin,
        "selected": candidate.selected,
        "check": candidate.check,
        "reason": candidate.reason,
        "trusted": id(spec) not in untrusted,
    }


def _unloaded_json(item: NotRun) -> dict[str, Any]:
    hook = item.hook
    return {
        "name": hook.name,
        "source": hook.source,
        "dialect": hook.dialect,
        "origin": hook.origin,
        "selected": False,
        "check": "unloaded",
        "reason": _unloaded_reason(item),
        "trusted": True,
    }


def _elsewhere_json(specs: list[HookSpec], untrusted: Collection[int]) -> dict[str, Any]:
    first = specs[0]
    return {
        "name": first.name,
        "source": first.source,
        "dialect": first.dialect,
        "origin": first.origin,
        "selected": False,
        "check": "event",
        "reason": _elsewhere_reason(specs),
        "trusted": not any(id(spec) in untrusted for spec in specs),
    }


def _elsewhere_reason(specs: list[HookSpec]) -> str:
    events = dict.fromkeys(spec.event.value for spec in specs)
    return f"event: registered on {', '.join(events)}"


def verdict_json(verdict: Verdict, explanation: Explanation) -> dict[str, Any]:
    """The verdict of `hooks test`, with the explanation added."""
    data = verdict.to_json()
    for entry, result in zip(data["hooks"], verdict.results, strict=True):
        entry["effect"] = effect_of(result) if result.has_effect or result.error else None
        entry["reason"] = result.reason
        entry["stderr_tail"] = _tail(result.stderr)
        if result.own_word is not None:
            entry["own_word"] = result.own_word
        if result.hook is not None and (result.hook.tier or result.hook.shadow):
            entry["tier"] = result.hook.tier
            entry["shadow"] = result.hook.shadow
    if tiered(verdict.runs):
        data["chain"] = [link.to_dict() for link in verdict_chain(verdict.runs)]
    data["candidates"] = [
        *(_candidate_json(c, explanation.untrusted) for c in explanation.candidates),
        *(_unloaded_json(hook) for hook in explanation.unloaded),
        *(_elsewhere_json(specs, explanation.untrusted) for specs in explanation.elsewhere),
    ]
    data["warnings"] = list(explanation.warnings)
    return data


def _label(spec: HookSpec, project_dir: Path | None) -> str:
    """``before_tool (PreToolUse) pc (PicoClaw, .picoclaw/config.json)``: as a terminal hook
    line names it, with its tier and shadow mode when it has them."""
    label = label_of(spec, project_dir)
    event = f"{label.event} " if label.event != spec.event.value else ""
    facts = [label.system, label.file or spec.source]
    if spec.tier:
        facts.append(f"tier {spec.tier}")
    if spec.shadow:
        facts.append("shadow")
    return f"{event}{spec.name} ({', '.join(facts)})"


def _unloaded_label(hook: DiscoveredHook, project_dir: Path | None) -> str:
    file = origin_file(hook.origin, project_dir) or hook.source
    return f"{hook.name} ({system_name(hook.dialect)}, {file})"


def _candidate_lines(explanation: Explanation) -> list[str]:
    lines: list[str] = []
    here = explanation.project_dir
    for candidate in explanation.candidates:
        mark = "run " if candidate.selected else "skip"
        trust = " [not trusted]" if id(candidate.spec) in explanation.untrusted else ""
        lines.append(f"  {mark} {_label(candidate.spec, here)}{trust}: {candidate.reason}")
    for item in explanation.unloaded:
        label = _unloaded_label(item.hook, here)
        lines.append(f"  off  {label}: {_unloaded_reason(item)}")
    for specs in explanation.elsewhere:
        trust = " [not trusted]" if id(specs[0]) in explanation.untrusted else ""
        lines.append(f"  skip {_label(specs[0], here)}{trust}: {_elsewhere_reason(specs)}")
    specs = [c.spec for c in explanation.candidates] + [s[0] for s in explanation.elsewhere]
    if any(id(spec) in explanation.untrusted for spec in specs):
        lines.append(f"  [not trusted]: {NOT_TRUSTED}")
    return lines


def _what_it_did(result: HookResult) -> str:
    """The terminal hook line's words: the effect, "ran, no decision" for a hook that ran and
    changed nothing, a failure's status with its dialect's error code."""
    if result.status is not Status.ok:
        code = failure_code(result)
        return f"{result.status.value} ({code})" if code else result.status.value
    spec = result.hook
    what = "ran, no decision"
    if result.has_effect:
        own = authored_event(spec.dialect_data) if spec is not None else None
        dialect = spec.dialect if spec is not None else None
        what = effect_words(effect_of(result), dialect, own, result.own_word)
    return f"shadow, would {what}, not applied" if spec is not None and spec.shadow else what


def _unsaid(stderr: str | None, said: str) -> list[str]:
    """The lines of a hook's `stderr` its result line has not `said` already (a failure's
    error and a block's reason often quote them): each is said once."""
    if not stderr:
        return []
    lines = stderr.rstrip("\n").splitlines()
    return [line for line in lines if line.strip() and " ".join(line.split()) not in said]


def _result_lines(verdict: Verdict, project_dir: Path | None) -> list[str]:
    lines: list[str] = []
    for result in verdict.results:
        spec = result.hook
        text = f"  {_label(spec, project_dir) if spec else '?'}: {_what_it_did(result)}"
        if result.exit_code is not None:
            text += f", exit {result.exit_code}"
        detail = " ".join((result.error or result.reason or "").split())
        if detail:
            text += f" — {detail}"
        lines.append(text)
        stderr = _tail(result.stderr) or ""
        # An in-process Python hook's "stderr" is the traceback of its own frames: said as one
        label = "" if result.exit_code is None and AUTHOR_TRACEBACK in stderr else "stderr: "
        lines += [f"      {label}{line}" for line in _unsaid(stderr, detail)]
        if fix := failure_fix(result.effects):
            lines.append(f"      fix: {fix}")
    return lines


def _not_reached_lines(verdict: Verdict, explanation: Explanation) -> list[str]:
    """The selected hooks that never ran (`Verdict.cut`): an earlier hook's decision ended
    the dispatch."""
    missed = verdict.cut
    decided = verdict.decision.value if verdict.decision else None
    why = f"an earlier hook's {decided} ended the dispatch" if decided else "the dispatch ended"
    here = explanation.project_dir
    return [f"  {_label(spec, here)}: not run — {why}" for spec in missed]


def _chain_lines(verdict: Verdict) -> list[str]:
    """How each applied decision moved the verdict, in the order they were merged."""
    lines = ["chain:"]
    for link in verdict_chain(verdict.runs):
        tier = f" [{link.tier}]" if link.tier else ""
        lines.append(f"  {link.hook}{tier}: {link.decision}, {link.change}")
    return lines if len(lines) > 1 else [*lines, "  no hook decided"]


def print_explanation(inp: HookInput, verdict: Verdict, explanation: Explanation) -> None:
    """The explanation as text, on stderr."""
    event = event_words(inp.event.value, explanation.asked_as)
    chosen = sum(1 for c in explanation.candidates if c.selected)
    total = len(explanation.candidates) + len(explanation.unloaded)
    lines = [f"{event}: {counted(total, 'hook')} for this event, {chosen} selected"]
    if explanation.elsewhere:
        lines[0] += f"; {counted(len(explanation.elsewhere), 'hook')} only on other events"
    lines += _candidate_lines(explanation)
    not_reached = _not_reached_lines(verdict, explanation)
    if verdict.results or not_reached:
        lines.append("results:")
        lines += _result_lines(verdict, explanation.project_dir) + not_reached
    if tiered(verdict.runs):
        lines += _chain_lines(verdict)
    lines += [f"warning: {warning}" for warning in explanation.warnings]
    decision = verdict.decision.value if verdict.decision else "none"
    reason = " ".join((verdict.reason or "").split())
    lines.append(f"decision: {decision}" + (f" — {reason}" if reason else ""))
    sys.stderr.write("\n".join(lines) + "\n")
