"""OpenAI chat completions, and every server that imitates them (Ollama, vLLM, llama.cpp).

Calls always stream: text deltas reach `on_text` as they arrive and tool-call deltas are
reassembled by their `index`, since a call's id, name and arguments may come in pieces and
parallel calls may interleave.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import openai
from openai import AsyncOpenAI, AsyncStream
from openai.types.chat import ChatCompletionChunk

from hookwright.runtime.models.base import (
    BESIDE_CALL,
    Message,
    ModelConfigError,
    ModelError,
    ModelResponse,
    TextCallback,
    ToolCall,
    ToolDefinition,
    Usage,
    classify_error,
    parse_arguments,
    parse_retry_after,
)

#: Sent when OPENAI_BASE_URL points at a local server that needs no key; the SDK insists on one.
PLACEHOLDER_API_KEY = "sk-no-key-required"
_RESERVED_OPTIONS = frozenset({"model", "messages", "tools", "stream", "stream_options"})


@dataclass(slots=True)
class _PendingCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class OpenAIModel:
    #: The `--model` backend naming this client, in its messages.
    backend = "openai"

    def __init__(
        self,
        name: str,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout: float = 600.0,
        stream_usage: bool = True,
    ) -> None:
        """`stream_usage=False` leaves out `stream_options` for servers that reject it."""
        self.name = name
        self.base_url = base_url
        self.timeout = timeout
        self.stream_usage = stream_usage
        self._api_key = api_key

    @classmethod
    def from_env(cls, name: str, environ: Mapping[str, str] | None = None) -> OpenAIModel:
        env = os.environ if environ is None else environ
        base_url = env.get("OPENAI_BASE_URL") or None
        api_key = env.get("OPENAI_API_KEY") or None
        if api_key is None and base_url is None:
            raise ModelConfigError(
                f"{cls.backend}:{name} needs OPENAI_API_KEY, or OPENAI_BASE_URL for a local "
                "OpenAI-compatible server (Ollama, vLLM, llama.cpp); neither is set"
            )
        return cls(name, api_key=api_key or PLACEHOLDER_API_KEY, base_url=base_url)

    def _client(self) -> AsyncOpenAI:
        """A client per call: its connection pool belongs to the running event loop, and the
        agent may run several loops (asyncio.run per session) over one model object."""
        return AsyncOpenAI(
            api_key=self._api_key, base_url=self.base_url, max_retries=0, timeout=self.timeout
        )

    async def complete(
        self,
        messages: list[Message],
        tools: list[ToolDefinition] | None = None,
        *,
        options: dict[str, Any] | None = None,
        on_text: TextCallback | None = None,
        model: str | None = None,
    ) -> ModelResponse:
        body = extra_body(options)
        client = self._client()
        try:
            async with client:
                stream = await client.chat.completions.create(
                    model=model or self.name,
                    messages=cast(Any, _wire_messages(messages)),
                    tools=cast(Any, tools) if tools else openai.omit,
                    stream=True,
                    stream_options={"include_usage": True} if self.stream_usage else openai.omit,
                    extra_body=body or None,
                )
                async with stream:
                    return await self._collect(stream, on_text)
        except openai.APIError as exc:
            raise self._model_error(exc) from exc

    async def _collect(
        self, stream: AsyncStream[ChatCompletionChunk], on_text: TextCallback | None
    ) -> ModelResponse:
        text: list[str] = []
        pending: dict[int, _PendingCall] = {}
        finish_reason: str | None = None
        usage: Usage | None = None
        model = self.name
        async for chunk in stream:
            model = chunk.model or model
            if chunk.usage is not None:
                usage = Usage(
                    prompt_tokens=chunk.usage.prompt_tokens or 0,
                    completion_tokens=chunk.usage.completion_tokens or 0,
                    total_tokens=chunk.usage.total_tokens or 0,
                )
            for choice in chunk.choices:
                if choice.index != 0:
                    continue
                delta = choice.delta
                if delta.content:
                    text.append(delta.content)
                    if on_text is not None:
                        on_text(delta.content)
                for part in delta.tool_calls or ():
                    call = pending.setdefault(part.index, _PendingCall())
                    call.id = call.id or part.id or ""
                    if part.function is not None:
                        call.name += part.function.name or ""
                        if part.function.arguments:
                            call.arguments.append(part.function.arguments)
                finish_reason = choice.finish_reason or finish_reason
        tool_calls = [_finish_call(pending[index]) for index in sorted(pending)]
        if tool_calls and finish_reason in (None, "stop"):
            # Ollama and some vLLM versions report "stop" even when the reply is tool calls.
            finish_reason = "tool_calls"
        return ModelResponse(
            content="".join(text),
            tool_calls=tool_calls,
            finish_reason=finish_reason or "stop",
            model=model,
            usage=usage,
        )

    def _model_error(self, exc: openai.APIError) -> ModelError:
        where = self.base_url or "the OpenAI API"
        if isinstance(exc, openai.APIConnectionError):
            return ModelError(
                "server_error", f"{self.backend}:{self.name}: cannot reach {where}: {exc.message}"
            )
        status = exc.status_code if isinstance(exc, openai.APIStatusError) else None
        error_type, code = _error_fields(exc.body)
        kind = classify_error(status, error_type, code)
        retry_after = None
        if isinstance(exc, openai.APIStatusError):
            retry_after = parse_retry_after(exc.response.headers.get("retry-after"))
        message = f"{self.backend}:{self.name}: {exc.message}"
        if kind == "model_not_found":
            message += f" (check the model name and the base URL {where})"
        return ModelError(kind, message, status=status, retry_after=retry_after)


_LOCAL_KEYS = frozenset({"is_error", BESIDE_CALL})


def _wire_messages(messages: list[Message]) -> list[Message]:
    """The history as the chat API takes it: a tool result's `is_error` mark (read by the
    Anthropic translation) and a context's `BESIDE_CALL` (read by the Responses translation)
    are not chat fields."""
    return [
        {k: v for k, v in message.items() if k not in _LOCAL_KEYS}
        if _LOCAL_KEYS.intersection(message)
        else message
        for message in messages
    ]


def extra_body(
    options: dict[str, Any] | None, reserved: frozenset[str] = _RESERVED_OPTIONS
) -> dict[str, Any]:
    """Options go into the request body as given, except the fields this layer owns."""
    if not options:
        return {}
    clash = sorted(reserved & options.keys())
    if clash:
        raise ModelConfigError(
            f"options: {', '.join(clash)} cannot be overridden: the model sets them"
        )
    return dict(options)


def _finish_call(call: _PendingCall) -> ToolCall:
    raw = "".join(call.arguments)
    return ToolCall(
        id=call.id or f"call_{uuid.uuid4().hex[:24]}",
        name=call.name,
        arguments=parse_arguments(raw),
        raw_arguments=raw,
    )


def _error_fields(body: object) -> tuple[str | None, str | None]:
    """The `type` and `code` of an OpenAI-style error body, which may or may not be wrapped."""
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body = body["error"]
    if not isinstance(body, dict):
        return None, None
    error_type, code = body.get("type"), body.get("code")
    return (
        str(error_type) if error_type is not None else None,
        str(code) if code is not None else None,
    )
