"""Runtime event kinds: PicoClaw's current names, the legacy short names and their indexes.

`observe` accepts both spellings (spec §1); legacy names are normalised to ``agent.*``. The
legacy `hook.event` notification (v0.2.4 to v0.2.8) named kinds by these short names (the seed
documents) or, in the real code, by their index in `LEGACY_KINDS`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

#: Legacy short names in the order of PicoClaw's `EventKind` enum (the integer `Kind`).
LEGACY_KINDS: tuple[str, ...] = (
    "turn_start",
    "turn_end",
    "llm_request",
    "llm_delta",
    "llm_response",
    "llm_retry",
    "context_compress",
    "session_summarize",
    "tool_exec_start",
    "tool_exec_end",
    "tool_exec_skipped",
    "steering_injected",
    "follow_up_queued",
    "interrupt_received",
    "subturn_spawn",
    "subturn_end",
    "subturn_result_delivered",
    "subturn_orphan",
    "error",
)

LEGACY_TO_RUNTIME: dict[str, str] = {
    "turn_start": "agent.turn.start",
    "turn_end": "agent.turn.end",
    "llm_request": "agent.llm.request",
    "llm_delta": "agent.llm.delta",
    "llm_response": "agent.llm.response",
    "llm_retry": "agent.llm.retry",
    "context_compress": "agent.context.compress",
    "session_summarize": "agent.session.summarize",
    "tool_exec_start": "agent.tool.exec_start",
    "tool_exec_end": "agent.tool.exec_end",
    "tool_exec_skipped": "agent.tool.exec_skipped",
    "steering_injected": "agent.steering.injected",
    "follow_up_queued": "agent.follow_up.queued",
    "interrupt_received": "agent.interrupt.received",
    "subturn_spawn": "agent.subturn.spawn",
    "subturn_end": "agent.subturn.end",
    "subturn_result_delivered": "agent.subturn.result_delivered",
    "subturn_orphan": "agent.subturn.orphan",
    "error": "agent.error",
}
RUNTIME_TO_LEGACY: dict[str, str] = {v: k for k, v in LEGACY_TO_RUNTIME.items()}
LEGACY_INDEX: dict[str, int] = {name: index for index, name in enumerate(LEGACY_KINDS)}

#: Every runtime kind PicoClaw publishes (`pkg/events/kind.go`).
RUNTIME_KINDS: frozenset[str] = frozenset(
    {
        *LEGACY_TO_RUNTIME.values(),
        "channel.lifecycle.started",
        "channel.lifecycle.initialized",
        "channel.lifecycle.start_failed",
        "channel.lifecycle.stopped",
        "channel.webhook.registered",
        "channel.webhook.unregistered",
        "channel.message.outbound_queued",
        "channel.message.outbound_sent",
        "channel.message.outbound_failed",
        "channel.rate_limited",
        "bus.publish.failed",
        "bus.close.started",
        "bus.close.completed",
        "bus.close.drained",
        "gateway.start",
        "gateway.ready",
        "gateway.shutdown",
        "gateway.reload.started",
        "gateway.reload.completed",
        "gateway.reload.failed",
        "mcp.server.connected",
        "mcp.server.connecting",
        "mcp.server.failed",
        "mcp.tool.discovered",
        "mcp.tool.call.start",
        "mcp.tool.call.end",
    }
)

ALL_MARKERS = frozenset({"*", "all", ""})

#: Where PicoClaw emits each agent kind: its meta `Source` and `TracePath` (the event's
#: `attrs.agent_source` and `correlation.trace_id`), and whether its meta carries the turn's
#: iteration (compression and summaries run outside the turn, with iteration 0).
EVENT_ORIGINS: dict[str, tuple[str, str, bool]] = {
    "agent.turn.start": ("runTurn", "turn.start", True),
    "agent.turn.end": ("runTurn", "turn.end", True),
    "agent.llm.request": ("runTurn", "turn.llm.request", True),
    "agent.llm.response": ("runTurn", "turn.llm.response", True),
    "agent.llm.retry": ("runTurn", "turn.llm.retry", True),
    "agent.context.compress": ("forceCompression", "turn.context.compress", False),
    "agent.session.summarize": ("summarizeSession", "turn.session.summarize", False),
    "agent.tool.exec_start": ("runTurn", "turn.tool.start", True),
    "agent.tool.exec_end": ("runTurn", "turn.tool.end", True),
    "agent.tool.exec_skipped": ("runTurn", "turn.tool.skipped", True),
    "agent.steering.injected": ("runTurn", "turn.steering.injected", True),
    "agent.follow_up.queued": ("runTurn", "turn.follow_up.queued", True),
    "agent.interrupt.received": ("Steer", "turn.interrupt.received", True),
    "agent.subturn.spawn": ("spawnSubTurn", "subturn.spawn", True),
    "agent.subturn.end": ("spawnSubTurn", "subturn.end", True),
    "agent.subturn.result_delivered": ("deliverSubTurnResult", "subturn.result_delivered", True),
    "agent.subturn.orphan": ("deliverSubTurnResult", "subturn.orphan", True),
    "agent.error": ("runTurn", "turn.error", True),
}


class UnknownKindError(ValueError):
    pass


def normalize_kind(kind: str) -> str:
    """The runtime name for a runtime or legacy kind; raises UnknownKindError otherwise."""
    if kind in RUNTIME_KINDS:
        return kind
    runtime = LEGACY_TO_RUNTIME.get(kind)
    if runtime is None:
        raise UnknownKindError(f"unknown event kind {kind!r}")
    return runtime


def normalize_observe(kinds: Iterable[str]) -> tuple[str, ...] | None:
    """Normalised kinds in first-seen order, or None when the list asks for every kind."""
    items = list(kinds)
    if ALL_MARKERS.intersection(items):
        return None
    seen: dict[str, None] = {}
    for kind in items:
        seen[normalize_kind(kind)] = None
    return tuple(seen)


def severity_of(kind: str, payload: Mapping[str, Any]) -> str:
    """The severity PicoClaw gives a runtime event (`runtimeSeverityForAgentEvent`): a failed
    tool's exec_end is a warning."""
    if kind in ("agent.error", "agent.subturn.orphan"):
        return "error"
    if kind in ("agent.llm.retry", "agent.context.compress", "agent.tool.exec_skipped"):
        return "warn"
    if kind == "agent.turn.end":
        status = payload.get("Status")
        return {"error": "error", "aborted": "warn"}.get(str(status), "info")
    if kind == "agent.tool.exec_end" and payload.get("IsError"):
        return "warn"
    return "info"
