"""The MCP server every `mcp_tool` hook of a conformance case calls (stdio, the official SDK).

Its one tool, `hook`, does what `hook.py` does for a command hook: it appends the arguments it
was called with (as JSON, in the place of stdin) and the hook's label to `$HW_CONF_LOG`, then
answers as the label's action in `$HW_CONF_ACTIONS` says: `stdout` is the text it returns; an
`exit` other than 0 makes the call an error result whose text is `stderr`.
"""

from __future__ import annotations

import json
import os
import time

from mcp.server.mcpserver import MCPServer

app = MCPServer("conf")


@app.tool(structured_output=False)
def hook(label: str, event: str = "") -> str:
    """Log the call, then answer as the case says."""
    arguments = json.dumps({"label": label, "event": event})
    record = {"label": label, "stdin": arguments, "cwd": ""}
    with open(os.environ["HW_CONF_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps(record) + "\n")
    with open(os.environ["HW_CONF_ACTIONS"], encoding="utf-8") as handle:
        action = json.load(handle).get(label, {})
    time.sleep(float(action.get("delay", 0)))
    if int(action.get("exit", 0)):
        raise ValueError(action.get("stderr", ""))
    return str(action.get("stdout", ""))


if __name__ == "__main__":
    app.run()
