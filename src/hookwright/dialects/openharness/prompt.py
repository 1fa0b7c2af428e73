"""`type: prompt` and `type: agent` handlers: the session's model answers with the unified JSON.

The texts are the real project's. A prompt hook sends one user message,
`<prompt>\\n\\nReturn only JSON matching the Open Agent Harness hook output
protocol.\\n\\n{"hook": <name>, "envelope": {...}}`, to its `model_ref` (None: the session's
model). An agent hook names an agent (`.openharness/agents/<name>.md`, see `agents.py`): the
agent's prompt is the system prompt, the task the first user message and the instruction with
the envelope the second, with the agent's model and sampling options. The reply must decode as
the unified output (prose around the JSON is tolerated).

Prompt and agent files are read under a read lease of the workspace's files when the host
provides one (`lease.py`). The model is the running session's (`Services.evaluator`), asked
with a `HookModelRequest`. No
model, an unknown agent (`agent_not_found`), a blank or invalid reply, an evaluator error or a
timeout (default 30 s; upstream has none) is logged and the run goes on.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from hookwright.dialects.openharness.agents import AgentDefinition, AgentError, load_agent
from hookwright.dialects.openharness.binding import HookBinding
from hookwright.dialects.openharness.lease import LeaseError, workspace_files
from hookwright.dialects.openharness.prompt_source import PromptSourceError, read_source
from hookwright.dialects.openharness.reply import Failure, Output, Reply
from hookwright.dialects.openharness.schema import PromptSource
from hookwright.engine.services import HookModelRequest, Services

INSTRUCTION = "Return only JSON matching the Open Agent Harness hook output protocol."


def instruction(hook_name: str, envelope: dict[str, Any]) -> str:
    payload = json.dumps({"hook": hook_name, "envelope": envelope}, ensure_ascii=False)
    return f"{INSTRUCTION}\n\n{payload}"


def compose(text: str, hook_name: str, envelope: dict[str, Any]) -> str:
    return f"{text}\n\n{instruction(hook_name, envelope)}"


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
            async with workspace_files(services, self.root) as files:
                agent = load_agent(files, self.agent) if self.agent is not None else None
                text = read_source(self.source, files)
        except AgentError as exc:
            return Failure(str(exc), code=exc.code)
        except (PromptSourceError, LeaseError) as exc:
            return Failure(f"{self.kind} hook: {exc}")
        evaluate = services.evaluator
        if evaluate is None:
            return Failure(f"{self.kind} hook failed: no model configured")
        request = self._request(text, agent, binding.name, envelope)
        try:
            reply = await asyncio.wait_for(evaluate(request), self.timeout)
        except TimeoutError:
            return Failure(f"{self.kind} hook timed out after {self.timeout:g}s", timed_out=True)
        except Exception as exc:
            return Failure(f"{self.kind} hook failed: {exc}")
        if not isinstance(reply, str):
            return Failure(f"{self.kind} hook evaluator returned {type(reply).__name__}")
        return Output(reply, empty_ok=False)

    def _request(
        self,
        text: str,
        agent: AgentDefinition | None,
        hook_name: str,
        envelope: dict[str, Any],
    ) -> HookModelRequest:
        if agent is None:
            return HookModelRequest(
                kind="prompt",
                prompt=compose(text, hook_name, envelope),
                model=self.model_ref,
                agent=None,
                timeout=self.timeout,
            )
        return HookModelRequest(
            kind="agent",
            prompt=instruction(hook_name, envelope),
            model=agent.model_ref,
            agent=agent.name,
            timeout=self.timeout,
            system=agent.prompt,
            task=text,
            options=agent.options,
        )
