"""`AuditRecord`: one line of the audit trail, as hosts read it (an audit callback's argument,
`AuditLog.note`'s record). The audit itself (`hookwright.monitor.audit`) writes it; the
details only some records carry are in `hookwright.core.audit_detail`."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hookwright.core.audit_detail import CutBy, PermissionSource, VerdictLink


@dataclass(slots=True, frozen=True)
class AuditContext:
    """Who and what wrote a record, the same for every record of one audit: the project
    folder, the host that ran the hooks (``reference agent``, ``daemon``, an adapter's name,
    ``hook claude-code``), the user, the model, and hookwright's version."""

    project: str | None = None
    host: str | None = None
    user: str | None = None
    model: str | None = None
    hookwright_version: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return {
            "project": self.project,
            "host": self.host,
            "user": self.user,
            "model": self.model,
            "hookwright_version": self.hookwright_version,
        }


def iso_utc(ts: float) -> str:
    """`ts` (Unix seconds) as the audit file writes it: ISO 8601, UTC, microseconds."""
    whole = int(ts // 1)
    micro = min(999_999, round((ts - whole) * 1_000_000))
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{micro:06d}Z"


@dataclass(slots=True, frozen=True)
class AuditRecord:
    """One line of the audit: a hook's run (or a file that did not load) for one event."""

    #: Unix seconds; the file holds it as ISO 8601 UTC (`iso_utc`).
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
    #: Who and what wrote the record (the audit fills it in when it writes the record).
    about: AuditContext | None = None
    #: The policy tier of the hook, when the policy gives it one.
    tier: str | None = None
    #: The hooks whose decisions produced the dispatch's verdict, in the order they ran.
    chain: tuple[VerdictLink, ...] | None = None
    #: The hook runs in shadow mode: `decision` is what it would have decided; nothing of its
    #: answer was applied.
    shadow: bool = False
    #: What makes a failed hook work, when its dialect says (`Notice.fix`).
    fix: str | None = None
    #: The word the hook's answer said its decision in, where its system has two
    #: (`HookResult.own_word`: Gemini CLI `block` or `deny`), so the audit viewer says it.
    own_word: str | None = None
    #: Set on a record of status ``cut`` (a selected hook an earlier hook's terminal answer
    #: kept from running): that hook and its answer.
    cut_by: CutBy | None = None

    def to_dict(self) -> dict[str, Any]:
        """The record as its audit line holds it: `ts` in ISO 8601 UTC, then the fields in
        order, the context's fields (`AuditContext`) after them; `fix`, `own_word`, `tier`,
        `chain` and `cut_by` only when known, `shadow` only when true, `permission` only on
        permission records, `test` only when true."""
        data = {name: getattr(self, name) for name in _RECORD_FIELDS}
        data["ts"] = iso_utc(self.ts)
        data.update((self.about or _NO_CONTEXT).to_dict())
        if self.fix is not None:
            data["fix"] = self.fix
        if self.own_word is not None:
            data["own_word"] = self.own_word
        if self.tier is not None:
            data["tier"] = self.tier
        if self.chain is not None:
            data["chain"] = [link.to_dict() for link in self.chain]
        if self.shadow:
            data["shadow"] = True
        if self.permission is not None:
            data["permission"] = self.permission.to_dict()
        if self.cut_by is not None:
            data["cut_by"] = self.cut_by.to_dict()
        if self.test:
            data["test"] = True
        return data


_OPTIONAL = (
    "permission",
    "test",
    "about",
    "tier",
    "chain",
    "shadow",
    "fix",
    "own_word",
    "cut_by",
)
_RECORD_FIELDS = tuple(f.name for f in fields(AuditRecord) if f.name not in _OPTIONAL)
_NO_CONTEXT = AuditContext()

AuditCallback = Callable[[AuditRecord], None]


__all__ = [
    "AuditCallback",
    "AuditContext",
    "AuditRecord",
    "iso_utc",
]
