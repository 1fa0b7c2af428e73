"""MCP servers as the reference agent's tools, end to end: `hookwright run` against a real MCP
server (the official SDK) and a real HTTP model server. What is checked is what happened: the
tool definitions the model received, the calls the server received, the bytes hooks read."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_hookwright
from hookwright.runtime.mcp import load_servers, tool_name

from .fake_llm_server import FakeLLMServer, FakeReply, FakeToolCall

SERVER = Path(__file__).with_name("mcp_echo_server.py")
HOOK = """\
import json, os, sys
data = sys.stdin.read()
with open(os.environ["HOOK_LOG"], "a") as log:
    log.write(data)
event = json.loads(data)
if event["tool_name"] == "mcp__srv__secret":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "no secrets"}}))
elif event["hook_event_name"] == "PreToolUse":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "allow", "updatedInput": {"text": "rewritten"}}}))
"""


def stdio_entry() -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(SERVER)]}


def project(root: Path, servers: dict[str, Any]) -> Path:
    """A project with `servers` in its .mcp.json and one hook script on every MCP tool event."""
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    script = root / ".claude" / "hook.py"
    script.parent.mkdir(parents=True)
    script.write_text(HOOK)
    entry = [
        {
            "matcher": "mcp__srv__.*",
            "hooks": [{"type": "command", "command": f"{sys.executable} {script}"}],
        }
    ]
    settings = {"hooks": {"PreToolUse": entry, "PostToolUse": entry}}
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    return root


def run(root: Path, home: Path, server: FakeLLMServer, *extra: str) -> Any:
    return run_hookwright(
        "run",
        "go",
        "--project",
        str(root),
        "--model",
        "anthropic:claude-test",
        "--permission-mode",
        "bypassPermissions",
        *extra,
        home=home,
        env={
            "ANTHROPIC_BASE_URL": server.anthropic_base_url,
            "ANTHROPIC_API_KEY": "sk-ant-t",
            "MCP_CALL_LOG": str(root / "calls.jsonl"),
            "MCP_STARTED": str(root / "started"),
            "HOOK_LOG": str(root / "hooks.jsonl"),
        },
    )


def lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def tool_names(request: Any) -> list[str]:
    return [tool["name"] for tool in request.body.get("tools", [])]


def tool_results(request: Any) -> list[dict[str, Any]]:
    return [
        block
        for message in request.body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


def test_model_calls_an_mcp_tool_hooks_rewrite_and_deny_as_in_claude_code(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    root = project(tmp_path, {"srv": stdio_entry()})
    calls = [
        FakeToolCall("mcp__srv__echo", '{"text": "hi"}', id="toolu_a"),
        FakeToolCall("mcp__srv__secret", '{"name": "x"}', id="toolu_b"),
    ]
    server.queue_anthropic(FakeReply(tool_calls=calls), FakeReply("done"))
    proc = run(root, isolated_home, server, "--trust")
    assert proc.returncode == 0, proc.stderr
    first, second = server.requests_for("anthropic")
    assert {"mcp__srv__echo", "mcp__srv__plain", "mcp__srv__secret"} <= set(tool_names(first))
    echo = next(t for t in first.body["tools"] if t["name"] == "mcp__srv__echo")
    assert echo["input_schema"]["properties"]["text"]["type"] == "string"
    assert lines(root / "calls.jsonl") == [{"tool": "echo", "arguments": {"text": "rewritten"}}]
    results = {block["tool_use_id"]: block for block in tool_results(second)}
    assert results["toolu_a"]["content"] == '{"result":"echo:rewritten"}'
    assert results["toolu_b"]["is_error"] is True
    assert results["toolu_b"]["content"] == "no secrets"
    hooks = lines(root / "hooks.jsonl")
    pre_echo, post_echo, pre_secret = hooks
    assert pre_echo["tool_name"] == "mcp__srv__echo"
    assert pre_echo["tool_input"] == {"text": "hi"}
    assert pre_secret["tool_name"] == "mcp__srv__secret"
    assert post_echo["hook_event_name"] == "PostToolUse"
    assert post_echo["tool_input"] == {"text": "rewritten"}
    assert post_echo["tool_response"] == '{"result":"echo:rewritten"}'


def test_an_untrusted_project_starts_no_mcp_server(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    root = project(tmp_path, {"srv": stdio_entry()})
    server.queue_anthropic(FakeReply("done"))
    proc = run(root, isolated_home, server)
    assert proc.returncode == 0, proc.stderr
    assert not (root / "started").exists()
    [request] = server.requests_for("anthropic")
    assert not [name for name in tool_names(request) if name.startswith("mcp__")]


def test_mcp_config_file_servers_and_a_server_that_fails_to_start(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    config = tmp_path / "servers.json"
    broken = {"command": str(tmp_path / "no-such-server")}
    config.write_text(json.dumps({"mcpServers": {"srv": stdio_entry(), "broken": broken}}))
    server.queue_anthropic(
        FakeReply(tool_calls=[FakeToolCall("mcp__srv__plain", '{"text": "x"}', id="toolu_a")]),
        FakeReply("done"),
    )
    proc = run(tmp_path, isolated_home, server, "--mcp-config", str(config))
    assert proc.returncode == 0, proc.stderr
    [error] = [line for line in proc.stderr.splitlines() if "'broken'" in line]
    assert error.startswith("error: MCP server 'broken'")
    assert "failed to start" in error
    assert lines(tmp_path / "calls.jsonl") == [{"tool": "plain", "arguments": {"text": "x"}}]
    [result] = tool_results(server.requests_for("anthropic")[1])
    # Claude Code 2.1.240 sends an MCP result's content blocks to the model as blocks.
    assert result["content"] == [
        {"type": "text", "text": "one:x"},
        {"type": "text", "text": "two:x"},
    ]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    log = tmp_path / "calls.jsonl"
    env = {"MCP_CALL_LOG": str(log), "PATH": "/usr/bin:/bin"}
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "http", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_streamable_http_server_tools(
    http_server: str, server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"web": {"type": "http", "url": http_server}}}))
    server.queue_anthropic(
        FakeReply(tool_calls=[FakeToolCall("mcp__web__echo", '{"text": "net"}', id="toolu_a")]),
        FakeReply("done"),
    )
    proc = run(tmp_path, isolated_home, server, "--mcp-config", str(config))
    assert proc.returncode == 0, proc.stderr
    assert lines(tmp_path / "calls.jsonl") == [{"tool": "echo", "arguments": {"text": "net"}}]
    [result] = tool_results(server.requests_for("anthropic")[1])
    assert "echo:net" in json.dumps(result["content"])


def test_server_sources_gated_by_trust_and_later_sources_win(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    root.mkdir()
    user = {
        "mcpServers": {"a": {"command": "user-a"}, "b": {"url": "http://127.0.0.1:1/mcp"}},
        "projects": {str(root): {"mcpServers": {"c": {"command": "local-c"}}}},
    }
    (home / ".claude.json").write_text(json.dumps(user))
    (root / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"a": {"command": "project-a"}, "bad": {"type": "sse"}}})
    )
    untrusted = load_servers(root, home, project_trusted=False)
    assert [(s.name, s.command or s.url) for s in untrusted.servers] == [
        ("a", "user-a"),
        ("b", "http://127.0.0.1:1/mcp"),
        ("c", "local-c"),
    ]
    assert untrusted.problems == ()
    trusted = load_servers(root, home, project_trusted=True)
    assert dict((s.name, s.command) for s in trusted.servers)["a"] == "project-a"
    [problem] = trusted.problems
    assert (
        problem
        == f"error: {root / '.mcp.json'}: mcpServers.bad.type: 'sse' is not supported (stdio, http)"
    )


def test_tool_names_follow_claude_code() -> None:
    assert tool_name("github", "create_issue") == "mcp__github__create_issue"
    assert tool_name("my server", "do.it") == "mcp__my_server__do_it"


def test_deny_rules_naming_an_mcp_tool_or_server_hide_it_from_the_model(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    root = project(tmp_path, {"srv": stdio_entry(), "other": stdio_entry()})
    settings = json.loads((root / ".claude" / "settings.json").read_text())
    settings["permissions"] = {"deny": ["mcp__srv__secret", "mcp__other"]}
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    server.queue_anthropic(FakeReply("done"))
    proc = run(root, isolated_home, server, "--trust")
    assert proc.returncode == 0, proc.stderr
    [request] = server.requests_for("anthropic")
    offered = [name for name in tool_names(request) if name.startswith("mcp__")]
    assert sorted(offered) == [
        "mcp__srv__ask",
        "mcp__srv__audit",
        "mcp__srv__echo",
        "mcp__srv__fail",
        "mcp__srv__plain",
        "mcp__srv__visit",
    ]


def test_streamable_http_server_elicitation_and_mcp_tool_hooks(
    http_server: str, server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"web": {"type": "http", "url": http_server}}}))
    answer = {"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept"}}
    answer["hookSpecificOutput"]["content"] = {"name": "Lin"}
    script = tmp_path / "elicit.py"
    script.write_text(f"import sys; sys.stdin.read(); print({json.dumps(json.dumps(answer))})")
    audit = {"type": "mcp_tool", "server": "web", "tool": "audit", "input": {"path": "${cwd}"}}
    hooks = {
        "Elicitation": [
            {
                "matcher": "web",
                "hooks": [{"type": "command", "command": f"{sys.executable} {script}"}],
            }
        ],
        "PostToolUse": [{"matcher": "mcp__web__ask", "hooks": [audit]}],
    }
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    server.queue_anthropic(
        FakeReply(tool_calls=[FakeToolCall("mcp__web__ask", "{}", id="toolu_a")]),
        FakeReply("done"),
    )
    proc = run(tmp_path, isolated_home, server, "--mcp-config", str(config), "--trust")
    assert proc.returncode == 0, proc.stderr
    assert lines(tmp_path / "calls.jsonl") == [
        {"tool": "ask", "arguments": {"action": "accept", "data": {"name": "Lin"}}},
        {"tool": "audit", "arguments": {"path": str(tmp_path), "event": "", "answer": ""}},
    ]
    [result] = tool_results(server.requests_for("anthropic")[1])
    assert "asked:accept:Lin" in json.dumps(result["content"])
