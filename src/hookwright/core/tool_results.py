"""Reading a hook-supplied tool result into the typed `ToolResult` a host applies.

A codec types the tool results its own hooks answer with (PicoClaw's `respond`). What no codec
typed (a Python hook's `respond(...)` value, a replaced output) is read here, once, by one
rule: a `ToolResult` is itself, a string is the content, a value a registered shape reader
recognises is what it reads, anything else is the structured result, shown to the model as
JSON. The data model names no dialect: a dialect whose tool-result shape Python hooks may
answer in registers a reader (`hookwright.host.open` registers PicoClaw's `{for_llm, ...}`).
"""

from __future__ import annotations

import json
from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    from hookwright.core.effect_parts import ToolResult

#: Reads a value in a dialect's own tool-result shape (the value, the default of `is_error`),
#: or None when the value is not one.
ToolResultReader: TypeAlias = "Callable[[Any, bool], ToolResult | None]"
_READERS: list[ToolResultReader] = []


def register_tool_result_reader(reader: ToolResultReader) -> None:
    """Let `tool_result_of` read a dialect's tool-result shape (registered once)."""
    if reader not in _READERS:
        _READERS.append(reader)


def tool_result_of(value: Any, *, default_error: bool = False) -> ToolResult:
    """`value` as a `ToolResult` (see the module docstring for the rule)."""
    from hookwright.core.effect_parts import ToolResult  # loaded by the first tool result

    if isinstance(value, ToolResult):
        return value
    if isinstance(value, str):
        return ToolResult(value, default_error)
    for reader in _READERS:
        typed = reader(value, default_error)
        if typed is not None:
            return typed
    return ToolResult(
        json.dumps(value, ensure_ascii=False, default=str),
        default_error,
        value if isinstance(value, dict) else {"result": value},
    )


def tool_result_json(result: ToolResult) -> dict[str, Any]:
    """A tool result as `hookwright hooks test` prints it: content and `is_error`, then the
    fields that are set."""
    data: dict[str, Any] = {"content": result.content, "is_error": result.is_error}
    if result.data is not None:
        data["data"] = result.data
    if result.response_handled:
        data["response_handled"] = True
    if result.media:
        data["media"] = list(result.media)
    if result.for_user is not None:
        data["for_user"] = result.for_user
    return data
