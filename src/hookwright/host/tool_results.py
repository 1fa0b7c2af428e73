"""Hook-supplied tool results no codec typed (a Python hook's `respond`, a replaced output),
read into the `ToolResult` a host applies. The host names no dialect: a dialect whose hooks
may answer in its own shape registers a reader (`host.open` does, for the built-in ones)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hookwright.core.effects import ToolResult

#: Reads a hook-supplied value in a dialect's own tool-result shape, or None when it is not
#: one; the dialects register theirs when a project is opened (`host.open`).
ToolResultReader = Callable[[Any, bool], ToolResult | None]
_TOOL_RESULT_READERS: list[ToolResultReader] = []


def register_tool_result_reader(reader: ToolResultReader) -> None:
    if reader not in _TOOL_RESULT_READERS:
        _TOOL_RESULT_READERS.append(reader)


def tool_result_from_value(value: Any, *, default_error: bool = False) -> ToolResult:
    """Read a hook-supplied tool result (`respond`, a replaced output) no codec typed: a
    `ToolResult` is itself, a string is the content, a value a registered dialect reader
    recognises is what it reads, anything else is the structured result, shown to the model
    as JSON."""
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, str):
        return ToolResult(value, default_error)
    for reader in _TOOL_RESULT_READERS:
        typed = reader(value, default_error)
        if typed is not None:
            return typed
    return ToolResult(
        json.dumps(value, ensure_ascii=False, default=str),
        default_error,
        value if isinstance(value, dict) else {"result": value},
    )
