"""A model that replays a script of turns: deterministic agent runs for tests and demos.

A script file (JSON or YAML) is either a list of turns or `{"model": NAME, "turns": [...]}`::

    - content: "Let me look."
      tool_calls:
        - {name: Read, arguments: {path: README.md}}
    - match: "hookwright"          # regex the conversation since the last reply must contain
      content: "Done."
    - error: rate_limit            # this call raises ModelError("rate_limit")

Each `complete` call consumes the next turn; once the script runs out the model answers
"(end of script)" without tool calls, so a runaway agent loop ends instead of crashing.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from hookwright.config.safeparse import ParseError, load_json_text, load_yaml_text, read_text
from hookwright.core.validation import did_you_mean, field_path
from hookwright.runtime.models.base import (
    ErrorKind,
    Message,
    ModelConfigError,
    ModelError,
    ModelResponse,
    TextCallback,
    ToolCall,
    ToolDefinition,
    parse_arguments,
)

END_OF_SCRIPT = "(end of script)"
_STREAM_CHUNKS = 3


class _ScriptToolCall(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    arguments: Any = Field(default_factory=dict)
    id: str | None = Field(default=None, min_length=1)

    @field_validator("arguments")
    @classmethod
    def _object_or_string(cls, value: Any) -> dict[str, Any] | str:
        if isinstance(value, dict | str):
            return value
        raise ValueError(
            "must be an object, or a string to send verbatim as the model's raw arguments"
        )


class _ScriptTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    content: str = ""
    tool_calls: list[_ScriptToolCall] = Field(default_factory=list)
    error: ErrorKind | None = None
    match: str | None = None
    finish_reason: str | None = Field(default=None, min_length=1)

    @field_validator("match")
    @classmethod
    def _valid_regex(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"invalid regular expression: {exc}") from exc
        return value

    @model_validator(mode="after")
    def _error_stands_alone(self) -> _ScriptTurn:
        if self.error is not None and (self.content or self.tool_calls):
            raise ValueError("a turn with 'error' cannot also have 'content' or 'tool_calls'")
        return self


class _Script(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str = Field(default="scripted", min_length=1)
    turns: list[_ScriptTurn]


@dataclass(slots=True)
class ScriptedCall:
    """What one `complete` call received (copies, taken when the call was made) and which turn
    answered it. The calls share the copy of a message that was the same in each (the same
    object, equal to its copy): a long scripted run keeps one copy of its history, not one per
    call."""

    messages: list[Message]
    tools: list[ToolDefinition] | None
    options: dict[str, Any] | None
    turn_index: int | None
    """Index into the script's turns; None once the script was exhausted."""
    model: str = ""
    """The model name the call asked for (a hook may have rewritten it)."""


