"""A real MCP server (the official SDK) for the tests: `echo` (structured result), `plain`
(text blocks) and `secret`. Every call it receives is appended as a JSON line to the file named
by `MCP_CALL_LOG`; `MCP_STARTED` names a file it creates when it starts. Run with `http PORT`
to serve streamable HTTP on 127.0.0.1 instead of stdio."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

app = MCPServer("srv")


def _record(tool: str, **arguments: str) -> None:
    log = os.environ.get("MCP_CALL_LOG")
    if log:
        with Path(log).open("a", encoding="utf-8") as sink:
            sink.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")


@app.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    _record("echo", text=text)
    return f"echo:{text}"


@app.tool(structured_output=False)
def plain(text: str) -> list[str]:
    """Answer with two text blocks."""
    _record("plain", text=text)
    return [f"one:{text}", f"two:{text}"]


@app.tool()
def secret(name: str) -> str:
    """Reveal a secret."""
    _record("secret", name=name)
    return "s3cret"


if __name__ == "__main__":
    if started := os.environ.get("MCP_STARTED"):
        Path(started).write_text("started")
    if sys.argv[1:2] == ["http"]:
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        app.run()
