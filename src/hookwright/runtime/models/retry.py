"""Retrying transient model errors with exponential backoff and jitter.

The SDK clients run with their own retries disabled so that every retry passes through here and
the agent can report it (`on_retry` feeds its `agent.llm.retry` events).

A retried streaming call delivers its text to `on_text` again from the start: callers that
display streamed text should treat the retry callback as "discard what was shown".
"""

from __future__ import annotations

import asyncio
import inspect
import random
from collections.abc import Awaitable, Callable
from typing import Any

from hookwright.runtime.models.base import (
    Message,
    Model,
    ModelError,
    ModelResponse,
    TextCallback,
    ToolDefinition,
)

RetryCallback = Callable[[int, ModelError, float], Awaitable[None] | None]
"""Called as `on_retry(attempt, error, delay)` before sleeping; `attempt` counts from 1."""
Sleep = Callable[[float], Awaitable[None]]


class RetryingModel:
    """Wraps a model; retries its transient `ModelError`s, lets every other error through."""

    def __init__(
        self,
        inner: Model,
        *,
        max_retries: int = 3,
        base_delay: float = 0.5,
        max_delay: float = 30.0,
        jitter: float = 0.25,
        on_retry: RetryCallback | None = None,
        sleep: Sleep = asyncio.sleep,
        rng: Callable[[], float] = random.random,
    ) -> None:
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        if base_delay < 0 or max_delay < 0 or jitter < 0:
            raise ValueError("base_delay, max_delay and jitter must be >= 0")
        self.inner = inner
        self.name = inner.name
        self.max_retries = max_retries
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.jitter = jitter
        self.on_retry = on_retry
        self._sleep = sleep
        self._rng = rng

    def delay_for(self, attempt: int, error: ModelError) -> float:
        """Backoff before retry number `attempt` (1-based), at least the server's Retry-After.

        The exponential part is capped at `max_delay`; jitter adds up to `jitter` times that.
        """
        backoff = min(self.max_delay, self.base_delay * 2.0 ** (attempt - 1))
        delay = backoff * (1 + self.jitter * self._rng())
        if error.retry_after is not None:
            delay = max(delay, min(error.retry_after, self.max_delay))
        return delay

    async def complete(
        self,
        messages: list[Message],
        tools: list[ToolDefinition] | None = None,
        *,
        options: dict[str, Any] | None = None,
        on_text: TextCallback | None = None,
        model: str | None = None,
    ) -> ModelResponse:
        attempt = 0
        while True:
            try:
                return await self.inner.complete(
                    messages, tools, options=options, on_text=on_text, model=model
                )
            except ModelError as error:
                if not error.transient or attempt >= self.max_retries:
                    raise
                attempt += 1
                delay = self.delay_for(attempt, error)
                if self.on_retry is not None:
                    outcome = self.on_retry(attempt, error, delay)
                    if inspect.isawaitable(outcome):
                        await outcome
                await self._sleep(delay)
