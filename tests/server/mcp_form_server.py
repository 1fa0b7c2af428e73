"""A real MCP server (the official SDK) whose tools ask the user through elicitation: `profile`
asks for a form with a string, an integer, a number, a boolean, an enum and a multi-select
field, `visit` asks the user to visit a URL, `sign_in` does too and, once accepted, tells the
client that the elicitation is complete (`notifications/elicitation/complete`). What each
elicitation returned is appended as a JSON line to the file named by `MCP_CALL_LOG`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

app = MCPServer("forms")


def _record(tool: str, **fields: object) -> None:
    log = os.environ.get("MCP_CALL_LOG")
    if log:
        with Path(log).open("a", encoding="utf-8") as sink:
            sink.write(json.dumps({"tool": tool, **fields}) + "\n")


class Profile(BaseModel):
    name: str = Field(title="Name", description="What to call you")
    age: int = Field(title="Age")
    height: float = Field(default=1.5, title="Height (m)")
    subscribed: bool = Field(default=False, title="Subscribe")
    color: Literal["red", "green", "blue"] = Field(title="Favourite colour")
    topics: list[Literal["docs", "tests", "ci"]] = Field(default_factory=list, title="Topics")


@app.tool(structured_output=False)
async def profile(ctx: Context) -> str:
    """Ask the user for their profile."""
    reply = await ctx.elicit(message="Tell me about you", schema=Profile)
    data = reply.data.model_dump() if reply.action == "accept" else None
    _record("profile", action=reply.action, data=data)
    return f"profile:{reply.action}:{json.dumps(data, sort_keys=True)}"


@app.tool(structured_output=False)
async def visit(ctx: Context) -> str:
    """Ask the user to sign in on a web page."""
    reply = await ctx.elicit_url("Sign in please", "https://example.test/login?a=1", "el-7")
    _record("visit", action=reply.action)
    return f"visited:{reply.action}"


@app.tool(structured_output=False)
async def sign_in(ctx: Context) -> str:
    """Ask the user to sign in on a web page, then say it is done."""
    reply = await ctx.elicit_url("Sign in please", "https://example.test/login", "el-9")
    if reply.action == "accept":
        await ctx.session.send_elicit_complete("el-9")
    _record("sign_in", action=reply.action)
    return f"signed_in:{reply.action}"


if __name__ == "__main__":
    app.run()
