"""The types every model backend speaks: OpenAI-format messages in, a `ModelResponse` out.

Backends translate their provider's wire format and errors into these types so the agent loop
never sees an SDK object or exception.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, get_args

Message = dict[str, Any]
ToolDefinition = dict[str, Any]
TextCallback = Callable[[str], None]

#: A system message's key listing the paragraphs its content begins with that a tool hook's
#: dialect shows beside the call (Codex: a developer message between the call and its output),
#: as `[call id, text]` pairs. Chat completions keep the whole message after the tool results
#: and drop the key; the Responses API translation moves each paragraph next to its call.
BESIDE_CALL = "beside_call"

ErrorKind = Literal[
    "rate_limit",
    "overloaded",
    "authentication_failed",
    "billing_error",
    "invalid_request",
    "model_not_found",
    "server_error",
    "max_output_tokens",
    "unknown",
]
#: Claude Code's StopFailure `error` values, the vocabulary of :attr:`ModelError.kind`.
ERROR_KINDS: frozenset[str] = frozenset(get_args(ErrorKind))
TRANSIENT_KINDS: frozenset[str] = frozenset({"rate_limit", "overloaded", "server_error"})


@dataclass(slots=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any] | None
    """The parsed arguments; None when the model's arguments were not a JSON object."""
    raw_arguments: str
    """The exact string the model produced, kept so invalid JSON can be reported verbatim."""

    def to_message_part(self) -> dict[str, Any]:
        """This call as an entry of an OpenAI assistant message's `tool_calls`."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.raw_arguments},
        }


@dataclass(slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


@dataclass(slots=True)
class ModelResponse:
    content: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str = "stop"
    model: str = ""
    usage: Usage | None = None

    def to_message(self) -> Message:
        """The assistant message to append to the conversation history."""
        message: Message = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["content"] = self.content or None
            message["tool_calls"] = [call.to_message_part() for call in self.tool_calls]
        return message


class ModelError(Exception):
    """A failed model call, classified the way Claude Code reports StopFailure.

    `transient` errors (rate limits, overload, server and connection problems) are worth
    retrying; the others fail the same way on every attempt.
    """

    kind: ErrorKind
    transient: bool
    status: int | None
    retry_after: float | None

    def __init__(
        self,
        kind: ErrorKind,
        message: str | None = None,
        *,
        status: int | None = None,
        transient: bool | None = None,
        retry_after: float | None = None,
    ) -> None:
        if kind not in ERROR_KINDS:
            raise ValueError(f"unknown model error kind {kind!r}: use one of {sorted(ERROR_KINDS)}")
        super().__init__(message or kind)
        self.kind = kind
        self.transient = kind in TRANSIENT_KINDS if transient is None else transient
        self.status = status
        self.retry_after = retry_after

    @property
    def message(self) -> str:
        return str(self.args[0])


class ModelConfigError(ValueError):
    """A bad `--model` spec, missing credentials or a malformed scripted-model file."""


class Model(Protocol):
    name: str

    async def complete(
        self,
        messages: list[Message],
        tools: list[ToolDefinition] | None = None,
        *,
        options: dict[str, Any] | None = None,
        on_text: TextCallback | None = None,
        model: str | None = None,
    ) -> ModelResponse: ...


# Provider error codes that say more than the HTTP status (OpenAI's 429 `insufficient_quota` is
# a billing problem that no retry fixes; its 404 body says `model_not_found`).
_CODE_KINDS: dict[str, ErrorKind] = {
    "insufficient_quota": "billing_error",
    "billing_error": "billing_error",
    "billing_hard_limit_reached": "billing_error",
    "model_not_found": "model_not_found",
    "overloaded_error": "overloaded",
}
_STATUS_KINDS: dict[int, ErrorKind] = {
    400: "invalid_request",
    401: "authentication_failed",
    402: "billing_error",
    403: "authentication_failed",
    404: "model_not_found",
    408: "server_error",
    409: "server_error",
    413: "invalid_request",
    422: "invalid_request",
    429: "rate_limit",
    529: "overloaded",
}
# Error `type` values from response bodies, for errors that arrive without a useful status
# (an error event in the middle of a 200 stream).
_TYPE_KINDS: dict[str, ErrorKind] = {
    "rate_limit_error": "rate_limit",
    "rate_limit_exceeded": "rate_limit",
    "overloaded_error": "overloaded",
    "authentication_error": "authentication_failed",
    "permission_error": "authentication_failed",
    "not_found_error": "model_not_found",
    "invalid_request_error": "invalid_request",
    "request_too_large": "invalid_request",
    "api_error": "server_error",
    "server_error": "server_error",
    "timeout_error": "server_error",
}


def classify_error(
    status: int | None, error_type: str | None = None, code: str | None = None
) -> ErrorKind:
    """Map an HTTP status and a provider's error `type`/`code` to a StopFailure kind."""
    for key in (code, error_type):
        if key and key in _CODE_KINDS:
            return _CODE_KINDS[key]
    if status is not None:
        if status in _STATUS_KINDS:
            return _STATUS_KINDS[status]
        if status >= 500:
            return "server_error"
    if error_type and error_type in _TYPE_KINDS:
        return _TYPE_KINDS[error_type]
    return "unknown"


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a `Retry-After` header given in seconds; None for absent or HTTP dates."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


def parse_arguments(raw: str) -> dict[str, Any] | None:
    """Tool-call arguments as a dict, None unless `raw` is a JSON object.

    An empty string counts as `{}`: several OpenAI-compatible servers send nothing at all for a
    tool without parameters.
    """
    if not raw.strip():
        return {}
    try:
        parsed = json.loads(raw)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None
