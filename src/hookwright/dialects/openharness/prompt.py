"""`type: prompt` and `type: agent` handlers: the session's model answers with the unified JSON.

The texts are the real project's. A prompt hook sends one user message,
`<prompt>\\n\\nReturn only JSON matching the Open Agent Harness hook output
protocol.\\n\\n{"hook": <name>, "envelope": {...}}`, to its `model_ref` (None: the session's
model). An agent hook names an agent (`.openharness/agents/<name>.md`, see `agents.py`): the
agent's prompt is the system prompt, the task the first user message and the instruction with
the envelope the second, with the agent's model and sampling options. The reply must decode as
the unified output (prose around the JSON is tolerated).

The codec's envelope carries a `PromptPlan`; `PromptFilesTransport` reads the prompt and agent
files (under a read lease of the workspace's files when the host provides one, `lease.py`),
releases the lease, and asks the model through the model transport
(`transports/model.py`, `Services.evaluator`) with the `HookModelRequest` the plan makes of
them. No model, an unknown agent (`agent_not_found`), a blank or invalid reply, an evaluator
error or a timeout (default 30 s; upstream has none) is logged and the run goes on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookwright.dialects.openharness.agents import AgentError, load_agent
from hookwright.dialects.openharness.codec import Answer, Failed, Reading
from hookwright.dialects.openharness.lease import LeaseError, workspace_files
from hookwright.dialects.openharness.notices import timeout_fix
from hookwright.dialects.openharness.prompt_source import PromptSourceError, read_source
from hookwright.dialects.openharness.schema import PromptSource
from hookwright.engine.hook_requests import HookModelRequest
from hookwright.engine.services import Services
from hookwright.transports.base import (
    BaseTransport,
    Envelope,
    Failure,
    Output,
    Reply,
    Transport,
)

INSTRUCTION = "Return only JSON matching the Open Agent Harness hook output protocol."


def instruction(hook_name: str, envelope: dict[str, Any]) -> str:
    payload = json.dumps({"hook": hook_name, "envelope": envelope}, ensure_ascii=False)
    return f"{INSTRUCTION}\n\n{payload}"


def compose(text: str, hook_name: str, envelope: dict[str, Any]) -> str:
    return f"{text}\n\n{instruction(hook_name, envelope)}"


@dataclass(frozen=True, slots=True)
class PromptPlan:
    """What one prompt or agent hook asks, before its files are read. A prompt hook has
    `model_ref`, an agent hook `agent`."""

    source: PromptSource
    root: Path
    hook_name: str
    payload: dict[str, Any]
    timeout: float
    model_ref: str | None = None
    agent: str | None = None

    def request(self, files: Path) -> HookModelRequest:
        """The request, its texts read from `files` (where the workspace's files are); raises
        `AgentError` or `PromptSourceError` when they cannot be read."""
        agent = load_agent(files, self.agent) if self.agent is not None else None
        text = read_source(self.source, files)
        if agent is None:
            return HookModelRequest(
                kind="prompt",
                prompt=compose(text, self.hook_name, self.payload),
                model=self.model_ref,
                agent=None,
                timeout=self.timeout,
            )
        return HookModelRequest(
            kind="agent",
            prompt=instruction(self.hook_name, self.payload),
            model=agent.model_ref,
            agent=agent.name,
            timeout=self.timeout,
            system=agent.prompt,
            task=text,
            options=agent.options,
        )


class PromptFilesTransport(BaseTransport):
    """Reads the files of the `PromptPlan` in `envelope.json` under a read lease, then sends
    the request they make through `inner` (the model transport) once the lease is released.
    Files that cannot be read are `Failure("unstarted")` with the error as `cause`."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner

    async def handle(self, envelope: Envelope) -> Reply:
        plan = envelope.json
        if not isinstance(plan, PromptPlan):
            return Failure("unstarted", f"expected a PromptPlan, got {type(plan).__name__}")
        try:
            async with workspace_files(envelope.files, plan.root) as files:
                request = plan.request(files)
        except (AgentError, PromptSourceError, LeaseError) as exc:
            return Failure("unstarted", str(exc), cause=exc)
        return await self.inner.handle(envelope._replace(json=request))

    async def aclose(self) -> None:
        await self.inner.aclose()


class PromptChannel:
    """Both handler kinds: a prompt hook has `model_ref`, an agent hook has `agent`."""

    __slots__ = ("agent", "hook_name", "kind", "model_ref", "root", "source", "timeout")

    def __init__(
        self,
        source: PromptSource,
        root: Path,
        timeout: float,
        *,
        hook_name: str,
        model_ref: str | None = None,
        agent: str | None = None,
    ) -> None:
        self.source = source
        self.root = root
        self.timeout = timeout
        self.hook_name = hook_name
        self.model_ref = model_ref
        self.agent = agent
        self.kind = "Agent" if agent is not None else "Prompt"

    def envelope(self, payload: dict[str, Any], services: Services) -> Envelope:
        plan = PromptPlan(
            self.source,
            self.root,
            self.hook_name,
            payload,
            self.timeout,
            model_ref=self.model_ref,
            agent=self.agent,
        )
        return Envelope(
            json=plan,
            timeout=self.timeout,
            model=services.evaluator,
            files=services.workspace_access,
        )

    def payload_of(self, sent: Envelope) -> dict[str, Any]:
        plan: PromptPlan = sent.json
        return plan.payload

    def read(self, reply: Reply) -> Reading:
        if isinstance(reply, Output):
            return Answer(reply.text, empty_ok=False)
        if isinstance(reply, Failure):
            if isinstance(reply.cause, AgentError):
                missing = reply.cause.code == "agent_not_found"
                fix = f"add .openharness/agents/{self.agent}.md or correct handler.agent"
                return Failed(reply.reason, code=reply.cause.code, fix=fix if missing else None)
            if isinstance(reply.cause, PromptSourceError | LeaseError):
                return Failed(f"{self.kind} hook: {reply.reason}")
            if reply.timed_out:
                message = f"{self.kind} hook timed out after {self.timeout:g}s"
                return Failed(message, timed_out=True, fix=timeout_fix(self.timeout))
        return Failed(f"{self.kind} hook failed: {reply.reason}")
