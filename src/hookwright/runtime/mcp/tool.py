"""An MCP server's tool as one of the agent's tools, named and answered as in Claude Code.

Measured in Claude Code 2.1.240: the tool is `mcp__<server>__<tool>`; hooks' `tool_input` is
the model's arguments as they are; a result with `structuredContent` reaches the model and
PostToolUse `tool_response` as that object in compact JSON (a string); otherwise
`tool_response` is the list of content blocks and the model receives them as blocks."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from mcp.types import CallToolResult, TextContent
from mcp.types import Tool as McpToolInfo

from hookwright.runtime.mcp.client import Connection
from hookwright.runtime.tools.base import ToolContext, ToolInputError, ToolOutput, failure

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def tool_name(server: str, tool: str) -> str:
    """Claude Code's name for a server's tool: characters outside `[A-Za-z0-9_-]` become `_`."""
    return f"mcp__{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', tool)}"


class McpTool:
    def __init__(self, connection: Connection, info: McpToolInfo) -> None:
        self._connection = connection
        self._info = info
        self.name = tool_name(connection.config.name, info.name)
        self.description = info.description or ""
        hint = info.annotations.read_only_hint if info.annotations else None
        self.read_only = bool(hint)

    def input_schema(self) -> dict[str, Any]:
        return dict(self._info.input_schema)

    def validate(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        if arguments is None:
            return {}
        if not isinstance(arguments, Mapping):
            raise ToolInputError(f"arguments must be a JSON object, got {type(arguments).__name__}")
        return dict(arguments)

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        result = await self._connection.call(self._info.name, arguments)
        return tool_output(result)


def tool_output(result: CallToolResult) -> ToolOutput:
    texts = [block.text for block in result.content if isinstance(block, TextContent)]
    text = "\n".join(texts)
    if result.is_error:
        return failure(text or "Error: the MCP tool failed")
    if result.structured_content is not None:
        compact = json.dumps(result.structured_content, separators=(",", ":"))
        return ToolOutput(content=compact, data=compact)
    blocks = [
        block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content
    ]
    parts = tuple(texts) if len(texts) == len(result.content) else None
    return ToolOutput(content=text, data=blocks, parts=parts)
