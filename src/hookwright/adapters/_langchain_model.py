"""A LangChain model call between the model-call hooks (PreContextBuild, PostContextBuild,
PreModelCall before it, PostModelCall after it), which read the request in chat format."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain.agents.middleware.types import ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, convert_to_openai_messages
from langchain_core.utils.function_calling import convert_to_openai_tool

from hookwright.host import FrameworkSession, ended_text, reminder
from hookwright.host import ModelRequest as ModelCall

Handler = Callable[[ModelRequest[Any]], ModelResponse[Any]]
AsyncHandler = Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]]
ModelCallResult = ModelResponse[Any] | AIMessage


def call_model(
    session: FrameworkSession, request: ModelRequest[Any], handler: Handler
) -> ModelCallResult:
    """The model-call hooks' context goes into this call only; once a hook ended the turn
    the model is not called and the end's reason is the answer."""
    call = model_call_of(request)
    notes = session.model_call(call)
    if session.ending is not None:
        return AIMessage(ended_text(session.ending))
    response = handler(with_notes(request, notes))
    session.model_answered(call, answer_of(response))
    return response


async def acall_model(
    session: FrameworkSession, request: ModelRequest[Any], handler: AsyncHandler
) -> ModelCallResult:
    call = model_call_of(request)
    notes = await session.amodel_call(call)
    if session.ending is not None:
        return AIMessage(ended_text(session.ending))
    response = await handler(with_notes(request, notes))
    await session.amodel_answered(call, answer_of(response))
    return response


def model_call_of(request: ModelRequest[Any]) -> ModelCall:
    """The request as model-call hooks read it: chat messages (system message first) and the
    tools as OpenAI function tools."""
    system: list[BaseMessage] = [request.system_message] if request.system_message else []
    chat = convert_to_openai_messages([*system, *request.messages])
    tools = [convert_to_openai_tool(tool) for tool in request.tools]
    model = request.model
    name = getattr(model, "model_name", None) or getattr(model, "model", None)
    return ModelCall(str(name or type(model).__name__), chat, tools)


def with_notes(request: ModelRequest[Any], notes: Sequence[str]) -> ModelRequest[Any]:
    """`request` with model-call hook context for this call only."""
    if not notes:
        return request
    return request.override(messages=[*request.messages, HumanMessage(reminder(notes))])


def answer_of(response: ModelResponse[Any] | AIMessage) -> dict[str, Any]:
    """The model's answer as a chat assistant message."""
    messages = [response] if isinstance(response, AIMessage) else response.result
    answer = next((m for m in reversed(messages) if isinstance(m, AIMessage)), AIMessage(""))
    converted = convert_to_openai_messages(answer)
    return converted if isinstance(converted, dict) else {"role": "assistant", "content": ""}
