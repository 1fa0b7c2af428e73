"""pydantic-ai's model requests in chat format, as model-call hooks (PreContextBuild,
PostContextBuild, PreModelCall, PostModelCall) read them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestContext

from hookwright.host import ModelRequest as ModelCall


def model_call_of(request_context: ModelRequestContext) -> ModelCall:
    """The model request as model-call hooks read it: chat messages and function tools."""
    params = request_context.model_request_parameters
    instructions = "\n\n".join(part.content for part in params.instruction_parts or ())
    chat = [{"role": "system", "content": instructions}] if instructions else []
    for message in request_context.messages:
        chat += (
            [assistant_message(message)]
            if isinstance(message, ModelResponse)
            else _requested(message)
        )
    tools = [
        {"type": "function", "function": {"name": t.name, "parameters": t.parameters_json_schema}}
        for t in params.function_tools
    ]
    return ModelCall(request_context.model.model_name, chat, tools)


def _requested(message: ModelRequest) -> list[dict[str, Any]]:
    chat: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, SystemPromptPart | UserPromptPart):
            text = part.content if isinstance(part.content, str) else prompt_text(part.content)
            chat.append(
                {
                    "role": "system" if isinstance(part, SystemPromptPart) else "user",
                    "content": text,
                }
            )
        elif isinstance(part, ToolReturnPart):
            content = part.model_response_str()
            chat.append({"role": "tool", "tool_call_id": part.tool_call_id, "content": content})
    return chat


def assistant_message(response: ModelResponse) -> dict[str, Any]:
    """The model's answer as a chat assistant message."""
    text = "".join(part.content for part in response.parts if isinstance(part, TextPart))
    calls = [
        {
            "id": p.tool_call_id,
            "type": "function",
            "function": {"name": p.tool_name, "arguments": p.args_as_json_str()},
        }
        for p in response.parts
        if isinstance(p, ToolCallPart)
    ]
    return {"role": "assistant", "content": text, **({"tool_calls": calls} if calls else {})}


def prompt_text(prompt: str | Sequence[Any]) -> str:
    """A user prompt's text parts."""
    if isinstance(prompt, str):
        return prompt
    return "\n".join(part for part in prompt if isinstance(part, str))