class ScriptedModel:
    def __init__(
        self, turns: Sequence[_ScriptTurn], *, name: str = "scripted", source: str = "<script>"
    ) -> None:
        self.name = name
        self.source = source
        self.calls: list[ScriptedCall] = []
        #: id of each message of the last call -> (that message, its copy).
        self._copies: dict[int, tuple[Message, Message]] = {}
        self._turns = list(turns)
        self._next = 0
        reserved = {call.id for turn in self._turns for call in turn.tool_calls if call.id}
        self._ids: Iterator[str] = (
            f"call_{n}" for n in itertools.count(1) if f"call_{n}" not in reserved
        )

    @classmethod
    def from_turns(
        cls, turns: Sequence[dict[str, Any]], *, name: str = "scripted"
    ) -> ScriptedModel:
        """Build from turn dicts in the file format, validated the same way."""
        script = _validate({"model": name, "turns": list(turns)}, "<turns>")
        return cls(script.turns, name=script.model, source="<turns>")

    @classmethod
    def from_file(cls, path: Path | str) -> ScriptedModel:
        path = Path(path)
        data = _load(path)
        if isinstance(data, list):
            data = {"turns": data}
        elif not isinstance(data, dict):
            raise ModelConfigError(
                f"{path}: expected a list of turns or a mapping with 'turns', "
                f"got {type(data).__name__}"
            )
        script = _validate(data, str(path))
        return cls(script.turns, name=script.model, source=str(path))

    @property
    def remaining(self) -> int:
        """Turns not yet consumed."""
        return len(self._turns) - self._next

    async def complete(
        self,
        messages: list[Message],
        tools: list[ToolDefinition] | None = None,
        *,
        options: dict[str, Any] | None = None,
        on_text: TextCallback | None = None,
        model: str | None = None,
    ) -> ModelResponse:
        index = self._next if self._next < len(self._turns) else None
        self.calls.append(
            ScriptedCall(
                messages=self._snapshot(messages),
                tools=copy.deepcopy(tools),
                options=copy.deepcopy(options),
                turn_index=index,
                model=model or self.name,
            )
        )
        if index is None:
            return self._reply(END_OF_SCRIPT, [], "stop", on_text)
        self._next += 1
        turn = self._turns[index]
        if turn.match is not None:
            self._check_match(index, turn.match, messages)
        if turn.error is not None:
            raise ModelError(
                turn.error, f"{self.source}: turns[{index}]: scripted {turn.error} error"
            )
        calls = [self._tool_call(call) for call in turn.tool_calls]
        finish = turn.finish_reason or ("tool_calls" if calls else "stop")
        return self._reply(turn.content, calls, finish, on_text)

    def _snapshot(self, messages: list[Message]) -> list[Message]:
        """A copy of `messages` that reuses the last call's copy of each message passed again
        unchanged (the same object, still equal to its copy)."""
        copies: dict[int, tuple[Message, Message]] = {}
        taken: list[Message] = []
        for message in messages:
            known = self._copies.get(id(message))
            if known is not None and known[0] is message and known[1] == message:
                kept = known[1]
            else:
                kept = copy.deepcopy(message)
            copies[id(message)] = (message, kept)
            taken.append(kept)
        self._copies = copies
        return taken

    def _reply(
        self, content: str, calls: list[ToolCall], finish: str, on_text: TextCallback | None
    ) -> ModelResponse:
        if on_text is not None:
            for chunk in _chunks(content, _STREAM_CHUNKS):
                on_text(chunk)
        return ModelResponse(
            content=content, tool_calls=calls, finish_reason=finish, model=self.name
        )

    def _tool_call(self, call: _ScriptToolCall) -> ToolCall:
        if isinstance(call.arguments, str):
            raw = call.arguments
            arguments = parse_arguments(raw)
        else:
            arguments = copy.deepcopy(call.arguments)
            raw = json.dumps(arguments)
        return ToolCall(
            id=call.id or next(self._ids), name=call.name, arguments=arguments, raw_arguments=raw
        )

    def _check_match(self, index: int, pattern: str, messages: list[Message]) -> None:
        """Fail loudly when the conversation drifted from what the script expects."""
        text = _text_since_last_reply(messages)
        if re.search(pattern, text) is None:
            raise ModelConfigError(
                f"{self.source}: turns[{index}].match: {pattern!r} not found in the messages "
                f"since the last assistant reply: {text[:500]!r}"
            )


def _load(path: Path) -> Any:
    if not path.exists():
        raise ModelConfigError(f"{path}: scripted model file not found")
    try:
        text = read_text(path)
        data = load_json_text(text) if path.suffix.lower() == ".json" else load_yaml_text(text)
    except ParseError as exc:
        raise ModelConfigError(f"{path}: {exc.reason}") from None
    if data is None:
        raise ModelConfigError(f"{path}: scripted model file is empty")
    return data


def _validate(data: dict[str, Any], source: str) -> _Script:
    try:
        return _Script.model_validate(data)
    except ValidationError as exc:
        lines = [
            f"{source}: {field_path(err['loc']) or '(top level)'}: {_problem(err)}"
            for err in exc.errors()
        ]
        raise ModelConfigError("\n".join(lines)) from None


#: What each place of a script takes, named in the message for a key it does not take (a
#: tool call's `input` or a turn's `text` would otherwise be only "extra inputs").
_PLACES: dict[str, type[BaseModel]] = {
    "tool_calls": _ScriptToolCall,
    "turns": _ScriptTurn,
    "": _Script,
}


def _problem(error: Any) -> str:
    """An error's message; an unknown key says which keys its place takes."""
    if error["type"] != "extra_forbidden" or not error["loc"]:
        return _describe(error["msg"])
    names = [part for part in error["loc"][:-1] if isinstance(part, str)]
    place = _PLACES[names[-1] if names else ""]
    key = str(error["loc"][-1])
    fields = ", ".join(place.model_fields)
    return f"unknown field {key!r}{did_you_mean(key, place.model_fields)}; it takes: {fields}"


def _describe(message: str) -> str:
    message = message.removeprefix("Value error, ")
    return message[:1].lower() + message[1:]


def _text_since_last_reply(messages: list[Message]) -> str:
    tail: list[Message] = []
    for message in reversed(messages):
        if message.get("role") == "assistant":
            break
        tail.append(message)
    return "\n".join(_content_text(m.get("content")) for m in reversed(tail))


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _chunks(text: str, count: int) -> Iterator[str]:
    size = max(1, math.ceil(len(text) / count))
    for start in range(0, len(text), size):
        yield text[start : start + size]
