"""What a handler transport hands back before the unified output is decoded."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from hookwright.dialects.openharness.binding import HookBinding
from hookwright.engine.services import Services


@dataclass(slots=True, frozen=True)
class Output:
    """Text to decode as the unified output. `empty_ok`: blank text means "no effect" (command
    stdout, http body) rather than a failure (a model's reply)."""

    text: str
    empty_ok: bool
    exit_code: int | None = None
    stderr: str | None = None


@dataclass(slots=True, frozen=True)
class Block:
    """Exit code 2: block with `reason`."""

    reason: str
    exit_code: int | None = None
    stderr: str | None = None


@dataclass(slots=True, frozen=True)
class Failure:
    """The hook failed; the run goes on (fail-open) with a notice."""

    message: str
    timed_out: bool = False
    code: str = "hook_execution_failed"
    exit_code: int | None = None
    stderr: str | None = None


Reply = Output | Block | Failure


class Transport(Protocol):
    """Runs one handler with the envelope and says what came back. `services` are the running
    session's (prompt and agent handlers ask its model)."""

    async def __call__(
        self, envelope: dict[str, Any], binding: HookBinding, services: Services
    ) -> Reply: ...
