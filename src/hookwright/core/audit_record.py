"""`AuditRecord`: one line of the audit trail, as hosts read it (an audit callback's argument,
`AuditLog.note`'s record). The audit itself (`hookwright.monitor.audit`) writes it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, Literal

#: Who or what decided a permission outcome: a permission rule, a person answering a prompt,
#: a hook's decision, or the permission mode.
Decider = Literal["rule", "person", "hook", "mode"]
#: Where a person answered a permission prompt: the terminal of `hookwright chat` / `run`, the
#: page of `hookwright serve`, or a host's own approval callback (an adapter's framework
#: callback or interrupt, an embedding's `ask_user`).
PromptChannel = Literal["terminal", "page", "callback"]


@dataclass(slots=True, frozen=True)
class PermissionSource:
    """Who allowed, asked about or denied a tool call (a permission record's `permission`).

    `name`: the rule's text, the hook's name, the mode, or ``user`` for a person; `file`: the
    settings file the rule came from, when known; `mode`: the permission mode the call was
    decided under; `channel`: where the person answered (person records only)."""

    by: Decider
    name: str
    mode: str
    file: str | None = None
    channel: PromptChannel | None = None

    def to_dict(self) -> dict[str, Any]:
        """`channel` only on a person's record (the others keep the shape they always had)."""
        data = {"by": self.by, "name": self.name, "mode": self.mode, "file": self.file}
        if self.channel is not None:
            data["channel"] = self.channel
        return data


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
    #: Set on a permission record (event ``Permission``): who decided the call's permission.
    permission: PermissionSource | None = None
    #: Written by `hookwright hooks test`, not by a session.
    test: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The record as its audit line holds it: `permission` only on permission records,
        `test` only when true (hook-run lines keep the shape they always had)."""
        data = {name: getattr(self, name) for name in _RECORD_FIELDS}
        if self.permission is not None:
            data["permission"] = self.permission.to_dict()
        if self.test:
            data["test"] = True
        return data


_RECORD_FIELDS = tuple(f.name for f in fields(AuditRecord) if f.name not in ("permission", "test"))

AuditCallback = Callable[[AuditRecord], None]


__all__ = ["AuditCallback", "AuditRecord", "Decider", "PermissionSource", "PromptChannel"]
