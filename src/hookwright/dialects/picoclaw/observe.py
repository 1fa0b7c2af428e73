"""The observation stream: engine runtime events -> notifications to observing processes.

`attach_observers(engine)` registers one engine observer per process whose `observe` list is
not empty, filtered to its kinds. Each event becomes a notification (no id, no answer):

* ``current`` protocol: ``hook.runtime_event`` with PicoClaw's `events.Event` envelope
  `{id, kind, time, source, scope, correlation, severity, payload, attrs}`;
* ``seed`` protocol: ``hook.event`` with `{Kind, Time, Meta, Payload}`; `Kind` is the legacy
  short name the seed documents print (``tool_exec_start``; runtime names for kinds that have
  none), or with ``seed_event_kind: "index"`` the integer PicoClaw v0.2.4-v0.2.8 really sent
  (kinds without an index are then not sent).

The runtime publishes with `engine.publish(kind, payload)`: `kind` is a runtime kind
(``agent.tool.exec_start`` ...) and `payload` holds the event's PascalCase fields (spec §5,
e.g. `Tool`, `Arguments`) plus optional lowercase envelope keys: `scope` (`agent_id`,
`session_key`, `turn_id`, `channel`, `chat_id`, `sender_id`, `message_id`, ...), `correlation`
(`trace_id`, `parent_turn_id`, ...), `attrs` (`agent_source`, `iteration`), `severity`, `id`,
`source` and `meta` (PascalCase `AgentID`, `TurnID`, ... for `hook.event`; derived from
`scope`/`correlation`/`attrs` when absent). Delivery never blocks the engine's observer thread:
each notification is queued to the process (at most 64 waiting, the rest dropped and counted in
`rpc.dropped_notifications`) and its write is bounded by `observer_timeout_ms`.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from typing import Any

from hookwright.dialects.picoclaw.codec import meta_fields
from hookwright.dialects.picoclaw.handler import ObserverCarrier, PicoClawHandler
from hookwright.dialects.picoclaw.kinds import LEGACY_INDEX, RUNTIME_TO_LEGACY, severity_of
from hookwright.dialects.picoclaw.process import ProcessTarget
from hookwright.engine import HookEngine
from hookwright.observers import RuntimeEvent

ENVELOPE_KEYS = frozenset(
    {"id", "scope", "correlation", "attrs", "severity", "source", "meta", "context"}
)


def rfc3339(timestamp: float) -> str:
    moment = datetime.datetime.fromtimestamp(timestamp, tz=datetime.UTC)
    return moment.isoformat().replace("+00:00", "Z")


def _split(payload: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    envelope = {k: v for k, v in payload.items() if k in ENVELOPE_KEYS}
    fields = {k: v for k, v in payload.items() if k not in ENVELOPE_KEYS}
    return envelope, fields


def _mapping(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _compact(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v not in (None, "", [], {})}


def _scope_from_meta(meta: Mapping[str, Any]) -> dict[str, Any]:
    return _compact(
        {
            "agent_id": meta.get("AgentID"),
            "session_key": meta.get("SessionKey"),
            "turn_id": meta.get("TurnID"),
        }
    )


def runtime_event_params(event: RuntimeEvent) -> dict[str, Any]:
    """`hook.runtime_event` params: PicoClaw's `pkg/events.Event`."""
    envelope, fields = _split(event.payload)
    meta = _mapping(envelope.get("meta"))
    scope = _compact(_mapping(envelope.get("scope")) or _scope_from_meta(meta))
    correlation = _compact(
        _mapping(envelope.get("correlation"))
        or {"trace_id": meta.get("TracePath"), "parent_turn_id": meta.get("ParentTurnID")}
    )
    attrs = _compact(
        _mapping(envelope.get("attrs"))
        or {"agent_source": meta.get("Source"), "iteration": meta.get("Iteration")}
    )
    component = event.kind.split(".", 1)[0]
    params: dict[str, Any] = {
        "id": str(envelope.get("id") or f"evt-{event.seq}"),
        "kind": event.kind,
        "time": rfc3339(event.time),
        "source": _mapping(envelope.get("source"))
        or {"component": component, "name": str(scope.get("agent_id", ""))},
        "scope": scope,
        "correlation": correlation,
        "severity": str(envelope.get("severity") or severity_of(event.kind, fields)),
    }
    if fields:
        params["payload"] = fields
    if attrs:
        params["attrs"] = attrs
    return params


def legacy_event_params(event: RuntimeEvent, kind_style: str = "name") -> dict[str, Any] | None:
    """`hook.event` params (`{Kind, Time, Meta, Payload}`); None when the kind has no legacy
    index and `kind_style` is ``index``."""
    envelope, fields = _split(event.payload)
    legacy = RUNTIME_TO_LEGACY.get(event.kind)
    kind: str | int
    if kind_style == "index":
        if legacy is None:
            return None
        kind = LEGACY_INDEX[legacy]
    else:
        kind = legacy or event.kind
    meta = _mapping(envelope.get("meta"))
    if not meta:
        scope = _mapping(envelope.get("scope"))
        correlation = _mapping(envelope.get("correlation"))
        attrs = _mapping(envelope.get("attrs"))
        iteration = attrs.get("iteration")
        meta = meta_fields(
            agent_id=str(scope.get("agent_id", "")),
            turn_id=str(scope.get("turn_id", "")),
            parent_turn_id=str(correlation.get("parent_turn_id", "")),
            session_key=str(scope.get("session_key", "")),
            iteration=iteration if type(iteration) is int else 0,
            trace_path=str(correlation.get("trace_id", "")),
            source=str(attrs.get("agent_source", "")),
        )
    return {"Kind": kind, "Time": rfc3339(event.time), "Meta": meta, "Payload": fields}


class ProcessObserver:
    """The engine observer of one process: encodes and queues, never waits."""

    def __init__(self, target: ProcessTarget) -> None:
        self.target = target

    def __call__(self, event: RuntimeEvent) -> None:
        target = self.target
        if target.protocol == "current":
            method, params = "hook.runtime_event", runtime_event_params(event)
        else:
            legacy = legacy_event_params(event, target.entry.config.seed_event_kind)
            if legacy is None:
                return
            method, params = "hook.event", legacy
        target.rpc.notify_nowait(method, params, timeout=target.observer_timeout)


def registered_processes(engine: HookEngine) -> list[ProcessTarget]:
    """Every PicoClaw process registered on `engine` (through its specs), once each."""
    found: dict[int, ProcessTarget] = {}
    for spec in engine.hooks():
        handler = spec.handler
        if isinstance(handler, PicoClawHandler | ObserverCarrier):
            target = handler.target
            if isinstance(target, ProcessTarget):
                found.setdefault(id(target), target)
    return list(found.values())


def attach_observers(
    engine: HookEngine, processes: Iterable[ProcessTarget] | None = None
) -> list[ProcessTarget]:
    """Register an observer on `engine` for each observing process (default: those loaded on
    the engine); a process already attached to this engine is skipped. Returns the processes
    attached by this call."""
    attached: list[ProcessTarget] = []
    for target in registered_processes(engine) if processes is None else processes:
        if not target.observes or id(engine) in target.attached_to:
            continue
        target.use_io(engine.services.io)
        target.attached_to.add(id(engine))
        kinds = None if target.observe_kinds is None else list(target.observe_kinds)
        engine.add_observer(ProcessObserver(target), kinds, name=f"picoclaw:{target.name}")
        attached.append(target)
    return attached
