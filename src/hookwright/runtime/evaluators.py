"""Models for hooks that are themselves model calls: Claude Code `prompt` and `agent` hooks and
OpenHarness `prompt` and `agent` handlers all run through the session's model here."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hookwright.engine import HookEngine
from hookwright.runtime.models import Model, make_model
from hookwright.runtime.tools import GlobTool, GrepTool, ReadTool, ToolRegistry

HOOK_AGENT_MAX_TURNS = 50
HOOK_AGENT_PROMPT = (
    "You verify a condition for an agent's lifecycle hook. Use the read-only tools to check the "
    'workspace, then answer with JSON only: {"ok": true} or {"ok": false, "reason": '
    '"..."}.'
)


@dataclass(slots=True)
class HookModels:
    model: Model
    project_dir: Path
    home: Path

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

    async def agent(self, prompt: str, model: str | None, timeout: float) -> str:
        """A real read-only sub-agent (Read, Glob, Grep; at most 50 rounds); its final answer
        is the hook's reply. Hooks do not fire inside it."""
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
            system_prompt=HOOK_AGENT_PROMPT,
        )
        session = f"hook-agent-{uuid.uuid4().hex[:12]}"
        path = self.home / ".hookwright" / "hook-agents" / f"{session}.jsonl"
        agent = Agent(engine, self._model_for(model), tools, config, transcript_file=path)
        try:
            result = await asyncio.wait_for(agent.run(prompt), timeout)
        finally:
            agent.transcript.close()
            engine.close()
        return result.final_text

    async def openharness(
        self, prompt: str, model_ref: str | None, agent_name: str | None, timeout: float
    ) -> str:
        if agent_name:
            return await self.agent(prompt, model_ref, timeout)
        return await self.prompt(prompt, model_ref, timeout)


def install(models: HookModels) -> Callable[[], None]:
    """Point every dialect's prompt/agent seam at `models`; returns an undo function."""
    from hookwright.dialects import claude_code, openharness

    claude_code.set_prompt_evaluator(models.prompt)
    claude_code.set_agent_evaluator(models.agent)
    openharness.set_evaluator(models.openharness)

    def undo() -> None:
        claude_code.set_prompt_evaluator(None)
        claude_code.set_agent_evaluator(None)
        openharness.set_evaluator(None)

    return undo
