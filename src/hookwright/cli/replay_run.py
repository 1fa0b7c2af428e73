"""Replaying recorded calls through a hook set: each call's recorded event is dispatched to
the hooks, with the recorded input, and the new decision set against the recorded one. No
tool runs: the engine has no tools, and a verdict is only read.

Free of typer and rich: `hookwright replay` and the benchmark both call `replay`."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hookwright.cli.records import input_text
from hookwright.cli.replay_read import RecordedCall
from hookwright.core.events import HookInput

if TYPE_CHECKING:
    from hookwright.core.results import Verdict
    from hookwright.engine.kernel import HookEngine


@dataclass(frozen=True, slots=True)
class ChangedCall:
    """A recorded call whose decision the hooks would now change."""

    session_id: str
    tool_use_id: str | None
    event: str
    tool_name: str
    #: The input as a person reads it (the command, the file path, else compact JSON).
    summary: str
    old: str
    new: str
    #: The hooks that made the new decision; when no hook decides any more, the ones that
    #: made the old one.
    hooks: tuple[str, ...]
    where: str

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "tool_use_id": self.tool_use_id,
            "event": self.event,
            "tool_name": self.tool_name,
            "input": self.summary,
            "old": self.old,
            "new": self.new,
            "hooks": list(self.hooks),
            "where": self.where,
        }


@dataclass(frozen=True, slots=True)
class ReplayReport:
    """What a replay found: how many calls it replayed, of how many sessions, and which
    decisions changed (with counts per hook)."""

    replayed: int
    sessions: int
    changed: tuple[ChangedCall, ...]
    per_hook: tuple[tuple[str, int], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "replayed": self.replayed,
            "sessions": self.sessions,
            "changed_count": len(self.changed),
            "changed": [call.to_json() for call in self.changed],
            "per_hook": dict(self.per_hook),
        }


def new_decision(verdict: Verdict) -> tuple[str, tuple[str, ...]]:
    """The verdict's decision (``none`` when no hook decided) and the hooks that made it."""
    if verdict.decision is None:
        return "none", ()
    names = (
        spec.name
        for spec, result, _ in verdict.runs
        if result is not None and result.decision == verdict.decision
    )
    return verdict.decision.value, tuple(dict.fromkeys(names))


def hook_input(call: RecordedCall) -> HookInput:
    data: dict[str, Any] = {
        "session_id": call.session_id,
        "tool_name": call.tool_name,
        "tool_input": dict(call.tool_input),
        "tool_use_id": call.tool_use_id,
    }
    if call.cwd is not None:
        data["cwd"] = call.cwd
    if call.transcript is not None:
        data["transcript_path"] = call.transcript
    return HookInput.from_wire(call.event, data)


def _compare(call: RecordedCall, verdict: Verdict) -> ChangedCall | None:
    new, deciders = new_decision(verdict)
    if new == call.decision:
        return None
    return ChangedCall(
        session_id=call.session_id,
        tool_use_id=call.tool_use_id,
        event=call.event.value,
        tool_name=call.tool_name,
        summary=input_text(dict(call.tool_input)),
        old=call.decision,
        new=new,
        hooks=deciders or call.decided_by,
        where=call.where,
    )


async def _replay_all(
    engine: HookEngine, calls: Iterable[RecordedCall]
) -> tuple[list[ChangedCall], int, int]:
    """The changed calls, how many calls were replayed and of how many sessions; `calls` is
    consumed one at a time, so a stream of them is never held whole."""
    changed: list[ChangedCall] = []
    replayed = 0
    sessions: set[str] = set()
    for call in calls:
        replayed += 1
        sessions.add(call.session_id)
        verdict = await engine.dispatch(hook_input(call))
        found = _compare(call, verdict)
        if found is not None:
            changed.append(found)
    return changed, replayed, len(sessions)


def replay(engine: HookEngine, calls: Iterable[RecordedCall]) -> ReplayReport:
    """Dispatch each call's event to `engine`'s hooks and compare; the engine is not closed."""
    changed, replayed, sessions = asyncio.run(_replay_all(engine, calls))
    per_hook: Counter[str] = Counter()
    for call in changed:
        per_hook.update(call.hooks or ("(no hook)",))
    return ReplayReport(
        replayed=replayed,
        sessions=sessions,
        changed=tuple(changed),
        per_hook=tuple(sorted(per_hook.items(), key=lambda item: (-item[1], item[0]))),
    )
