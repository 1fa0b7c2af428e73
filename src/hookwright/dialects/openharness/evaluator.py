"""The seam through which prompt and agent hooks reach a model.

An evaluator takes `(prompt_text, model_ref, agent_name, timeout)` and returns the model's
reply text, which is decoded as the unified output. Prompt hooks pass their `model_ref` (None:
the runtime's default model) and no agent; agent hooks pass the agent name and no model_ref:
the evaluator looks the agent up and makes one model call with the agent's system prompt,
model and sampling settings (the real project runs no agent loop, no tools). Raise to fail
the hook (e.g. an unknown agent); the hook then fails open with a notice.

The runtime installs its evaluator with :func:`set_evaluator`; a loader call may also pass one
for its own hooks. Without either, prompt and agent hooks fail with "no model configured".
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

Evaluator = Callable[[str, str | None, str | None, float], Awaitable[str]]


class NoModelConfigured(RuntimeError):
    pass


async def no_model(
    prompt_text: str, model_ref: str | None, agent_name: str | None, timeout: float
) -> str:
    raise NoModelConfigured("no model configured")


_current: Evaluator | None = None


def set_evaluator(evaluator: Evaluator | None) -> None:
    """Install the process-wide evaluator (None restores the default)."""
    global _current
    _current = evaluator


def get_evaluator() -> Evaluator:
    return _current or no_model
