"""The `execute_tool` span of a tool call whose host runs the tool and relays its events to
hookwright (`hook claude-code`, `hook gemini`, `hook codex`, the daemon).

Each event of such a call may be answered by a different process, so no process holds the
span open. Its id is derived from the session id and the host's tool-use id, like the
session's root span: every dispatch of the call's events, in whichever process, hangs under
it, and the process that sees the call end sends it whole: PostToolUse or PostToolUseFailure
(the tool ran), PermissionDenied or a PreToolUse the hooks refused (it never will). The span
starts at the call's PreToolUse when the same engine answered it (the daemon), else when the
host says the tool started (its ``duration_ms`` before the PostToolUse), else at the ending
event. A call the host gives no tool-use id gets no span: its dispatches hang under the
session's root as before."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any

from hookwright.core import redaction
from hookwright.core.digests import sha256_function
from hookwright.core.events import Event, HookInput
from hookwright.core.results import Verdict

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer

#: The events after which the host runs nothing more of the call.
ENDING = frozenset({Event.PostToolUse, Event.PostToolUseFailure, Event.PermissionDenied})
#: Calls whose PreToolUse start and decision an engine remembers for their ending event.
MAX_OPEN_CALLS = 4096
#: A host's ``duration_ms`` above this (a day) is not believed.
MAX_DURATION_MS = 86_400_000


def tool_span_id(session_id: str | None, call_id: str) -> int:
    """The span id of the call's `execute_tool` span, the same in every process."""
    digest = sha256_function()(f"{session_id or 'no-session'}\0{call_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") or 1


class RelayedTool:
    """One event of a relayed call while it is dispatched: stands for the call's span (its
    dispatches hang under the span's id, `context`) and keeps what they decide."""

    __slots__ = (
        "call_id",
        "context",
        "decision",
        "duration_ms",
        "event",
        "failed",
        "reason",
        "refused",
        "session_id",
        "started",
        "tool_name",
    )

    def __init__(
        self, context: Any, session_id: str | None, tool_name: str, call_id: str, event: Event
    ) -> None:
        self.context = context
        self.session_id = session_id
        self.tool_name = tool_name
        self.call_id = call_id
        self.event = event
        self.started = 0
        #: The host's ``duration_ms`` of the tool run, on its PostToolUse events.
        self.duration_ms: object = None
        self.decision: str | None = None
        self.reason: str | None = None
        self.failed = False
        self.refused = False

    @property
    def key(self) -> tuple[str, str]:
        return (self.session_id or "", self.call_id)

    @property
    def ends_call(self) -> bool:
        return self.event in ENDING or self.refused

    def note(self, inp: HookInput, verdict: Verdict, secrets: AbstractSet[str]) -> None:
        if inp.event is Event.PreToolUse and verdict.decision is not None:
            self.decision = verdict.decision.value
            self.reason = redaction.redact(verdict.reason, secrets) if verdict.reason else None
            self.refused = verdict.blocked or self.decision == "deny"
        elif inp.event is Event.PostToolUseFailure:
            self.failed = True


Opened = tuple[int, str | None, str | None]


class OpenCalls:
    """The PreToolUse start (ns) and decision of calls not ended yet, bounded, for an engine
    that sees a call's later events too."""

    def __init__(self) -> None:
        self._calls: OrderedDict[tuple[str, str], Opened] = OrderedDict()

    def opened(self, tool: RelayedTool) -> None:
        key = tool.key
        self._calls[key] = (tool.started, tool.decision, tool.reason)
        if len(self._calls) > MAX_OPEN_CALLS:
            self._calls.popitem(last=False)

    def ended(self, key: tuple[str, str]) -> Opened | None:
        return self._calls.pop(key, None)


def started_at(opened: Opened | None, tool: RelayedTool) -> int:
    """When the call's span starts (see the module's docstring)."""
    if opened is not None:
        return opened[0]
    duration = tool.duration_ms
    number = isinstance(duration, int | float) and not isinstance(duration, bool)
    if number and 0 <= duration <= MAX_DURATION_MS:  # type: ignore[operator]
        return tool.started - int(duration * 1_000_000)  # type: ignore[operator]
    return tool.started


def send_finished(
    tracer: Tracer,
    name: str,
    ids: tuple[int, int, int | None],
    times: tuple[int, int],
    attributes: Any,
    error: str | None = None,
) -> None:
    """A finished span with the given (trace id, span id, parent span id), handed to the
    tracer's processors (the SDK's tracer always draws new ids); nothing for a tracer that is
    not the SDK's."""
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.trace import Tracer as SdkTracer
    from opentelemetry.trace import SpanContext, Status, StatusCode, TraceFlags

    if not isinstance(tracer, SdkTracer):
        return
    trace_id, span_id, parent_id = ids
    flags = TraceFlags(TraceFlags.SAMPLED)
    parent = SpanContext(trace_id, parent_id, True, flags) if parent_id is not None else None
    span = ReadableSpan(
        name,
        SpanContext(trace_id, span_id, False, flags),
        parent=parent,
        resource=tracer.resource,
        attributes=attributes,
        status=Status(StatusCode.ERROR, error) if error else Status(StatusCode.UNSET),
        instrumentation_scope=getattr(tracer, "_instrumentation_scope", None),
        start_time=times[0],
        end_time=times[1],
    )
    tracer.span_processor.on_end(span)
