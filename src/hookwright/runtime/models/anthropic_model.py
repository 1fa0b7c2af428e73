"""Anthropic Messages API behind the OpenAI-format interface the agent speaks.

The agent keeps its history in OpenAI chat format; :func:`to_anthropic` translates it on every
call (the leading system messages into `system`, later ones into `system` messages, tool calls
into `tool_use` blocks, tool results into user `tool_result` blocks) and the streamed reply is
translated back into a `ModelResponse`.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import anthropic
import httpx
from anthropic import AsyncAnthropic, AsyncStream
from anthropic.types import RawMessageStreamEvent

from hookwright.runtime.models.base import (
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

DEFAULT_MAX_TOKENS = 4096
#: Sent when ANTHROPIC_BASE_URL points at a proxy that needs no key; the SDK insists on one.
PLACEHOLDER_API_KEY = "sk-ant-no-key-required"
_RESERVED_OPTIONS = frozenset({"model", "messages", "system", "tools", "stream"})
_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}
Block = dict[str, Any]


@dataclass(slots=True)
class AnthropicRequest:
    """The parts of a Messages API request that come from an OpenAI-format conversation."""

    system: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]


def to_anthropic(messages: list[Message], tools: list[ToolDefinition] | None) -> AnthropicRequest:
    """Translate an OpenAI-format conversation as Claude Code builds its requests.

    The leading system messages become `system`; a later system message (hook context after
    the prompt or the tool results) stays a `system` message in `messages`, consecutive ones
    joined by a blank line. Messages of one role in a row are merged, which keeps the
    user/assistant alternation the API requires: the tool results of parallel calls form one
    user message, and consecutive user texts become blocks of one message, each but the last
    ending in a newline.
    """
    system: list[str] = []
    out: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "system":
            text = _text(message.get("content"), index)
            if not out:
                system += [text] if text else []
            elif text:
                _add_system(out, text)
            continue
        if role == "user":
            blocks = _text_blocks(message.get("content"), index)
        elif role == "assistant":
            blocks = _text_blocks(message.get("content"), index)
            blocks += [_tool_use(call, index) for call in message.get("tool_calls") or ()]
        elif role == "tool":
            blocks = [_tool_result(message, index)]
            role = "user"
        else:
            raise ModelError("invalid_request", f"messages[{index}].role: unsupported {role!r}")
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            _join(out[-1]["content"], blocks)
        else:
            out.append({"role": role, "content": blocks})
    return AnthropicRequest(
        system="\n\n".join(system), messages=out, tools=[_tool(t) for t in tools or ()]
    )


def _add_system(out: list[dict[str, Any]], text: str) -> None:
    if out[-1]["role"] == "system":
        out[-1]["content"] += "\n\n" + text
    else:
        out.append({"role": "system", "content": text})


def _join(content: list[Block], blocks: list[Block]) -> None:
    """Append `blocks` to a message's `content`; two texts meet across a newline."""
    last = content[-1]
    if last.get("type") == "text" and blocks[0].get("type") == "text":
        content[-1] = {**last, "text": last["text"] + "\n"}
    content.extend(blocks)


def _text(content: Any, index: int) -> str:
    return "\n".join(block["text"] for block in _text_blocks(content, index))


def _text_blocks(content: Any, index: int) -> list[Block]:
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        blocks: list[Block] = []
        for part_index, part in enumerate(content):
            if not (isinstance(part, dict) and part.get("type") == "text"):
                kind = part.get("type") if isinstance(part, dict) else type(part).__name__
                raise ModelError(
                    "invalid_request",
                    f"messages[{index}].content[{part_index}]: unsupported part type {kind!r}",
                )
            if part.get("text"):
                blocks.append({"type": "text", "text": str(part["text"])})
        return blocks
    raise ModelError(
        "invalid_request",
        f"messages[{index}].content: expected a string or a list of parts, "
        f"got {type(content).__name__}",
    )


