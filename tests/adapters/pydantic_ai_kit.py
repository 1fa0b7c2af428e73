"""pydantic-ai's side of its adapter tests (imported only when they run): a scripted
`FunctionModel` function, the scenario's driver, and agents for the single cases."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic_ai import Agent, Tool
from pydantic_ai.messages import (
    ERROR_OUTCOMES,
    ModelMessage,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import DeferredToolRequests, ToolDenied
from pydantic_ai.tools import DeferredToolResults as DeferredToolResults

from hookwright.adapters.pydantic_ai import PydanticAIHooks
from hookwright.host import FrameworkSession

from .scenario import EXHAUSTED, Reply, Seen, Tools

INSTRUCTIONS = "Test hooks."


class ScriptedFunction:
    """The function of a `FunctionModel`: answers with the replies in order (then EXHAUSTED)
    and records the messages of every call."""

    def __init__(self, replies: Sequence[Reply]) -> None:
        self.replies = list(replies)
        self.received: list[list[ModelMessage]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.received.append(list(messages))
        reply = self.replies.pop(0) if self.replies else Reply(EXHAUSTED)
        parts: list[Any] = [TextPart(reply.text)] if reply.text else []
        parts += [ToolCallPart(c.name, c.args, tool_call_id=c.id) for c in reply.calls]
        return ModelResponse(parts=parts)


def seen(messages: list[ModelMessage]) -> list[Seen]:
    out = [Seen("system", INSTRUCTIONS)]
    for message in messages:
        for part in message.parts:
            out += _seen(part)
    return out


def _seen(part: Any) -> list[Seen]:
    match part:
        case SystemPromptPart(content=text):
            return [Seen("system", text)]
        case UserPromptPart(content=str() as text):
            return [Seen("user", text)]
        case ToolReturnPart():
            text = part.model_response_str(wrap_if_error=False)
            return [Seen("tool", text, part.tool_call_id, part.outcome in ERROR_OUTCOMES)]
        case TextPart(content=text):
            return [Seen("assistant", text)]
    return []


def tools_of(tools: Tools) -> list[Tool[Any]]:
    return [Tool(tools.shell), Tool(tools.lookup)]


class PydanticAISession:
    def __init__(self, project: Path, tools: Tools, options: dict[str, Any]) -> None:
        self.adapter = PydanticAIHooks.open(project, **options)
        self.hooks: FrameworkSession = self.adapter.session
        self.tools = tools_of(tools)
        self.history: list[ModelMessage] = []

    def turn(self, prompt: str, replies: Sequence[Reply]) -> list[list[Seen]]:
        script = ScriptedFunction(replies)
        agent = Agent(
            FunctionModel(script),
            instructions=INSTRUCTIONS,
            tools=self.tools,
            capabilities=[self.adapter],
        )
        result = agent.run_sync(prompt, message_history=self.history)
        self.history = result.all_messages()
        return [seen(call) for call in script.received]

    def close(self) -> None:
        self.adapter.close()


class PydanticAIDriver:
    framework = "pydantic-ai"
    flags_errors = True

    def open(self, project: Path, tools: Tools, options: dict[str, Any]) -> PydanticAISession:
        return PydanticAISession(project, tools, options)


def approving_agent(hooks: PydanticAIHooks, script: ScriptedFunction, tools: Tools) -> Any:
    return Agent(
        FunctionModel(script),
        tools=[Tool(tools.shell)],
        capabilities=[hooks],
        output_type=[str, DeferredToolRequests],
    )


def gated_agent(hooks: PydanticAIHooks, script: ScriptedFunction, tools: Tools) -> Any:
    """An agent whose shell tool pydantic-ai defers for approval (`requires_approval`)."""
    return Agent(
        FunctionModel(script),
        tools=[Tool(tools.shell, requires_approval=True)],
        capabilities=[hooks],
        output_type=[str, DeferredToolRequests],
    )


def approval(answer: bool | str) -> bool | ToolDenied:
    """A person's answer to a deferred call: `True` approves, a text denies with that message."""
    return answer if isinstance(answer, bool) else ToolDenied(answer)
