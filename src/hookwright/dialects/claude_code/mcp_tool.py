"""`mcp_tool` hooks (spec §1.3, §4.4): call a tool of a connected MCP server and read its text
answer the way a command hook's stdout is read (JSON output fields, or plain text).

The hook's `input` is sent with every ``${path.into.hook_input}`` in its string values (at any
depth) replaced by the value at that dotted path of the hook's input JSON: a string as it is,
anything else as compact JSON, a missing path as the empty string. A server that is not
connected, a call that fails and a result the server marks as an error are non-blocking
errors naming the hook; a call past the timeout is cancelled and decides nothing. The call
travels through the MCP transport (`transports/mcp.py`) on the session's MCP client.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hookwright.core.events import HookInput
from hookwright.core.results import HookResult, Status
from hookwright.core.run_context import RunContext
from hookwright.dialects.base import Handler
from hookwright.dialects.claude_code.codec import decode_command, parse_json_object
from hookwright.dialects.claude_code.config import McpToolHook
from hookwright.dialects.claude_code.limits import cap_result, output_dir
from hookwright.dialects.claude_code.notes import attach_notes
from hookwright.dialects.claude_code.on_failure import (
    MCP_CALL_FAILED,
    MCP_INVALID,
    MCP_TOOL_ERROR,
    HookFailure,
    fail_closed,
    mcp_failure,
)
from hookwright.dialects.claude_code.stdin import encode_input
from hookwright.engine.services import services_of
from hookwright.transports.base import Block, Envelope, Failure, Reply
from hookwright.transports.mcp import McpTransport

_PLACEHOLDER = re.compile(r"\$\{([^{}]*)\}")
_MISSING = object()


def hook_label(config: McpToolHook) -> str:
    """How the hook is named in messages: ``<server>/<tool>``."""
    return f"{config.server}/{config.tool}"


def _lookup(data: Any, path: str) -> Any:
    value = data
    for part in path.strip().split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def _text(value: Any) -> str:
    if value is _MISSING or value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def substitute(value: Any, hook_input: Mapping[str, Any]) -> Any:
    """`value` with every ``${path}`` in its strings replaced from `hook_input`."""
    if isinstance(value, str):
        return _PLACEHOLDER.sub(lambda m: _text(_lookup(hook_input, m.group(1))), value)
    if isinstance(value, Mapping):
        return {key: substitute(item, hook_input) for key, item in value.items()}
    if isinstance(value, list):
        return [substitute(item, hook_input) for item in value]
    return value


class McpToolCodec:
    """The codec of one `mcp_tool` hook, run as `Handler(McpTransport(), McpToolCodec(...))`;
    with `blocks` a failed call, or an answer that is no hook answer, blocks (`on_failure`)."""

    def __init__(
        self, config: McpToolHook, *, home: Path, timeout: float, blocks: bool = False
    ) -> None:
        self.config = config
        self.home = home
        self.timeout = timeout
        self.blocks = blocks

    def encode(self, inp: HookInput, ctx: RunContext) -> Envelope:
        config = self.config
        return Envelope(
            json=substitute(config.input, encode_input(inp)),
            url=config.server,
            method=config.tool,
            timeout=ctx.timeout if ctx.timeout is not None else self.timeout,
            mcp=services_of(ctx).mcp,
        )

    def decode(
        self, reply: Reply, sent: Envelope, inp: HookInput, ctx: RunContext
    ) -> HookResult | None:
        if isinstance(reply, Failure):
            if reply.timed_out:
                failed = self._failed(reply.reason, Status.timeout)
                return self._block(inp, failed, HookFailure(timed_out=True))
            why = reply.reason if reply.kind == "unstarted" else f"the call failed: {reply.reason}"
            return self._block(inp, self._failed(why), HookFailure(detail=MCP_CALL_FAILED))
        if isinstance(reply, Block) or reply.code != 0:
            text = reply.reason if isinstance(reply, Block) else reply.text
            first = text.strip().splitlines()[0] if text.strip() else "no text"
            failed = self._failed(f"the tool returned an error: {first}")
            return self._block(inp, failed, HookFailure(detail=MCP_TOOL_ERROR))
        label = hook_label(self.config)
        result = decode_command(inp, exit_code=0, stdout=reply.text, stderr="", label=label)
        if self.blocks:
            failure = mcp_failure(inp.event, reply.text)
            if failure is None and result.status is Status.error:
                failure = HookFailure(detail=MCP_INVALID)
            if failure is not None:
                result = fail_closed(inp, result, failure, label=label, mcp=True)
        capped = cap_result(result, output_dir(self.home))
        plain = parse_json_object(reply.text) is None
        return attach_notes(inp, capped, command=label, plain=plain)

    def _block(self, inp: HookInput, result: HookResult, failure: HookFailure) -> HookResult:
        """A failed call's `result`, blocked when the hook `blocks`."""
        if not self.blocks:
            return result
        label = hook_label(self.config)
        blocked = fail_closed(inp, result, failure, label=label, mcp=True)
        return attach_notes(inp, blocked, command=label, plain=False)

    def _failed(self, why: str, status: Status = Status.error) -> HookResult:
        return HookResult(status=status, error=f"mcp_tool hook {hook_label(self.config)}: {why}")

    async def aclose(self) -> None:
        return None


def mcp_tool_handler(
    config: McpToolHook, *, home: Path, timeout: float, blocks: bool = False
) -> Handler:
    """One mcp_tool hook as an engine handler: the MCP transport and its codec (which bounds
    the call's time itself when it `blocks`)."""
    codec = McpToolCodec(config, home=home, timeout=timeout, blocks=blocks)
    return Handler(McpTransport(), codec, enforces_timeout=blocks)