def _tool_use(call: Any, index: int) -> Block:
    try:
        function = call["function"]
        raw = function.get("arguments") or ""
        block: Block = {"type": "tool_use", "id": call["id"], "name": function["name"]}
    except (KeyError, TypeError, AttributeError):
        raise ModelError(
            "invalid_request",
            f"messages[{index}].tool_calls: each needs 'id' and 'function' with 'name'",
        ) from None
    arguments = parse_arguments(raw) if isinstance(raw, str) else None
    # The API only takes an object; invalid arguments the model once produced travel verbatim.
    block["input"] = arguments if arguments is not None else {"_invalid_arguments": raw}
    return block


def _tool_result(message: Message, index: int) -> Block:
    tool_call_id = message.get("tool_call_id")
    if not tool_call_id:
        raise ModelError("invalid_request", f"messages[{index}].tool_call_id: missing")
    content = message.get("content")
    block: Block = {
        "type": "tool_result",
        "tool_use_id": tool_call_id,
        # A list of text parts (an MCP result's blocks) stays a list of blocks, as in Claude Code.
        "content": _text_blocks(content, index)
        if isinstance(content, list)
        else _text(content, index),
    }
    if message.get("is_error") is True:
        block["is_error"] = True
    return block


def _tool(tool: ToolDefinition) -> dict[str, Any]:
    function = tool.get("function", tool)
    return {
        "name": function["name"],
        "description": function.get("description", ""),
        "input_schema": function.get("parameters") or {"type": "object", "properties": {}},
    }


@dataclass(slots=True)
class _Block:
    kind: str
    id: str = ""
    name: str = ""
    text: list[str] = field(default_factory=list)
    initial_input: Any = None


