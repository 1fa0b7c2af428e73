"""openai-agents model calls as model-call hooks (PreContextBuild, PostContextBuild,
PreModelCall, PostModelCall) read them: the model input in chat format, and `RunHooks` that
report every model answer (the caller's own hooks keep running)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

from agents import Agent, ModelResponse, RunContextWrapper, RunHooks, TResponseInputItem

from hookwright.host import ModelRequest as ModelCall

Answered = Callable[[ModelResponse], Awaitable[None]]


def model_call_of(
    agent: Agent[Any], items: Sequence[TResponseInputItem], instructions: str | None
) -> ModelCall:
    """The model input in chat format; the agent's function tools by name."""
    chat: list[dict[str, Any]] = (
        [{"role": "system", "content": instructions}] if instructions else []
    )
    for item in items:
        _add(chat, cast(dict[str, Any], item) if isinstance(item, dict) else item.model_dump())
    tools = [{"type": "function", "function": {"name": tool.name}} for tool in agent.tools]
    model = agent.model if isinstance(agent.model, str) else type(agent.model).__name__
    return ModelCall(model or "", chat, tools)


def answer_of(response: ModelResponse) -> dict[str, Any]:
    """The model's output as one chat assistant message."""
    chat: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    for item in response.output:
        _add(chat, item.model_dump())
    return chat[-1]


def _add(chat: list[dict[str, Any]], item: dict[str, Any]) -> None:
    kind, role = item.get("type"), item.get("role")
    if kind == "function_call":
        call = {"name": item.get("name"), "arguments": item.get("arguments") or "{}"}
        assistant = _assistant(chat)
        assistant.setdefault("tool_calls", []).append(
            {"id": item.get("call_id"), "type": "function", "function": call}
        )
    elif kind == "function_call_output":
        output = item.get("output")
        text = output if isinstance(output, str) else json.dumps(output, default=str)
        chat.append({"role": "tool", "tool_call_id": item.get("call_id"), "content": text})
    elif role == "assistant":
        _assistant(chat)["content"] += _text(item.get("content"))
    elif role is not None:
        chat.append(
            {
                "role": "system" if role == "developer" else role,
                "content": _text(item.get("content")),
            }
        )


def _assistant(chat: list[dict[str, Any]]) -> dict[str, Any]:
    if not chat or chat[-1]["role"] != "assistant":
        chat.append({"role": "assistant", "content": ""})
    return chat[-1]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(str(part.get("text", "")) for part in content or () if isinstance(part, dict))


class ModelAnswerHooks(RunHooks[Any]):
    """The caller's `RunHooks` (if any), with `answered` called after every model call."""

    def __init__(self, answered: Answered, theirs: RunHooks[Any] | None) -> None:
        self._answered = answered
        self._theirs = theirs or RunHooks()

    async def on_llm_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], response: ModelResponse
    ) -> None:
        await self._answered(response)
        await self._theirs.on_llm_end(context, agent, response)

    async def on_llm_start(self, *args: Any, **kwargs: Any) -> None:
        await self._theirs.on_llm_start(*args, **kwargs)

    async def on_agent_start(self, *args: Any, **kwargs: Any) -> None:
        await self._theirs.on_agent_start(*args, **kwargs)

    async def on_agent_end(self, *args: Any, **kwargs: Any) -> None:
        await self._theirs.on_agent_end(*args, **kwargs)

    async def on_handoff(self, *args: Any, **kwargs: Any) -> None:
        await self._theirs.on_handoff(*args, **kwargs)

    async def on_tool_start(self, *args: Any, **kwargs: Any) -> None:
        await self._theirs.on_tool_start(*args, **kwargs)

    async def on_tool_end(self, *args: Any, **kwargs: Any) -> None:
        await self._theirs.on_tool_end(*args, **kwargs)
