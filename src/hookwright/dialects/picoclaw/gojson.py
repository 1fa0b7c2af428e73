"""PicoClaw's Go structs as JSON: decoding a hook's answer the way Go's `encoding/json` fills a
struct, and encoding a value the way it marshals one.

Decoding (`decode_struct`): each key of the object is matched to a field by its JSON name,
exactly or else case-insensitively (Go's folding: ASCII letters, and each other letter to the
smallest of its case variants); keys that match no field are ignored; a JSON `null` leaves the
field at its zero value; a value of the wrong JSON type is an error (`GoDecodeError`: Go's
`UnmarshalTypeError`, which fails the whole call). Every field of the result is set: absent
ones hold their zero value ("" / False / 0 / None for pointers, slices, maps and `any`).

Encoding (`encode_struct`): fields in declaration order, `omitempty` fields left out when
empty, non-`omitempty` nil slices and maps as `null`, unknown keys dropped.

The structs are PicoClaw's (`pkg/agent/hooks.go`, `pkg/providers/protocoltypes/types.go`,
`pkg/tools/shared/result.go`); only the fields hookwright reads or writes have a nested type,
the rest are `any`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

#: "text" is a string that also lets hookwright's non-string message content pass unchanged.
Scalar = Literal["str", "text", "bool", "int", "map", "any"]


class GoDecodeError(ValueError):
    """A JSON value of the wrong type for its field (Go's `UnmarshalTypeError`)."""


@dataclass(frozen=True, slots=True)
class ListOf:
    item: Kind


@dataclass(frozen=True, slots=True)
class Ptr:
    """A pointer to a struct: absent or null is None."""

    struct: Struct


@dataclass(frozen=True, slots=True)
class Val:
    """A struct held by value: absent or null is the zero struct."""

    struct: Struct


Kind = Scalar | ListOf | Ptr | Val


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    kind: Kind
    omitempty: bool = False


@dataclass(frozen=True, slots=True)
class Struct:
    name: str
    fields: tuple[Field, ...]

    def field(self, key: str) -> Field | None:
        """The field a JSON key sets: an exact name, else a case-insensitive one."""
        for item in self.fields:
            if item.name == key:
                return item
        folded = fold_name(key)
        for item in self.fields:
            if fold_name(item.name) == folded:
                return item
        return None


def fold_name(name: str) -> str:
    """Go's `foldName`: ASCII letters upper-cased, other letters to their smallest variant."""
    out = []
    for char in name:
        if char.isascii():
            out.append(char.upper())
            continue
        variants = {char, char.lower(), char.upper(), char.lower().upper(), char.upper().lower()}
        out.append(min(v for v in variants if len(v) == 1))
    return "".join(out)


def _zero(kind: Kind) -> Any:
    return (
        {"str": "", "text": "", "bool": False, "int": 0}.get(kind)
        if isinstance(kind, str)
        else None
    )


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _decode(value: Any, kind: Kind, where: str) -> Any:
    if value is None:
        return decode_struct({}, kind.struct) if isinstance(kind, Val) else _zero(kind)
    expected: type | tuple[type, ...]
    if isinstance(kind, Ptr | Val):
        return decode_struct(value, kind.struct, where)
    if isinstance(kind, ListOf):
        if not isinstance(value, list):
            raise GoDecodeError(f"{where}: cannot decode {_type_name(value)} into a list")
        return [_decode(item, kind.item, f"{where}[{i}]") for i, item in enumerate(value)]
    if kind == "any" or kind == "text":
        return value
    expected = {"str": str, "bool": bool, "int": int, "map": dict}[kind]
    if not isinstance(value, expected) or (kind == "int" and isinstance(value, bool)):
        raise GoDecodeError(f"{where}: cannot decode {_type_name(value)} into {kind}")
    return value


def decode_struct(value: Any, struct: Struct, where: str = "result") -> dict[str, Any]:
    """`value` decoded into `struct` (see the module docstring); raises GoDecodeError."""
    if not isinstance(value, Mapping):
        raise GoDecodeError(f"{where}: cannot decode {_type_name(value)} into {struct.name}")
    out = {item.name: _zero(item.kind) for item in struct.fields}
    for key, item_value in value.items():
        item = struct.field(key)
        if item is None:
            continue
        decoded = _decode(item_value, item.kind, f"{where}.{item.name}")
        # Go leaves a field unchanged for a null, except a pointer, slice, map or `any`,
        # which it sets to nil.
        if item_value is not None or not isinstance(item.kind, str) or item.kind == "any":
            out[item.name] = decoded
    return out


def _empty(value: Any) -> bool:
    return value is None or value is False or value == 0 or value == "" or value in ([], {})


def _encode(value: Any, kind: Kind) -> Any:
    if isinstance(kind, Val):
        return encode_struct(value if isinstance(value, Mapping) else {}, kind.struct)
    if value is None:
        return _zero(kind)
    if isinstance(kind, Ptr):
        return encode_struct(value, kind.struct) if isinstance(value, Mapping) else None
    if isinstance(kind, ListOf):
        return [_encode(item, kind.item) for item in value] if isinstance(value, list) else None
    return value


def encode_struct(value: Mapping[str, Any], struct: Struct) -> dict[str, Any]:
    """`value` as Go marshals `struct` (see the module docstring)."""
    out: dict[str, Any] = {}
    for item in struct.fields:
        encoded = _encode(value.get(item.name), item.kind)
        if item.omitempty and _empty(encoded):
            continue
        out[item.name] = encoded
    return out


def _f(name: str, kind: Kind = "str", omitempty: bool = False) -> Field:
    return Field(name, kind, omitempty)


FUNCTION_CALL = Struct(
    "FunctionCall", (_f("name"), _f("arguments"), _f("thought_signature", omitempty=True))
)
TOOL_CALL = Struct(
    "ToolCall",
    (
        _f("id"),
        _f("type", omitempty=True),
        _f("function", Ptr(FUNCTION_CALL), True),
        _f("extra_content", "any", True),
    ),
)
MESSAGE = Struct(
    "Message",
    (
        _f("role"),
        _f("content", "text"),
        _f("model_name", omitempty=True),
        _f("created_at", "any", True),
        _f("media", ListOf("str"), True),
        _f("attachments", ListOf("any"), True),
        _f("reasoning_content", omitempty=True),
        _f("system_parts", ListOf("any"), True),
        _f("tool_calls", ListOf(Val(TOOL_CALL)), True),
        _f("tool_call_id", omitempty=True),
    ),
)
TOOL_FUNCTION = Struct(
    "ToolFunctionDefinition", (_f("name"), _f("description"), _f("parameters", "map"))
)
TOOL_DEFINITION = Struct("ToolDefinition", (_f("type"), _f("function", Val(TOOL_FUNCTION))))
USAGE = Struct(
    "UsageInfo",
    (_f("prompt_tokens", "int"), _f("completion_tokens", "int"), _f("total_tokens", "int")),
)
LLM_RESPONSE = Struct(
    "LLMResponse",
    (
        _f("content"),
        _f("reasoning_content", omitempty=True),
        _f("tool_calls", ListOf(Val(TOOL_CALL)), True),
        _f("finish_reason"),
        _f("usage", Ptr(USAGE), True),
        _f("reasoning"),
        _f("reasoning_details", ListOf("any")),
    ),
)
TOOL_RESULT = Struct(
    "ToolResult",
    (
        _f("for_llm"),
        _f("for_user", omitempty=True),
        _f("silent", "bool"),
        _f("is_error", "bool"),
        _f("async", "bool"),
        _f("media", ListOf("str"), True),
        _f("artifact_tags", ListOf("str"), True),
        _f("response_handled", "bool", True),
    ),
)
LLM_HOOK_REQUEST = Struct(
    "LLMHookRequest",
    (
        _f("meta", "any"),
        _f("context", "any", True),
        _f("model"),
        _f("messages", ListOf(Val(MESSAGE)), True),
        _f("tools", ListOf(Val(TOOL_DEFINITION)), True),
        _f("options", "map", True),
        _f("graceful_terminal", "bool", True),
    ),
)
LLM_HOOK_RESPONSE = Struct(
    "LLMHookResponse",
    (_f("meta", "any"), _f("context", "any", True), _f("model"), _f("response", Ptr(LLM_RESPONSE))),
)
TOOL_CALL_REQUEST = Struct(
    "ToolCallHookRequest",
    (
        _f("meta", "any"),
        _f("context", "any", True),
        _f("tool"),
        _f("arguments", "map", True),
        _f("channel", omitempty=True),
        _f("chat_id", omitempty=True),
        _f("hook_result", Ptr(TOOL_RESULT), True),
    ),
)
TOOL_RESULT_RESPONSE = Struct(
    "ToolResultHookResponse",
    (
        _f("meta", "any"),
        _f("context", "any", True),
        _f("tool"),
        _f("arguments", "map", True),
        _f("result", Ptr(TOOL_RESULT), True),
        _f("duration", "int"),
    ),
)
_DECISION = (_f("action"), _f("reason", omitempty=True))
#: The result struct a hook's answer to `hook.<method>` decodes into.
RESULTS: dict[str, Struct] = {
    "before_llm": Struct("BeforeLLMResponse", (*_DECISION, _f("request", Ptr(LLM_HOOK_REQUEST)))),
    "after_llm": Struct("AfterLLMResponse", (*_DECISION, _f("response", Ptr(LLM_HOOK_RESPONSE)))),
    "before_tool": Struct(
        "BeforeToolResponse",
        (*_DECISION, _f("call", Ptr(TOOL_CALL_REQUEST)), _f("result", Ptr(TOOL_RESULT))),
    ),
    "after_tool": Struct(
        "AfterToolResponse", (*_DECISION, _f("result", Ptr(TOOL_RESULT_RESPONSE)))
    ),
    "approve_tool": Struct("ApprovalDecision", (_f("approved", "bool"), _f("reason"))),
}
