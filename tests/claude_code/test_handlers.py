"""Every Claude Code hook type runs as `Handler(transport, codec)`: command over the process
transport, http over HTTP, prompt and agent over the model transport, mcp_tool over MCP."""

from __future__ import annotations

from hookwright.core.events import Event
from hookwright.dialects.base import Handler
from hookwright.dialects.claude_code.command import CommandCodec
from hookwright.dialects.claude_code.http import HttpCodec
from hookwright.dialects.claude_code.mcp_tool import McpToolCodec
from hookwright.dialects.claude_code.prompt import PromptCodec
from hookwright.transports.http import HttpTransport
from hookwright.transports.mcp import McpTransport
from hookwright.transports.model import ModelTransport
from hookwright.transports.process import ProcessTransport

from .conftest import Harness


def test_each_hook_type_is_a_transport_and_a_codec(h: Harness) -> None:
    h.hooks(
        {
            "Stop": [
                {
                    "hooks": [
                        {"type": "command", "command": "true"},
                        {"type": "http", "url": "http://127.0.0.1:9/x"},
                        {"type": "prompt", "prompt": "Done?"},
                        {"type": "agent", "prompt": "Verify."},
                        {"type": "mcp_tool", "server": "srv", "tool": "check"},
                    ]
                }
            ]
        }
    )
    pairs = [
        (type(spec.handler.transport), type(spec.handler.codec))
        for spec in h.engine.hooks(Event.Stop)
        if isinstance(spec.handler, Handler)
    ]
    assert pairs == [
        (ProcessTransport, CommandCodec),
        (HttpTransport, HttpCodec),
        (ModelTransport, PromptCodec),
        (ModelTransport, PromptCodec),
        (McpTransport, McpToolCodec),
    ]
