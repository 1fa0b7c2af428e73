"""The observation stream: engine runtime events -> notifications to observing processes.

`attach_observers(engine)` registers one engine observer per process whose `observe` list is
not empty, filtered to its kinds. Each event becomes a notification (no id, no answer):

* ``current`` protocol: ``hook.runtime_event`` with PicoClaw's `events.Event` envelope
  `{id, kind, time, source, scope, correlation, severity, payload, attrs}`;
* ``seed`` protocol: ``hook.event`` with `{Kind, Time, Meta, Payload}`, as PicoClaw v0.2.4 to
  v0.2.8 sent it: `Kind` is the integer index of the kind (an untagged Go `uint8`; kinds
  without one are not sent), or with ``seed_event_kind: "name"`` the legacy short name the seed
  documents print (``tool_exec_start``; runtime names for kinds that have none).

The runtime publishes with `engine.publish(kind, payload)`: `kind` is a runtime kind
(``agent.tool.exec_start`` ...) and `payload` holds the event's PascalCase fields (spec §5,
e.g. `Tool`, `Arguments`) plus optional lowercase envelope keys: `scope` (`agent_id`,
`session_key`, `turn_id`, `channel`, `chat_id`, `sender_id`, `message_id`, ...), `correlation`
(`trace_id`, `parent_turn_id`, ...), `attrs` (`agent_source`, `iteration`), `severity`, `id`,
`source` and `meta` (PascalCase `AgentID`, `TurnID`, ...). What the envelope leaves out comes
from where PicoClaw emits the kind (`kinds.EVENT_ORIGINS`: its `Source` and `TracePath`), so
`correlation.trace_id` is ``turn.tool.start`` for an exec_start, never the kind. Delivery never
blocks the engine's observer thread: each notification is queued to the process (at most 64
waiting, the rest dropped and counted in `rpc.dropped_notifications`) and its write is bounded
by `observer_timeout_ms`.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hookwright.dialects.picoclaw.codec import meta_fields
from hookwright.dialects.picoclaw.handler import target_of
from hookwright.dialects.picoclaw.hook_process import ProcessTarget
from hookwright.dialects.picoclaw.kinds import (
    EVENT_ORIGINS,
    LEGACY_INDEX,
    RUNTIME_TO_LEGACY,
    severity_of,
)
from hookwright.engine.kernel import HookEngine
from hookwright.engine.observed import RuntimeEvent

ENVELOPE_KEYS = frozenset(
    {"id", "scope", "correlation", "attrs", "severity", "source", "meta", "context"}
)


def rfc3339(timestamp: float) -> str:
    """Go's `time.Time` JSON (RFC 3339, fractional seconds without trailing zeros), in UTC."""
    moment = datetime.datetime.fromtimestamp(timestamp, tz=datetime.UTC)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if moment.microsecond:
        text += f".{moment.microsecond:06d}".rstrip("0")
    return text + "Z"


def _split(payload: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    envelope = {k: v for k, v in payload.items() if k in ENVELOPE_KEYS}
    fields = {k: v for k, v in payload.items() if k not in ENVELOPE_KEYS}
    return envelope, fields


def _mapping(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _compact(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v not in (None, "", [], {})}


@dataclass(frozen=True, slots=True)
class Origin:
    """Who emitted an event, as PicoClaw's meta says it (`HookMeta`)."""

    scope: dict[str, Any]
    correlation: dict[str, Any]
    source: str
    iteration: int


def origin_of(event: RuntimeEvent, envelope: Mapping[str, Any]) -> Origin:
    """The event's scope, correlation, source and iteration: the envelope's values, else the
    ones PicoClaw uses for its kind (`EVENT_ORIGINS`), else those of an explicit `meta`."""
    meta = _mapping(envelope.get("meta"))
    known = EVENT_ORIGINS.get(event.kind)
    scope = _mapping(envelope.get("scope")) or {
        "agent_id": meta.get("AgentID"),
        "session_key": meta.get("SessionKey"),
        "turn_id": meta.get("TurnID"),
    }
    correlation = {
        "trace_id": meta.get("TracePath") or (known[1] if known else None),
        "parent_turn_id": meta.get("ParentTurnID"),
        **_mapping(envelope.get("correlation")),
    }
    attrs = _mapping(envelope.get("attrs"))
    source = attrs.get("agent_source") or meta.get("Source") or (known[0] if known else "")
    iteration = attrs.get("iteration", meta.get("Iteration"))
    if known is not None and not known[2]:
        iteration = 0
    return Origin(
        _compact(scope),
        _compact(correlation),
        str(source),
        iteration if type(iteration) is int else 0,
    )


def runtime_event_params(event: RuntimeEvent) -> dict[str, Any]:
    """`hook.runtime_event` params: PicoClaw's `pkg/events.Event`."""
    envelope, fields = _split(event.payload)
    origin = origin_of(event, envelope)
    component = event.kind.split(".", 1)[0]
    params: dict[str, Any] = {
        "id": str(envelope.get("id") or f"evt-{event.seq}"),
        "kind": event.kind,
        "time": rfc3339(event.time),
        "source": _mapping(envelope.get("source"))
        or _compact({"component": component, "name": origin.scope.get("agent_id")}),
        "scope": origin.scope,
        "correlation": origin.correlation,
        "severity": str(envelope.get("severity") or severity_of(event.kind, fields)),
    }
    if fields:
        params["payload"] = fields
    extra = {k: v for k, v in _mapping(envelope.get("attrs")).items() if k not in _ORIGIN_ATTRS}
    attrs = {"agent_source": origin.source, "iteration": origin.iteration, **extra}
    attrs = {k: v for k, v in attrs.items() if v not in ("", 0, None)}
    if attrs:
        params["attrs"] = attrs
    return params


_ORIGIN_ATTRS = frozenset({"agent_source", "iteration"})


def legacy_event_params(event: RuntimeEvent, kind_style: str = "index") -> dict[str, Any] | None:
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
        origin = origin_of(event, envelope)
        meta = meta_fields(
            agent_id=str(origin.scope.get("agent_id", "")),
            turn_id=str(origin.scope.get("turn_id", "")),
            parent_turn_id=str(origin.correlation.get("parent_turn_id", "")),
            session_key=str(origin.scope.get("session_key", "")),
            iteration=origin.iteration,
            trace_path=str(origin.correlation.get("trace_id", "")),
            source=origin.source,
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
        target = target_of(spec.handler)
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
        target.observer = ProcessObserver(target)
        engine.add_observer(target.observer, kinds, name=f"picoclaw:{target.name}")
        attached.append(target)
    return attached
