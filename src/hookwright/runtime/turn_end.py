"""How a turn of the reference agent ends before its natural end.

A checkpoint's decision can end the turn anywhere below the loop (a PreToolUse `continue:
false` three calls deep in a batch, a blocked model request): `end_turn_if` unwinds to the
loop with `TurnEnded`, which `Agent.run` catches and turns into the turn's result. Nothing
outside the agent sees the exception.
"""

from __future__ import annotations

from typing import Literal

from hookwright.host import EndTurn

TurnStatus = Literal[
    "completed", "blocked", "failed", "aborted", "stopped", "max_turns", "deferred"
]


class TurnEnded(Exception):
    """Unwinds the loop when a checkpoint ends the turn (abort, block, continue: false)."""

    def __init__(self, status: TurnStatus, reason: str | None = None, rollback: bool = False):
        super().__init__(reason or status)
        self.status = status
        self.reason = reason
        self.rollback = rollback


def end_turn_if(end: EndTurn | None) -> None:
    """Unwind the turn when a checkpoint's decision ends it."""
    if end is not None:
        raise TurnEnded(end.status, end.reason, rollback=end.rollback)
