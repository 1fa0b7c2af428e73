"""An MCP server's tool as one of the agent's tools, named and answered as in Claude Code.

Measured in Claude Code 2.1.240: the tool is `mcp__<server>__<tool>`; hooks' `tool_input` is
the model's arguments as they are; a result with `structuredContent` reaches the model and
PostToolUse `tool_response` as that object in compact JSON (a string); otherwise
`tool_response` is the list of content blocks and the model receives them as blocks.

The text of a result is cut to `output_limit` characters (Claude Code's `MAX_MCP_OUTPUT_TOKENS`,
default 25,000 tokens, at four characters a token), with a note saying so; a call that ends
without a result (no answer in time, the server gone) is an error naming the server and tool."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any

from mcp.types import CallToolResult, ContentBlock, TextContent
from mcp.types import Tool as McpToolInfo

from hookwright.runtime.mcp.client import Connection, McpCallError
from hookwright.runtime.mcp.stdio import OVERLONG_META
from hookwright.runtime.tools.base import ToolContext, ToolInputError, ToolOutput, failure

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
DEFAULT_OUTPUT_TOKENS = 25_000
CHARS_PER_TOKEN = 4


def output_limit() -> int:
    """Characters of an MCP tool's answer the model gets (see the module docstring)."""
    try:
        tokens = int(os.environ.get("MAX_MCP_OUTPUT_TOKENS", ""))
    except ValueError:
        tokens = DEFAULT_OUTPUT_TOKENS
    return (tokens if tokens > 0 else DEFAULT_OUTPUT_TOKENS) * CHARS_PER_TOKEN


def tool_name(server: str, tool: str) -> str:
    """Claude Code's name for a server's tool: characters outside `[A-Za-z0-9_-]` become `_`."""
    return f"mcp__{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', tool)}"


class McpTool:
    def __init__(self, connection: Connection, info: McpToolInfo) -> None:
        self._connection = connection
        self._info = info
        self.name = tool_name(connection.config.name, info.name)
        #: Claude Code's ``mcp_server`` of the tool's hook inputs.
        self.server = {"name": connection.config.name, "source": connection.config.scope}
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
        try:
            result = await self._connection.call(self._info.name, arguments)
        except McpCallError as exc:
            return failure(f"Error: {exc}")
        return tool_output(result)


def tool_output(result: CallToolResult) -> ToolOutput:
    limit, overlong = output_limit(), _overlong(result)
    if result.is_error:
        text = "\n".join(_texts(result.content))
        return failure(_cut(text, limit, overlong) or "Error: the MCP tool failed")
    if result.structured_content is not None:
        compact = json.dumps(result.structured_content, separators=(",", ":"))
        compact = _cut(compact, limit, overlong)
        return ToolOutput(content=compact, data=compact)
    blocks = _capped_blocks(result.content, limit, overlong)
    texts = _texts(blocks)
    dumped = [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in blocks]
    parts = tuple(texts) if len(texts) == len(blocks) else None
    return ToolOutput(content="\n".join(texts), data=dumped, parts=parts)


def _texts(blocks: list[ContentBlock]) -> list[str]:
    return [block.text for block in blocks if isinstance(block, TextContent)]


def _overlong(result: CallToolResult) -> int | None:
    """The message limit a result was cut at by the stdio transport, if it was."""
    limit = (result.meta or {}).get(OVERLONG_META)
    return limit if isinstance(limit, int) else None


def _note(total: int, limit: int, overlong: int | None) -> str | None:
    if overlong is not None:
        return (
            f"[hookwright: the MCP server's answer was over {overlong} bytes, the limit for one "
            f"message; only its first {min(total, limit)} characters are shown]"
        )
    if total > limit:
        return (
            f"[hookwright: the MCP tool's answer was {total} characters; only the first "
            f"{limit} are shown (MAX_MCP_OUTPUT_TOKENS)]"
        )
    return None


def _cut(text: str, limit: int, overlong: int | None) -> str:
    note = _note(len(text), limit, overlong)
    return text if note is None else f"{text[:limit]}\n\n{note}"


def _capped_blocks(
    content: list[ContentBlock], limit: int, overlong: int | None
) -> list[ContentBlock]:
    """The blocks with at most `limit` characters of text in all, and the note when cut."""
    room = limit
    kept: list[ContentBlock] = []
    for block in content:
        if isinstance(block, TextContent):
            if room <= 0:
                continue
            if len(block.text) > room:
                block = block.model_copy(update={"text": block.text[:room]})
            room -= len(block.text)
        kept.append(block)
    note = _note(sum(len(text) for text in _texts(content)), limit, overlong)
    if note is not None:
        kept.append(TextContent(type="text", text=note))
    return kept
