"""Google ADK's contents as hookwright reads and writes them: text, function responses
(``{"result": ...}`` / ``{"error": ...}``) and a model request in chat format, as model-call
hooks (PreContextBuild, PostContextBuild, PreModelCall, PostModelCall) read it."""

from __future__ import annotations

import json
from typing import Any

from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from hookwright.host import ModelRequest as ModelCall
from hookwright.host import ToolResult, reminder, tool_result_from_value


def text_of(content: types.Content | None) -> str | None:
    parts = content.parts if content is not None else None
    texts = [part.text for part in parts or () if part.text]
    return "".join(texts) if texts else None


def model_text(text: str) -> types.Content:
    return types.Content(role="model", parts=[types.Part.from_text(text=text)])


def note(texts: tuple[str, ...] | list[str]) -> types.Content:
    """Hook context as a user content of system reminders."""
    return types.Content(role="user", parts=[types.Part.from_text(text=reminder(texts))])


def response_of(result: ToolResult) -> dict[str, Any]:
    return {"error" if result.is_error else "result": result.content}


def result_of(response: dict[str, Any]) -> ToolResult:
    """ADK's function response as hooks see it: ``{"result": ...}`` or ``{"error": ...}``."""
    if set(response) == {"result"} or set(response) == {"error"}:
        value = response.get("result", response.get("error"))
        text = value if isinstance(value, str) else json.dumps(value, default=str)
        return ToolResult(text, "error" in response, response)
    return tool_result_from_value(response, default_error="error" in response)


def model_call_of(request: LlmRequest) -> ModelCall:
    """The request in chat format: the system instruction, then one message per content."""
    system = request.config.system_instruction if request.config else None
    text = (
        system
        if isinstance(system, str)
        else text_of(system)
        if isinstance(system, types.Content)
        else None
    )
    chat: list[dict[str, Any]] = [{"role": "system", "content": text}] if text else []
    for content in request.contents:
        chat += _chat(content)
    tools = [{"type": "function", "function": {"name": name}} for name in request.tools_dict]
    return ModelCall(request.model or "", chat, tools)


def answer_of(response: LlmResponse) -> dict[str, Any]:
    """The model's answer as a chat assistant message."""
    return _assistant(response.content.parts or [] if response.content else [])


def _chat(content: types.Content) -> list[dict[str, Any]]:
    parts = content.parts or []
    if content.role == "model":
        return [_assistant(parts)]
    text = "".join(part.text for part in parts if part.text)
    answers = [
        {
            "role": "tool",
            "tool_call_id": answer.id,
            "content": json.dumps(answer.response, default=str),
        }
        for part in parts
        if (answer := part.function_response) is not None
    ]
    return [*answers, *([{"role": "user", "content": text}] if text else [])]


def _assistant(parts: list[types.Part]) -> dict[str, Any]:
    text = "".join(part.text for part in parts if part.text)
    calls = [
        {
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.args or {})},
        }
        for part in parts
        if (call := part.function_call) is not None
    ]
    return {"role": "assistant", "content": text, **({"tool_calls": calls} if calls else {})}