class AnthropicModel:
    def __init__(
        self,
        name: str,
        *,
        api_key: str | None = None,
        auth_token: str | None = None,
        base_url: str | None = None,
        timeout: float = 600.0,
    ) -> None:
        if api_key is None and auth_token is None:
            raise ModelConfigError(f"anthropic:{name}: pass api_key or auth_token")
        self.name = name
        self.base_url = base_url
        self.timeout = timeout
        self._api_key = api_key
        self._auth_token = auth_token

    @classmethod
    def from_env(cls, name: str, environ: Mapping[str, str] | None = None) -> AnthropicModel:
        """Credentials from ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN, as Claude Code reads)."""
        env = os.environ if environ is None else environ
        base_url = env.get("ANTHROPIC_BASE_URL") or None
        api_key = env.get("ANTHROPIC_API_KEY") or None
        auth_token = env.get("ANTHROPIC_AUTH_TOKEN") or None
        if api_key is None and auth_token is None:
            if base_url is None:
                raise ModelConfigError(
                    f"anthropic:{name} needs ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or "
                    "ANTHROPIC_BASE_URL for a proxy that needs no key; none is set"
                )
            api_key = PLACEHOLDER_API_KEY
        return cls(name, api_key=api_key, auth_token=auth_token, base_url=base_url)

    async def complete(
        self,
        messages: list[Message],
        tools: list[ToolDefinition] | None = None,
        *,
        options: dict[str, Any] | None = None,
        on_text: TextCallback | None = None,
        model: str | None = None,
    ) -> ModelResponse:
        extra_body = dict(options or {})
        clash = sorted(_RESERVED_OPTIONS & extra_body.keys())
        if clash:
            raise ModelConfigError(
                f"options: {', '.join(clash)} cannot be overridden: the model sets them"
            )
        max_tokens = int(extra_body.pop("max_tokens", DEFAULT_MAX_TOKENS))
        request = to_anthropic(messages, tools)
        # Explicit credentials keep the SDK from consulting profiles or other environment
        # variables; a client per call because its pool belongs to the running event loop.
        client = AsyncAnthropic(
            api_key=self._api_key,
            auth_token=self._auth_token if self._api_key is None else None,
            base_url=self.base_url,
            max_retries=0,
            timeout=self.timeout,
        )
        try:
            async with client:
                stream = await client.messages.create(
                    model=model or self.name,
                    max_tokens=max_tokens,
                    messages=cast(Any, request.messages),
                    system=request.system or anthropic.omit,
                    tools=cast(Any, request.tools) if request.tools else anthropic.omit,
                    stream=True,
                    extra_body=extra_body or None,
                )
                async with stream:
                    return await self._collect(stream, on_text)
        except anthropic.APIConnectionError as exc:
            raise self._unreachable(exc.message) from exc
        except anthropic.APIStatusError as exc:
            raise self._model_error(exc) from exc
        except _transport_errors() as exc:
            raise self._unreachable(f"connection broke during the reply: {exc!r}") from exc

    async def _collect(
        self, stream: AsyncStream[RawMessageStreamEvent], on_text: TextCallback | None
    ) -> ModelResponse:
        blocks: dict[int, _Block] = {}
        stop_reason: str | None = None
        model = self.name
        prompt_tokens = completion_tokens = 0
        saw_usage = False
        async for event in stream:
            if event.type == "message_start":
                model = event.message.model or model
                usage = event.message.usage
                prompt_tokens = (
                    usage.input_tokens
                    + (usage.cache_creation_input_tokens or 0)
                    + (usage.cache_read_input_tokens or 0)
                )
                completion_tokens = usage.output_tokens
                saw_usage = True
            elif event.type == "content_block_start":
                start = event.content_block
                if start.type == "tool_use":
                    blocks[event.index] = _Block(
                        "tool_use", id=start.id, name=start.name, initial_input=start.input
                    )
                elif start.type == "text":
                    blocks[event.index] = _Block("text")
                    if start.text:
                        self._text(blocks[event.index], start.text, on_text)
            elif event.type == "content_block_delta":
                block = blocks.get(event.index)
                delta = event.delta
                if block is None:
                    continue
                if delta.type == "text_delta":
                    self._text(block, delta.text, on_text)
                elif delta.type == "input_json_delta":
                    block.text.append(delta.partial_json)
            elif event.type == "message_delta":
                stop_reason = event.delta.stop_reason or stop_reason
                completion_tokens = event.usage.output_tokens
                if event.usage.input_tokens is not None:
                    prompt_tokens = event.usage.input_tokens
                saw_usage = True
        ordered = [blocks[index] for index in sorted(blocks)]
        tool_calls = [_tool_call(b) for b in ordered if b.kind == "tool_use"]
        finish = _STOP_REASONS.get(stop_reason or "", stop_reason)
        if finish is None:
            finish = "tool_calls" if tool_calls else "stop"
        return ModelResponse(
            content="".join("".join(b.text) for b in ordered if b.kind == "text"),
            tool_calls=tool_calls,
            finish_reason=finish,
            model=model,
            usage=Usage(prompt_tokens, completion_tokens, prompt_tokens + completion_tokens)
            if saw_usage
            else None,
        )

    @staticmethod
    def _text(block: _Block, text: str, on_text: TextCallback | None) -> None:
        block.text.append(text)
        if on_text is not None:
            on_text(text)

    def _unreachable(self, detail: str) -> ModelError:
        where = self.base_url or "the Anthropic API"
        return ModelError("server_error", f"anthropic:{self.name}: cannot reach {where}: {detail}")

    def _model_error(self, exc: anthropic.APIStatusError) -> ModelError:
        body = exc.body
        error = body.get("error") if isinstance(body, dict) else None
        error_type = error.get("type") if isinstance(error, dict) else None
        message = error.get("message") if isinstance(error, dict) else None
        # An error event inside a 200 stream carries only the body's type.
        status = exc.status_code if exc.status_code >= 400 else None
        kind = classify_error(status, str(error_type) if error_type else None)
        text = f"anthropic:{self.name}: {message or exc.message}"
        if kind == "model_not_found":
            text += f" (check the model name and the base URL {self.base_url or 'default'})"
        return ModelError(
            kind,
            text,
            status=status,
            retry_after=parse_retry_after(exc.response.headers.get("retry-after")),
        )


def _tool_call(block: _Block) -> ToolCall:
    raw = "".join(block.text)
    if not raw and block.initial_input is not None:
        raw = json.dumps(block.initial_input)
    return ToolCall(id=block.id, name=block.name, arguments=parse_arguments(raw), raw_arguments=raw)


def _transport_errors() -> tuple[type[BaseException], ...]:
    """Errors of the HTTP library under the SDK, which it lets escape from a broken stream.

    Recent SDKs use `httpx2`, older ones `httpx`; both are caught whichever is installed.
    """
    errors: list[type[BaseException]] = [httpx.TransportError]
    with contextlib.suppress(ImportError):
        errors.append(importlib.import_module("httpx2").TransportError)
    return tuple(errors)
