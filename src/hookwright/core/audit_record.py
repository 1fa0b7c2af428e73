"""`AuditRecord`: one line of the audit trail, as hosts read it (an audit callback's argument,
`AuditLog.note`'s record). The audit itself (`hookwright.monitor.audit`) writes it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any


@dataclass(slots=True, frozen=True)
class AuditRecord:
    ts: float
    event: str
    hook: str
    source: str
    dialect: str
    status: str
    decision: str | None
    duration_ms: float
    exit_code: int | None
    reason: str | None
    error: str | None
    stderr_tail: str | None
    session_id: str | None
    origin: str | None
    #: The capabilities the hook declared (OpenHarness), else None.
    capabilities: tuple[str, ...] | None = None
    #: The patches the hook applied, by scope (OpenHarness `hookSpecificOutput.patch`).
    patch: dict[str, Any] | None = None
    #: What the hook did, in one word (`deny`, `rewrite input`, `context`, `prompt`, `error`,
    #: ...), or None when it had no effect.
    effect: str | None = None
    #: The turn the dispatch belongs to, and on tool events the call it was about.
    turn_id: str | None = None
    tool_name: str | None = None
    tool_use_id: str | None = None
    #: The tool input the hooks of this dispatch received (tool events).
    tool_input: dict[str, Any] | None = None
    #: The input the call goes on with after this dispatch's rewrites (PreToolUse and
    #: PermissionRequest), None when the call was not let through (denied, deferred, answered).
    executed_input: dict[str, Any] | None = None
    #: The text this hook added for the model: its additional context, or the prompts a
    #: skill hook injected.
    context: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _RECORD_FIELDS}


_RECORD_FIELDS = tuple(f.name for f in fields(AuditRecord))

AuditCallback = Callable[[AuditRecord], None]


__all__ = ["AuditCallback", "AuditRecord"]
