"""`AsyncDelivery`: what an asynchronous hook delivers to its session's inbox
(`hookwright.engine.inbox.AsyncInbox`) when it finishes.

Apart from the inbox, which every session has: it loads with the first background hook (a
Claude Code or Codex command hook run ``async``), not with every session.
"""

from __future__ import annotations

from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hookwright.core.events import Event
    from hookwright.core.results import HookResult


@dataclass(slots=True, frozen=True)
class AsyncDelivery:
    """An async hook's result, held for the next event of its session."""

    session_id: str | None
    agent_id: str | None
    event: Event
    #: The finished hook's own result (status, exit code, stderr, error) with its spec.
    result: HookResult
    additional_context: str | None = None
    system_message: str | None = None
    rewake: bool = False
    rewake_message: str | None = None
    #: The hook's undocumented `rewakeSummary`, when set.
    rewake_summary: str | None = None

    @property
    def has_content(self) -> bool:
        return bool(self.additional_context or self.system_message or self.rewake)


__all__ = ["AsyncDelivery"]
