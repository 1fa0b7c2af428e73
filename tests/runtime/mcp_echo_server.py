"""A real MCP server (the official SDK) for the tests: `echo` (structured result), `plain`
(text blocks), `secret`, `audit` (answers with the JSON in `answer`, for `mcp_tool` hooks),
`fail` (an error result), `ask` (asks the user for a name through elicitation and says what
came back) and `visit` (asks the user to visit a URL). Every call it receives is appended as a
JSON line to the file named by `MCP_CALL_LOG`; `MCP_STARTED` names a file it creates when it
starts. Run with `http PORT` to serve streamable HTTP on 127.0.0.1 instead of stdio."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

app = MCPServer("srv")


def _record(tool: str, **arguments: object) -> None:
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


@app.tool(structured_output=False)
def audit(path: str = "", event: str = "", answer: str = "") -> str:
    """Record what a hook sent; answer with `answer`."""
    _record("audit", path=path, event=event, answer=answer)
    return answer


@app.tool(structured_output=False)
def fail(text: str = "") -> str:
    """Always fails."""
    _record("fail", text=text)
    raise ValueError(f"broken {text}")


class Who(BaseModel):
    name: str


@app.tool(structured_output=False)
async def ask(ctx: Context) -> str:
    """Ask the user for their name."""
    reply = await ctx.elicit(message="What is your name?", schema=Who)
    data = reply.data.model_dump() if reply.action == "accept" else None
    _record("ask", action=reply.action, data=data)
    return f"asked:{reply.action}:{data['name'] if data else ''}"


@app.tool(structured_output=False)
async def visit(ctx: Context) -> str:
    """Ask the user to sign in on a web page."""
    reply = await ctx.elicit_url("Sign in please", "https://example.test/login", "el-1")
    _record("visit", action=reply.action)
    return f"visited:{reply.action}"


if __name__ == "__main__":
    if started := os.environ.get("MCP_STARTED"):
        Path(started).write_text("started")
    if sys.argv[1:2] == ["http"]:
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        app.run()
