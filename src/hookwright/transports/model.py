"""The model transport: a prompt or agent hook asks the session's model.

The envelope carries the request in `json` (the engine's `HookModelRequest`, built by the
dialect's codec) and the session's evaluator in `model`; `timeout`, when set, bounds the wait.
The reply is the model's text as `Output`. No model is `Failure("unstarted")`, a wait past
the timeout (or an evaluator that raises `TimeoutError`) `Failure("timeout")`, an evaluator
that raises or answers something other than text `Failure("error")` with the exception as
`cause`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from hookwright.transports.base import BaseTransport, Envelope, Failure, Output, Reply

#: Answers a request with the model's reply text (the engine's `ModelEvaluator`); raises to
#: fail the hook.
Evaluator = Callable[[Any], Awaitable[object]]


class ModelTransport(BaseTransport):
    """Sends `envelope.json` to the session's model (`envelope.model`)."""

    async def handle(self, envelope: Envelope) -> Reply:
        ask = envelope.model
        if ask is None:
            return Failure("unstarted", "no model configured")
        started = time.monotonic()
        timeout = envelope.timeout
        try:
            async with asyncio.timeout(timeout):
                answer = await ask(envelope.json)
        except TimeoutError as exc:
            after = f"timed out after {timeout:g}s" if timeout is not None else "timed out"
            return Failure("timeout", after, duration_ms=_since(started), cause=exc)
        except Exception as exc:
            reason = str(exc) or type(exc).__name__
            return Failure("error", reason, duration_ms=_since(started), cause=exc)
        if not isinstance(answer, str):
            reason = f"evaluator returned {type(answer).__name__}"
            return Failure("error", reason, duration_ms=_since(started))
        return Output(answer, size=len(answer), duration_ms=_since(started))


def _since(started: float) -> float:
    return (time.monotonic() - started) * 1000.0
