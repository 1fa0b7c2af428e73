"""Models for hooks that are themselves model calls: Claude Code `prompt` and `agent` hooks and
OpenHarness `prompt` and `agent` handlers all run through the session's model here. A
`HookModels` is the session's `Services.evaluator`."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from pathlib import Path

from hookwright.engine.hook_requests import HookModelRequest
from hookwright.engine.kernel import HookEngine
from hookwright.runtime.models import Model, make_model
from hookwright.runtime.tools import GlobTool, GrepTool, ReadTool, ToolRegistry

HOOK_AGENT_MAX_TURNS = 50
HOOK_AGENT_PROMPT = (
    "You verify a condition for an agent's lifecycle hook. Use the read-only tools to check the "
    'workspace, then answer with JSON only: {"ok": true} or {"ok": false, "reason": '
    '"..."}.'
)


@dataclass(frozen=True, slots=True)
class HookModels:
    model: Model
    project_dir: Path
    home: Path

    async def __call__(self, request: HookModelRequest) -> str:
        """Agent hooks (Claude Code's, and OpenHarness's, which name an agent) get a read-only
        sub-agent; prompt hooks one model call."""
        if request.kind == "agent":
            return await self.agent(request)
        return await self.prompt(request.prompt, request.model, request.timeout)

    def _model_for(self, name: str | None) -> Model:
        """A hook may name its own model: `provider:name` specs are honoured, bare names
        (`haiku`, `platform/openai-default`) mean the session's model."""
        if name and ":" in name:
            return make_model(name, base_dir=self.project_dir)
        return self.model

    async def prompt(self, prompt: str, model: str | None, timeout: float) -> str:
        response = await asyncio.wait_for(
            self._model_for(model).complete([{"role": "user", "content": prompt}], None), timeout
        )
        return response.content

    async def agent(self, request: HookModelRequest) -> str:
        """A real read-only sub-agent (Read, Glob, Grep; at most 50 rounds); its final answer
        is the hook's reply. Hooks do not fire inside it. An OpenHarness agent hook's agent
        brings its system prompt, its task (the first user message) and sampling options;
        Claude Code's agent hooks get the `{"ok": ...}` verifier prompt."""
        from hookwright.runtime.agent import Agent, AgentConfig

        tools = ToolRegistry()
        for tool in (ReadTool(), GlobTool(), GrepTool()):
            tools.register(tool)
        engine = HookEngine(audit_path=None)
        config = AgentConfig(
            project_dir=self.project_dir,
            home=self.home,
            permission_mode="plan",
            max_turns=HOOK_AGENT_MAX_TURNS,
            system_prompt=request.system or HOOK_AGENT_PROMPT,
            model_options=dict(request.options),
        )
        history = [{"role": "system", "content": config.system_prompt}]
        if request.task is not None:
            history.append({"role": "user", "content": request.task})
        session = f"hook-agent-{uuid.uuid4().hex[:12]}"
        path = self.home / ".hookwright" / "hook-agents" / f"{session}.jsonl"
        agent = Agent(
            engine,
            self._model_for(request.model),
            tools,
            config,
            messages=history,
            transcript_file=path,
        )
        try:
            result = await asyncio.wait_for(agent.run(request.prompt), request.timeout)
        finally:
            agent.transcript.close()
            engine.close()
        return result.final_text
