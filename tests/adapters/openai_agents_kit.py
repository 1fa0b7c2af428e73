"""OpenAI Agents' side of its adapter tests (imported only when they run): the SDK's scripted
model, the scenario's driver, and an agent for the single cases."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents import Agent, RunConfig, function_tool
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call

from hookwright.adapters.openai_agents import HookedRun as HookedRun
from hookwright.adapters.openai_agents import OpenAIAgentsHooks
from hookwright.host import FrameworkSession

from .scenario import EXHAUSTED, Reply, Seen, Tools

QUIET = RunConfig(tracing_disabled=True)


def step(reply: Reply) -> ModelStep:
    output: list[Any] = [assistant_message(reply.text)] if reply.text else []
    output += [function_call(c.name, c.args, call_id=c.id) for c in reply.calls]
    return ModelStep(output=output)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


def seen(call_input: Any, instructions: str | None) -> list[Seen]:
    """The recorded model input as neutral messages."""
    messages = [Seen("system", instructions)] if instructions else []
    if isinstance(call_input, str):
        return [*messages, Seen("user", call_input)]
    for item in call_input:
        data = item if isinstance(item, dict) else item.model_dump()
        if data.get("type") == "function_call_output":
            messages.append(Seen("tool", _text(data["output"]), data["call_id"]))
        elif "role" in data:
            messages.append(Seen(data["role"], _text(data.get("content", ""))))
    return messages


class OpenAIAgentsSession:
    def __init__(self, project: Path, tools: Tools, options: dict[str, Any]) -> None:
        self.loop = asyncio.new_event_loop()
        self.adapter = self.loop.run_until_complete(OpenAIAgentsHooks.open(project, **options))
        self.hooks: FrameworkSession = self.adapter.session
        self.tools = [function_tool(tools.shell), function_tool(tools.lookup)]

    def turn(self, prompt: str, replies: Sequence[Reply]) -> list[list[Seen]]:
        model = ScriptedModel([*map(step, replies), *[step(Reply(EXHAUSTED))] * 3])
        agent = Agent(name="scenario", instructions="Test hooks.", model=model, tools=self.tools)
        self.loop.run_until_complete(self.adapter.run(agent, prompt, run_config=QUIET))
        return [seen(c.input, c.system_instructions) for c in model.calls]

    def close(self) -> None:
        try:
            self.loop.run_until_complete(self.adapter.aclose())
        finally:
            self.loop.close()


class OpenAIAgentsDriver:
    framework = "openai-agents"
    flags_errors = False

    def open(self, project: Path, tools: Tools, options: dict[str, Any]) -> OpenAIAgentsSession:
        return OpenAIAgentsSession(project, tools, options)


def scenario_agent(model: ScriptedModel, tools: Tools) -> Agent[Any]:
    return Agent(name="case", model=model, tools=[function_tool(tools.shell)])
