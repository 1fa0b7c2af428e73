"""`type: prompt` and `type: agent` handlers: one model call through the evaluator seam.

The prompt text is built as in the real project:
`<prompt or task>\\n\\nReturn only JSON matching the Open Agent Harness hook output
protocol.\\n\\n{"hook": <name>, "envelope": {...}}`. The reply must decode as the unified
output (prose around the JSON is tolerated). The model is the running session's
(`Services.evaluator`), asked with a `HookModelRequest`: a prompt hook names its `model_ref`, an
agent hook its agent. No model, a blank or invalid reply, an evaluator error (e.g. an unknown
agent) or a timeout (default 30 s; upstream has none) is logged and the run goes on.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from hookwright.dialects.openharness.binding import HookBinding
from hookwright.dialects.openharness.prompt_source import PromptSourceError, read_source
from hookwright.dialects.openharness.reply import Failure, Output, Reply
from hookwright.dialects.openharness.schema import PromptSource
from hookwright.services import HookModelRequest, Services

INSTRUCTION = "Return only JSON matching the Open Agent Harness hook output protocol."


def compose(text: str, hook_name: str, envelope: dict[str, Any]) -> str:
    payload = json.dumps({"hook": hook_name, "envelope": envelope}, ensure_ascii=False)
    return f"{text}\n\n{INSTRUCTION}\n\n{payload}"


class PromptTransport:
    """Both handler kinds: a prompt hook has `model_ref`, an agent hook has `agent`."""

    __slots__ = ("agent", "kind", "model_ref", "root", "source", "timeout")

    def __init__(
        self,
        source: PromptSource,
        root: Path,
        timeout: float,
        *,
        model_ref: str | None = None,
        agent: str | None = None,
    ) -> None:
        self.source = source
        self.root = root
        self.timeout = timeout
        self.model_ref = model_ref
        self.agent = agent
        self.kind = "Agent" if agent is not None else "Prompt"

    async def __call__(
        self, envelope: dict[str, Any], binding: HookBinding, services: Services
    ) -> Reply:
        try:
            text = read_source(self.source, self.root)
        except PromptSourceError as exc:
            return Failure(f"{self.kind} hook: {exc}")
        evaluate = services.evaluator
        if evaluate is None:
            return Failure(f"{self.kind} hook failed: no model configured")
        request = HookModelRequest(
            kind="agent" if self.agent is not None else "prompt",
            prompt=compose(text, binding.name, envelope),
            model=self.model_ref,
            agent=self.agent,
            timeout=self.timeout,
        )
        try:
            reply = await asyncio.wait_for(evaluate(request), self.timeout)
        except TimeoutError:
            return Failure(f"{self.kind} hook timed out after {self.timeout:g}s", timed_out=True)
        except Exception as exc:
            return Failure(f"{self.kind} hook failed: {exc}")
        if not isinstance(reply, str):
            return Failure(f"{self.kind} hook evaluator returned {type(reply).__name__}")
        return Output(reply, empty_ok=False)
