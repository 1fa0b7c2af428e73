"""A real MCP server (the official SDK) with one tool that writes files: `write_file(path,
content)`, as filesystem servers name it. Every call it receives is appended as a JSON line to
the file named by `MCP_CALL_LOG`."""

from __future__ import annotations

import json
import os
from pathlib import Path

from mcp.server.mcpserver import MCPServer

app = MCPServer("fs")


@app.tool(structured_output=False)
def write_file(path: str, content: str) -> str:
    """Write `content` to the file at `path`."""
    log = os.environ.get("MCP_CALL_LOG")
    if log:
        with Path(log).open("a", encoding="utf-8") as sink:
            sink.write(json.dumps({"tool": "write_file", "path": path}) + "\n")
    Path(path).write_text(content, encoding="utf-8")
    return f"wrote {path}"


if __name__ == "__main__":
    app.run()
