"""OpenAI's Responses API, streamed, as Codex CLI speaks it (`--model openai-responses:NAME`).

The history stays OpenAI chat messages; `responses_wire` turns it into input items (the first
system message as `instructions`, later ones as developer messages, a tool hook's context
beside its call when its dialect puts it there). The stream's text deltas reach `on_text` as
they arrive; calls are taken whole from `response.output_item.done`.
"""

from __future__ import annotations

from typing import Any, cast

import openai

from hookwright.runtime.models.base import (
    Message,
    ModelError,
    ModelResponse,
    TextCallback,
    ToolCall,
    ToolDefinition,
    Usage,
    classify_error,
    parse_arguments,
)
from hookwright.runtime.models.openai_model import OpenAIModel, extra_body
from hookwright.runtime.models.responses_wire import input_items, tools_of

_RESERVED = frozenset({"model", "input", "instructions", "tools", "stream"})


class OpenAIResponsesModel(OpenAIModel):
    backend = "openai-responses"

    async def complete(
        self,
        messages: list[Message],
        tools: list[ToolDefinition] | None = None,
        *,
        options: dict[str, Any] | None = None,
        on_text: TextCallback | None = None,
        model: str | None = None,
    ) -> ModelResponse:
        body = extra_body(options, _RESERVED)
        instructions, items = input_items(messages)
        client = self._client()
        try:
            async with client:
                stream = await client.responses.create(
                    model=model or self.name,
                    input=cast(Any, items),
                    instructions=instructions if instructions is not None else openai.omit,
                    tools=cast(Any, tools_of(tools)) if tools else openai.omit,
                    stream=True,
                    extra_body=body or None,
                )
                async with stream:
                    collected = _Collected(model or self.name)
                    async for event in stream:
                        collected.take(event, on_text)
                    return collected.response(self)
        except openai.APIError as exc:
            raise self._model_error(exc) from exc


class _Collected:
    """What the stream said so far."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.text: list[str] = []
        self.message_text: list[str] = []
        self.calls: list[ToolCall] = []
        self.usage: Usage | None = None
        self.finish_reason = "stop"
        #: The failed stream's error code and message.
        self.error: tuple[str | None, str] | None = None

    def take(self, event: Any, on_text: TextCallback | None) -> None:
        kind = getattr(event, "type", "")
        if kind == "response.output_text.delta" and event.delta:
            self.text.append(event.delta)
            if on_text is not None:
                on_text(event.delta)
        elif kind == "response.output_item.done":
            self._item(event.item)
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            self._finished(kind, event.response)
        elif kind == "error":
            self.error = (getattr(event, "code", None), str(event.message))

    def _item(self, item: Any) -> None:
        kind = getattr(item, "type", "")
        if kind == "function_call":
            raw = str(item.arguments or "")
            call = ToolCall(str(item.call_id), str(item.name), parse_arguments(raw), raw)
            self.calls.append(call)
        elif kind == "message":
            for part in getattr(item, "content", None) or ():
                if getattr(part, "type", "") == "output_text":
                    self.message_text.append(str(part.text))

    def _finished(self, kind: str, response: Any) -> None:
        self.model = getattr(response, "model", None) or self.model
        usage = getattr(response, "usage", None)
        if usage is not None:
            self.usage = Usage(
                prompt_tokens=usage.input_tokens or 0,
                completion_tokens=usage.output_tokens or 0,
                total_tokens=usage.total_tokens or 0,
            )
        if kind == "response.incomplete":
            details = getattr(response, "incomplete_details", None)
            reason = getattr(details, "reason", None)
            self.finish_reason = "length" if reason == "max_output_tokens" else str(reason)
        elif kind == "response.failed":
            error = getattr(response, "error", None)
            code = getattr(error, "code", None)
            self.error = (code, str(getattr(error, "message", None) or "response failed"))

    def response(self, owner: OpenAIResponsesModel) -> ModelResponse:
        if self.error is not None:
            code, message = self.error
            kind = classify_error(None, code, code)
            raise ModelError(
                kind if kind != "unknown" else "server_error",
                f"{owner.backend}:{owner.name}: {message}",
            )
        finish = "tool_calls" if self.calls and self.finish_reason == "stop" else self.finish_reason
        return ModelResponse(
            content="".join(self.text) or "".join(self.message_text),
            tool_calls=self.calls,
            finish_reason=finish,
            model=self.model,
            usage=self.usage,
        )
