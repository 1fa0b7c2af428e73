"""`hooks test --explain`: every hook that could have run on the event, selected or skipped and
why, how each that ran ended (error text, stderr tail), and what the input lacks.

The explanation goes to stderr as text and into the JSON verdict (`candidates`, `warnings`,
and per hook `effect`, `reason`, `error`, `stderr_tail`)."""

from __future__ import annotations

import sys
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from hookwright.events import Event, HookInput
from hookwright.loading import DiscoveredHook
from hookwright.results import Status, Verdict, effect_of
from hookwright.selection import Candidate
from hookwright.spec import HookSpec

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
    unloaded: list[DiscoveredHook]
    warnings: list[str]


def unloaded_for(hooks: list[DiscoveredHook], event: Event) -> list[DiscoveredHook]:
    return [hook for hook in hooks if event in hook.events]


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


def _unloaded_json(hook: DiscoveredHook) -> dict[str, Any]:
    return {
        "name": hook.name,
        "source": hook.source,
        "dialect": hook.dialect,
        "origin": hook.origin,
        "selected": False,
        "check": "unloaded",
        "reason": UNLOADED,
        "trusted": True,
    }


def verdict_json(verdict: Verdict, explanation: Explanation) -> dict[str, Any]:
    """The verdict of `hooks test`, with the explanation added."""
    data = verdict.to_json()
    for entry, result in zip(data["hooks"], verdict.results, strict=True):
        entry["effect"] = effect_of(result) if result.has_effect or result.error else None
        entry["reason"] = result.reason
        entry["stderr_tail"] = _tail(result.stderr)
    data["candidates"] = [
        *(_candidate_json(c, explanation.untrusted) for c in explanation.candidates),
        *(_unloaded_json(hook) for hook in explanation.unloaded),
    ]
    data["warnings"] = list(explanation.warnings)
    return data


def _label(spec: HookSpec) -> str:
    return f"{spec.name} ({spec.dialect}, {spec.source})"


def _candidate_lines(explanation: Explanation) -> list[str]:
    lines: list[str] = []
    for candidate in explanation.candidates:
        mark = "run " if candidate.selected else "skip"
        trust = " [not trusted]" if id(candidate.spec) in explanation.untrusted else ""
        lines.append(f"  {mark} {_label(candidate.spec)}{trust}: {candidate.reason}")
    if any(id(c.spec) in explanation.untrusted for c in explanation.candidates):
        lines.append(f"  [not trusted]: {NOT_TRUSTED}")
    for hook in explanation.unloaded:
        lines.append(f"  off  {hook.name} ({hook.dialect}, {hook.source}): {UNLOADED}")
    return lines


def _result_lines(verdict: Verdict) -> list[str]:
    lines: list[str] = []
    for result in verdict.results:
        spec = result.hook
        text = f"  {_label(spec) if spec else '?'}: {result.status.value}"
        if result.status is Status.ok:
            text += ", " + (effect_of(result) if result.has_effect else "no effect")
        if result.exit_code is not None:
            text += f", exit {result.exit_code}"
        detail = result.error or result.reason
        if detail:
            text += f" — {' '.join(detail.split())}"
        lines.append(text)
        tail = _tail(result.stderr)
        if tail:
            lines += [f"      stderr: {line}" for line in tail.rstrip("\n").splitlines()]
    return lines


def print_explanation(inp: HookInput, verdict: Verdict, explanation: Explanation) -> None:
    """The explanation as text, on stderr."""
    event = inp.event.value
    chosen = sum(1 for c in explanation.candidates if c.selected)
    total = len(explanation.candidates) + len(explanation.unloaded)
    lines = [f"{event}: {total} hook(s) for this event, {chosen} selected"]
    lines += _candidate_lines(explanation)
    if verdict.results:
        lines.append("results:")
        lines += _result_lines(verdict)
    lines += [f"warning: {warning}" for warning in explanation.warnings]
    decision = verdict.decision.value if verdict.decision else "none"
    lines.append(f"decision: {decision}" + (f" — {verdict.reason}" if verdict.reason else ""))
    sys.stderr.write("\n".join(lines) + "\n")
