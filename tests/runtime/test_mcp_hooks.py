"""The hook features that need MCP, end to end through `hookwright run` with the scripted model
and a real MCP server (the official SDK) that logs every call it receives: PreToolUse on
`mcp__srv__.*` denying one tool, `mcp_tool` hooks, elicitation answered by hooks, the
terminal or nobody, the Notification types, and the stdin bytes hooks read, as measured in
Claude Code 2.1.240."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from cli_runner import run_scripted
from terminal import Terminal

SERVER = Path(__file__).with_name("mcp_echo_server.py")
HOOK = """\
import json, os, sys
data = sys.stdin.read()
with open(os.environ["HOOK_LOG"], "a") as log:
    log.write(data)
event = json.loads(data)
name = event["hook_event_name"]
answers = json.loads(os.environ.get("HOOK_ANSWERS", "{}"))
if name == "PreToolUse" and event["tool_name"] == "mcp__srv__secret":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "no secrets here"}}))
elif name in answers:
    answer = answers[name]
    if answer == "exit2":
        sys.stderr.write("refused")
        sys.exit(2)
    print(json.dumps({"hookSpecificOutput": {"hookEventName": name, **answer}}))
"""
AUDIT_ANSWER = json.dumps(
    {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "additionalContext": "audited ${tool_input.text}",
        }
    }
)
SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "title": "Name"}},
    "required": ["name"],
}


def make_project(root: Path, turns: list[dict[str, Any]], mcp_tool: Sequence[Any] = ()) -> Path:
    """A project with the test server as `srv`, a logging command hook on every MCP-related
    event, the `mcp_tool` hooks given for PostToolUse on `mcp__srv__echo`, and a script."""
    root.mkdir(exist_ok=True)
    (root / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"srv": {"command": sys.executable, "args": [str(SERVER)]}}})
    )
    script = root / ".claude" / "hook.py"
    script.parent.mkdir(parents=True)
    script.write_text(HOOK)
    logging = [{"type": "command", "command": f"{sys.executable} {script}"}]
    hooks: dict[str, Any] = {
        "PreToolUse": [{"matcher": "mcp__srv__.*", "hooks": logging}],
        "PostToolUse": [{"matcher": "mcp__srv__.*", "hooks": logging}],
        "Elicitation": [{"hooks": logging}],
        "ElicitationResult": [{"hooks": logging}],
        "Notification": [{"hooks": logging}],
    }
    if mcp_tool:
        hooks["PostToolUse"].append({"matcher": "mcp__srv__echo", "hooks": list(mcp_tool)})
    (root / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    (root / "script.yaml").write_text(yaml.safe_dump(turns))
    return root


def call(tool: str, /, **arguments: Any) -> dict[str, Any]:
    return {"name": tool, "arguments": arguments}


def run(root: Path, home: Path, answers: dict[str, Any] | None = None) -> Any:
    return run_scripted(root, "script.yaml", home=home, env=env(root, answers))


def env(root: Path, answers: dict[str, Any] | None = None) -> dict[str, str]:
    return {
        "MCP_CALL_LOG": str(root / "calls.jsonl"),
        "HOOK_LOG": str(root / "hooks.jsonl"),
        "HOOK_ANSWERS": json.dumps(answers or {}),
    }


def lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def transcript(home: Path) -> list[dict[str, Any]]:
    [path] = (home / ".hookwright" / "projects").glob("*/*.jsonl")
    return lines(path)


def tool_results(home: Path) -> dict[str, dict[str, Any]]:
    """What the model received for each tool call, by call id."""
    return {
        block["tool_use_id"]: block
        for entry in transcript(home)
        if entry.get("type") == "user" and isinstance(entry["message"]["content"], list)
        for block in entry["message"]["content"]
        if block.get("type") == "tool_result"
    }


def system_texts(home: Path) -> list[str]:
    return [e["content"] for e in transcript(home) if e.get("subtype") == "hookwright_system"]


def events(root: Path, name: str) -> list[dict[str, Any]]:
    return [e for e in lines(root / "hooks.jsonl") if e["hook_event_name"] == name]


def common(event: dict[str, Any]) -> list[str]:
    return list(event)[:4]


def test_acceptance_deny_mcp_tool_hook_and_elicitation_answered_by_a_hook(
    tmp_path: Path, isolated_home: Path
) -> None:
    audit = {
        "type": "mcp_tool",
        "server": "srv",
        "tool": "audit",
        "input": {
            "path": "${tool_input.text}",
            "event": "${hook_event_name}",
            "answer": AUDIT_ANSWER,
        },
    }
    turns = [
        {
            "tool_calls": [
                call("mcp__srv__echo", text="hi"),
                call("mcp__srv__secret", name="x"),
                call("mcp__srv__ask"),
            ]
        },
        {"content": "done"},
    ]
    root = make_project(tmp_path / "p", turns, [audit])
    answer = {"action": "accept", "content": {"name": "Ada"}}
    proc = run(root, isolated_home, {"Elicitation": answer})
    assert proc.returncode == 0, proc.stderr

    calls = lines(root / "calls.jsonl")
    assert [c["tool"] for c in calls] == ["echo", "audit", "ask"]
    assert calls[1]["arguments"]["path"] == "hi"
    assert calls[1]["arguments"]["event"] == "PostToolUse"
    assert "audited hi" in calls[1]["arguments"]["answer"]
    assert calls[2]["arguments"] == {"action": "accept", "data": {"name": "Ada"}}

    results = tool_results(isolated_home)
    assert results["call_1"]["content"] == '{"result":"echo:hi"}'
    assert results["call_2"] == {
        "tool_use_id": "call_2",
        "type": "tool_result",
        "content": "no secrets here",
        "is_error": True,
    }
    assert results["call_3"]["content"] == [{"type": "text", "text": "asked:accept:Ada"}]
    assert "PostToolUse:mcp__srv__echo hook additional context: audited hi" in system_texts(
        isolated_home
    )

    [elicitation] = events(root, "Elicitation")
    assert list(elicitation) == [
        "session_id",
        "transcript_path",
        "cwd",
        "prompt_id",
        "hook_event_name",
        "mcp_server_name",
        "message",
        "mode",
        "requested_schema",
    ]
    assert elicitation["mcp_server_name"] == "srv"
    assert elicitation["message"] == "What is your name?"
    assert elicitation["mode"] == "form"
    assert json.dumps(elicitation["requested_schema"]) == json.dumps(SCHEMA)
    assert events(root, "ElicitationResult") == []
    assert events(root, "Notification") == []

    posts = {e["tool_name"]: e for e in events(root, "PostToolUse")}
    assert posts["mcp__srv__echo"]["tool_response"] == '{"result":"echo:hi"}'
    assert posts["mcp__srv__ask"]["tool_response"] == [{"type": "text", "text": "asked:accept:Ada"}]
    assert list(posts["mcp__srv__echo"])[4:] == [
        "permission_mode",
        "effort",
        "hook_event_name",
        "tool_name",
        "tool_input",
        "tool_response",
        "tool_use_id",
        "duration_ms",
    ]
    pre = {e["tool_name"]: e for e in events(root, "PreToolUse")}
    assert pre["mcp__srv__secret"]["tool_input"] == {"name": "x"}
    assert "mcp__srv__secret" not in posts


def test_elicitation_nobody_answers_is_cancelled_and_result_hooks_can_override(
    tmp_path: Path, isolated_home: Path
) -> None:
    turns = [{"tool_calls": [call("mcp__srv__ask")]}, {"content": "done"}]
    root = make_project(tmp_path / "p", turns)
    proc = run(root, isolated_home)
    assert proc.returncode == 0, proc.stderr
    assert lines(root / "calls.jsonl") == [
        {"tool": "ask", "arguments": {"action": "cancel", "data": None}}
    ]
    [result] = events(root, "ElicitationResult")
    assert list(result)[4:] == ["hook_event_name", "mcp_server_name", "mode", "action"]
    assert (result["mcp_server_name"], result["mode"], result["action"]) == (
        "srv",
        "form",
        "cancel",
    )
    [note] = events(root, "Notification")
    assert note["notification_type"] == "elicitation_response"
    assert note["message"] == 'Elicitation response for server "srv": cancel'
    order = [e["hook_event_name"] for e in lines(root / "hooks.jsonl")]
    assert order == [
        "PreToolUse",
        "Elicitation",
        "ElicitationResult",
        "PostToolUse",
        "Notification",
    ], "the response's Notification comes after the tool's PostToolUse, as in Claude Code"
    assert (
        "permission_mode" not in result and "permission_mode" not in events(root, "Elicitation")[0]
    )

    again = make_project(tmp_path / "q", turns)
    override = {"action": "accept", "content": {"name": "Over"}}
    proc = run(again, isolated_home, {"ElicitationResult": override})
    assert proc.returncode == 0, proc.stderr
    assert lines(again / "calls.jsonl")[0]["arguments"] == {
        "action": "accept",
        "data": {"name": "Over"},
    }
    [note] = events(again, "Notification")
    assert note["message"] == 'Elicitation response for server "srv": accept'


def test_a_blocking_elicitation_hook_declines(tmp_path: Path, isolated_home: Path) -> None:
    turns = [{"tool_calls": [call("mcp__srv__ask")]}, {"content": "done"}]
    root = make_project(tmp_path / "p", turns)
    proc = run(root, isolated_home, {"Elicitation": "exit2"})
    assert proc.returncode == 0, proc.stderr
    assert lines(root / "calls.jsonl")[0]["arguments"]["action"] == "decline"
    assert events(root, "ElicitationResult") == []
    assert tool_results(isolated_home)["call_1"]["content"] == [
        {"type": "text", "text": "asked:decline:"}
    ]


def test_the_terminal_answers_an_elicitation_in_run(tmp_path: Path, isolated_home: Path) -> None:
    turns = [{"tool_calls": [call("mcp__srv__ask")]}, {"content": "all done"}]
    root = make_project(tmp_path / "p", turns)
    args = ["run", "go", "--project", str(root), "--trust", "--model", "scripted:script.yaml"]
    term = Terminal(
        [*args, "--permission-mode", "bypassPermissions"], isolated_home, tmp_path, env(root)
    )
    term.expect("MCP server srv asks: What is your name?")
    term.expect("[c]ancel: ")
    term.send("y")
    term.expect("Name: ")
    term.send("Grace")
    term.expect("all done")
    assert term.close() == 0
    assert lines(root / "calls.jsonl")[0]["arguments"] == {
        "action": "accept",
        "data": {"name": "Grace"},
    }
    kinds = [e["notification_type"] for e in events(root, "Notification")]
    assert kinds == ["elicitation_dialog", "elicitation_response"]
    assert events(root, "ElicitationResult")[0]["content"] == {"name": "Grace"}


def test_mcp_tool_hook_failures_are_non_blocking_one_line_errors_naming_the_hook(
    tmp_path: Path, isolated_home: Path
) -> None:
    hooks = [
        {"type": "mcp_tool", "server": "nosuch", "tool": "x"},
        {
            "type": "mcp_tool",
            "server": "srv",
            "tool": "fail",
            "input": {"text": "${tool_input.text}"},
        },
        {"type": "mcp_tool", "server": "srv", "tool": "audit", "input": {"answer": "plain words"}},
    ]
    turns = [{"tool_calls": [call("mcp__srv__echo", text="hi")]}, {"content": "done"}]
    root = make_project(tmp_path / "p", turns, hooks)
    proc = run(root, isolated_home)
    assert proc.returncode == 0, proc.stderr
    assert "mcp_tool hook nosuch/x: MCP server 'nosuch' is not connected" in proc.stdout
    assert "mcp_tool hook srv/fail: the tool returned an error: " in proc.stdout
    # The hooks of one event run in parallel: the two calls arrive in either order.
    tools = [c["tool"] for c in lines(root / "calls.jsonl")]
    assert tools[0] == "echo" and sorted(tools[1:]) == ["audit", "fail"]
    assert tool_results(isolated_home)["call_1"]["content"] == '{"result":"echo:hi"}'
    assert not any("plain words" in text for text in system_texts(isolated_home))


OBSERVER = r"""
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") == "hook.runtime_event":
        with open(sys.argv[1], "a") as log:
            log.write(json.dumps(message["params"]) + "\n")
    if "id" in message:
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": {}}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
"""


def test_picoclaw_observers_see_the_mcp_runtime_events(tmp_path: Path, isolated_home: Path) -> None:
    turns = [{"tool_calls": [call("mcp__srv__echo", text="hi")]}, {"content": "done"}]
    root = make_project(tmp_path / "p", turns)
    observer = tmp_path / "observer.py"
    observer.write_text(OBSERVER)
    log = tmp_path / "events.jsonl"
    process = {"command": [sys.executable, str(observer), str(log)], "observe": ["*"]}
    (root / ".picoclaw").mkdir()
    config = {"hooks": {"enabled": True, "protocol": "current", "processes": {"watch": process}}}
    (root / ".picoclaw" / "config.json").write_text(json.dumps(config))
    proc = run(root, isolated_home)
    assert proc.returncode == 0, proc.stderr
    seen = [e for e in lines(log) if e["kind"].startswith("mcp.")]
    kinds = [e["kind"] for e in seen]
    assert kinds[0] == "mcp.server.connecting"
    assert kinds[1:8] == ["mcp.tool.discovered"] * 7
    assert kinds[8:] == ["mcp.server.connected", "mcp.tool.call.start", "mcp.tool.call.end"]
    connected, start, end = seen[8:]
    assert connected["source"] == {"component": "mcp", "name": "srv"}
    assert connected["payload"] == {
        "Server": "srv",
        "Type": "stdio",
        "Command": sys.executable,
        "ToolCount": 7,
    }
    assert {e["payload"]["Tool"] for e in seen[1:8]} >= {"echo", "ask", "audit", "visit"}
    assert start["payload"]["Tool"] == "echo" and start["payload"]["IsError"] is False
    assert end["payload"]["Server"] == "srv" and isinstance(end["payload"]["DurationMS"], int)
    assert end["severity"] == "info"


def test_a_server_that_fails_to_start_is_observed(tmp_path: Path, isolated_home: Path) -> None:
    root = make_project(tmp_path / "p", [{"content": "done"}])
    (root / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"gone": {"command": str(tmp_path / "missing-server")}}})
    )
    observer = tmp_path / "observer.py"
    observer.write_text(OBSERVER)
    log = tmp_path / "events.jsonl"
    process = {
        "command": [sys.executable, str(observer), str(log)],
        "observe": ["mcp.server.failed"],
    }
    (root / ".picoclaw").mkdir()
    config = {"hooks": {"enabled": True, "protocol": "current", "processes": {"watch": process}}}
    (root / ".picoclaw" / "config.json").write_text(json.dumps(config))
    proc = run(root, isolated_home)
    assert proc.returncode == 0, proc.stderr
    assert "MCP server 'gone'" in proc.stderr
    [failed] = lines(log)
    assert failed["kind"] == "mcp.server.failed"
    assert failed["severity"] == "error"
    assert failed["payload"]["Server"] == "gone"
    assert failed["payload"]["Error"].startswith(("FileNotFoundError", "OSError"))


def plugin_project(root: Path, turns: list[dict[str, Any]], enabled: bool = True) -> Path:
    """The test server declared by a plugin `tools` (as `db`) instead of .mcp.json, found
    through `${CLAUDE_PLUGIN_ROOT}`; hooks name it as Claude Code does."""
    make_project(root, turns)
    (root / ".mcp.json").unlink()
    plugin = root / ".claude" / "plugins" / "tools"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "tools"}))
    (plugin / "server.py").write_text(SERVER.read_text())
    entry = {"command": sys.executable, "args": ["${CLAUDE_PLUGIN_ROOT}/server.py"]}
    (plugin / ".mcp.json").write_text(json.dumps({"mcpServers": {"db": entry}}))
    settings = json.loads((root / ".claude" / "settings.json").read_text())
    logging = settings["hooks"]["PreToolUse"][0]["hooks"]
    audit = {
        "type": "mcp_tool",
        "server": "plugin:tools:db",
        "tool": "audit",
        "input": {"path": "${tool_name}"},
    }
    settings["hooks"]["PreToolUse"] = [{"matcher": "mcp__plugin_tools_db__.*", "hooks": logging}]
    settings["hooks"]["PostToolUse"] = [{"matcher": "mcp__plugin_tools_db__echo", "hooks": [audit]}]
    settings["enabledPlugins"] = {"tools": enabled}
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    return root


def test_plugin_servers_are_named_as_in_claude_code(tmp_path: Path, isolated_home: Path) -> None:
    turns = [{"tool_calls": [call("mcp__plugin_tools_db__echo", text="hi")]}, {"content": "done"}]
    root = plugin_project(tmp_path / "p", turns)
    proc = run(root, isolated_home)
    assert proc.returncode == 0, proc.stderr
    calls = lines(root / "calls.jsonl")
    assert calls == [
        {"tool": "echo", "arguments": {"text": "hi"}},
        {
            "tool": "audit",
            "arguments": {"path": "mcp__plugin_tools_db__echo", "event": "", "answer": ""},
        },
    ]
    [pre] = events(root, "PreToolUse")
    assert pre["tool_name"] == "mcp__plugin_tools_db__echo"
    assert tool_results(isolated_home)["call_1"]["content"] == '{"result":"echo:hi"}'


def test_a_disabled_plugin_starts_no_server(tmp_path: Path, isolated_home: Path) -> None:
    turns = [{"tool_calls": [call("mcp__plugin_tools_db__echo", text="hi")]}, {"content": "done"}]
    root = plugin_project(tmp_path / "p", turns, enabled=False)
    proc = run(root, isolated_home)
    assert proc.returncode == 0, proc.stderr
    assert lines(root / "calls.jsonl") == []
    assert tool_results(isolated_home)["call_1"]["is_error"] is True


@pytest.mark.skipif(
    importlib.util.find_spec("mcp_server_time") is None,
    reason="the published mcp-server-time package is not installed",
)
def test_a_published_server_package_mcp_server_time(tmp_path: Path, isolated_home: Path) -> None:
    turns = [
        {"tool_calls": [call("mcp__time__get_current_time", timezone="Europe/Paris")]},
        {"content": "done"},
    ]
    root = make_project(tmp_path / "p", turns)
    entry = {"command": sys.executable, "args": ["-m", "mcp_server_time"]}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"time": entry}}))
    settings = json.loads((root / ".claude" / "settings.json").read_text())
    settings["hooks"]["PostToolUse"][0]["matcher"] = "mcp__time__.*"
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    proc = run(root, isolated_home)
    assert proc.returncode == 0, proc.stderr
    [post] = events(root, "PostToolUse")
    assert post["tool_name"] == "mcp__time__get_current_time"
    assert post["tool_input"] == {"timezone": "Europe/Paris"}
    content = tool_results(isolated_home)["call_1"]["content"]
    assert json.loads(content)["timezone"] == "Europe/Paris"
    assert post["tool_response"] == content


def test_a_url_elicitation_reaches_hooks_with_its_url_and_id(
    tmp_path: Path, isolated_home: Path
) -> None:
    turns = [{"tool_calls": [call("mcp__srv__visit")]}, {"content": "done"}]
    root = make_project(tmp_path / "p", turns)
    proc = run(root, isolated_home, {"Elicitation": {"action": "accept"}})
    assert proc.returncode == 0, proc.stderr
    assert lines(root / "calls.jsonl") == [{"tool": "visit", "arguments": {"action": "accept"}}]
    [elicitation] = events(root, "Elicitation")
    assert list(elicitation)[4:] == [
        "hook_event_name",
        "mcp_server_name",
        "message",
        "mode",
        "url",
        "elicitation_id",
    ]
    assert (elicitation["mode"], elicitation["url"], elicitation["elicitation_id"]) == (
        "url",
        "https://example.test/login",
        "el-1",
    )


def test_an_mcp_tools_events_name_its_server_last_as_claude_code_2_1_332_does(
    tmp_path: Path, isolated_home: Path
) -> None:
    """Measured with Claude Code 2.1.332 and this server in a project `.mcp.json`: PreToolUse
    and PostToolUse end in ``"mcp_server":{"name":"srv","source":"project"}``; 2.1.240 sends
    no such field (the other tests)."""
    turns = [{"tool_calls": [call("mcp__srv__echo", text="hi")]}, {"content": "done"}]
    root = make_project(tmp_path / "p", turns)
    proc = run_scripted(
        root,
        "script.yaml",
        "--claude-code-version",
        "2.1.332",
        home=isolated_home,
        env=env(root),
    )
    assert proc.returncode == 0, proc.stderr
    raw = (root / "hooks.jsonl").read_text()
    [pre, post] = [json.loads(line) for line in raw.splitlines()]
    server = {"name": "srv", "source": "project"}
    assert list(pre)[-2:] == ["tool_use_id", "mcp_server"] and pre["mcp_server"] == server
    assert list(post)[-3:] == ["tool_use_id", "duration_ms", "mcp_server"]
    assert post["mcp_server"] == server
    assert ',"mcp_server":{"name":"srv","source":"project"}}' in raw
