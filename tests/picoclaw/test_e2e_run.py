"""The seeds' plugin-tool injection, end to end in `hookwright run` with the scripted model: a
JSON-RPC hook process adds a tool in before_llm and answers its call with respond in
before_tool; the model calls the injected tool and receives the hook's answer."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cli_runner import run_hookwright

PLUGIN = r"""
import json
import sys


def handle_before_llm(params):
    tools = params.get("tools", [])
    tools.append({
        "type": "function",
        "function": {
            "name": "my_plugin_tool",
            "description": "Plugin provided tool",
            "parameters": {
                "type": "object",
                "properties": {"input": {"type": "string", "description": "Input content"}},
                "required": ["input"],
            },
        },
    })
    return {
        "action": "modify",
        "request": {
            "model": params["model"],
            "messages": params["messages"],
            "tools": tools,
            "options": params.get("options", {}),
        },
    }


def handle_before_tool(params):
    if params.get("tool", "") == "my_plugin_tool":
        input_text = params.get("arguments", {}).get("input", "")
        return {
            "action": "respond",
            "result": {
                "for_llm": f"Plugin tool executed successfully, input: {input_text}",
                "silent": False,
                "is_error": False,
            },
        }
    return {"action": "continue"}


for line in sys.stdin:
    message = json.loads(line)
    with open(sys.argv[1], "a") as log:
        log.write(line)
    if "id" not in message:
        continue
    method = message["method"]
    if method == "hook.hello":
        result = {"ok": True, "name": "plugin"}
    elif method == "hook.before_llm":
        result = handle_before_llm(message["params"])
    elif method == "hook.before_tool":
        result = handle_before_tool(message["params"])
    elif method == "hook.approve_tool":
        result = {"approved": True}
    else:
        result = {"action": "continue"}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
"""

SCRIPT = """\
turns:
  - content: "Using the plugin."
    tool_calls: [{name: my_plugin_tool, arguments: {input: "hello plugin"}}]
  - content: "The plugin answered."
"""


def test_plugin_tool_injection_end_to_end(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "project"
    (project / ".picoclaw").mkdir(parents=True)
    plugin = tmp_path / "plugin.py"
    plugin.write_text(PLUGIN)
    log = tmp_path / "received.jsonl"
    config = {
        "hooks": {
            "enabled": True,
            "processes": {
                "plugin": {
                    "command": [sys.executable, str(plugin), str(log)],
                    "intercept": ["before_llm", "before_tool", "approve_tool"],
                    "observe": ["turn_start", "tool_exec_start", "tool_exec_skipped", "turn_end"],
                }
            },
        }
    }
    (project / ".picoclaw" / "config.json").write_text(json.dumps(config))
    (tmp_path / "script.yaml").write_text(SCRIPT)
    proc = run_hookwright(
        "run",
        "use the plugin",
        "--project",
        str(project),
        "--model",
        f"scripted:{tmp_path / 'script.yaml'}",
        "--trust",
        "--json",
        home=isolated_home,
    )
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    result = next(e for e in events if e["type"] == "tool_result")
    assert result["name"] == "my_plugin_tool"
    assert result["content"] == "Plugin tool executed successfully, input: hello plugin"
    assert result["is_error"] is False
    assert result["skipped"] == "answered by hook"
    assert events[-2]["type"] == "turn_end"
    assert events[-2]["text"] == "The plugin answered."

    received = [json.loads(line) for line in log.read_text().splitlines()]
    methods = [m.get("method") for m in received]
    assert methods[0] == "hook.hello"
    assert methods.count("hook.before_llm") == 2
    assert "hook.before_tool" in methods
    assert "hook.approve_tool" not in methods  # respond skips approval and after_tool
    assert "hook.after_tool" not in methods
    before_tool = next(m for m in received if m.get("method") == "hook.before_tool")
    assert before_tool["params"]["tool"] == "my_plugin_tool"
    assert before_tool["params"]["arguments"] == {"input": "hello plugin"}
    kinds = [m["params"]["Kind"] for m in received if m.get("method") == "hook.event"]
    # a respond is observed as an execution of duration 0, never as a skip (PicoClaw §6)
    # (the integer kinds PicoClaw v0.2.6 sent: turn_start, tool_exec_start, turn_end)
    assert kinds == [0, 8, 1]
    started = next(
        m for m in received if m.get("method") == "hook.event" and m["params"]["Kind"] == 8
    )
    assert started["params"]["Payload"]["Tool"] == "my_plugin_tool"
    assert set(before_tool["params"]["meta"]) == {
        "AgentID",
        "TurnID",
        "ParentTurnID",
        "SessionKey",
        "Iteration",
        "TracePath",
        "Source",
    }
