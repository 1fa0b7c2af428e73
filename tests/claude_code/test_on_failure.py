"""`onFailure` on Claude Code hooks, through `hookwright run` with real hook processes and a
real HTTP endpoint: a failing hook set to "block" refuses the tool with Claude Code's words, one
set to "continue" (or on an event where the option is ignored) lets it run."""

from __future__ import annotations

import re
import shlex
import sys
import threading
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from hookwright import Decision
from hookwright.core.events import Event
from hookwright.core.results import Status
from hookwright.dialects.claude_code.config import parse_hooks
from hookwright.dialects.claude_code.on_failure import MCP_DETAILS_LEFT_OUT, blocks_on_failure
from hookwright.engine.hook_requests import McpToolReply

from .conftest import Harness, cmd, group
from .scripted_run import run_as, tool_result
from .test_mcp_tool_hooks import FakeServers, mcp_tool

BLOCK = 'blocking because onFailure is "block"'
#: The first Claude Code with `onFailure`, its wording otherwise 2.1.240's.
ON_FAILURE_SINCE = "2.1.295"
TOUCH = {"content": "", "tool_calls": [{"name": "Bash", "arguments": {"command": "touch ran"}}]}
DONE = {"content": "finished"}


def script(tmp_path: Path, body: str) -> str:
    """A Python hook that reads its input, then runs `body`; the command that runs it."""
    path = tmp_path / f"hook{len(list(tmp_path.glob('hook*.py')))}.py"
    path.write_text("import sys, time\nsys.stdin.read()\n" + body)
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def pre_tool(handler: dict[str, Any]) -> dict[str, Any]:
    return {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}


def refused_with(events: list[dict[str, Any]], text: str) -> None:
    result = tool_result(events)
    assert (result["content"], result["is_error"]) == (f"PreToolUse:Bash hook error: {text}", True)


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ("sys.stderr.write('boom\\nagain\\n'); sys.exit(1)", "\nboom\nagain"),
        ("sys.exit(3)", "\nNo stderr output"),
        ("print('{\"decision\": }')", "\nHook output looks like a JSON object but is not valid"),
        ('print(\'{"continue": "yes"}\')', "\nHook JSON output validation failed \u2014 "),
        ('print(\'{"systemMessage": "hi"}\'); sys.exit(1)', "\nNo stderr output"),
    ],
    ids=["exit-1", "exit-3", "bad-json", "bad-field", "exit-1-with-json"],
)
def test_a_failing_command_hook_set_to_block_refuses_the_tool(
    tmp_path: Path, isolated_home: Path, body: str, detail: str
) -> None:
    command = script(tmp_path, body)
    hook = {"type": "command", "command": command, "onFailure": "block"}
    events = run_as(ON_FAILURE_SINCE, tmp_path, isolated_home, pre_tool(hook), [TOUCH, DONE])
    result = tool_result(events)
    head = f"PreToolUse:Bash hook error: [{command}]: failed; {BLOCK}{detail}"
    assert result["content"].startswith(head) and result["is_error"]
    assert not (tmp_path / "project" / "ran").exists()


def test_the_same_failures_set_to_continue_let_the_tool_run(
    tmp_path: Path, isolated_home: Path
) -> None:
    failing = [
        {"type": "command", "command": script(tmp_path, "sys.exit(1)"), "onFailure": "continue"},
        {"type": "command", "command": script(tmp_path, "print('{x')")},
        {"type": "command", "command": "/nonexistent/hook", "args": [], "onFailure": "continue"},
    ]
    events = run_as(
        ON_FAILURE_SINCE,
        tmp_path,
        isolated_home,
        {"PreToolUse": [{"hooks": failing}]},
        [TOUCH, DONE],
    )
    assert not tool_result(events)["is_error"]
    assert (tmp_path / "project" / "ran").exists()


def test_a_hook_that_cannot_start_or_times_out_blocks(tmp_path: Path, isolated_home: Path) -> None:
    missing = {"type": "command", "command": "/nonexistent/hook", "args": [], "onFailure": "block"}
    events = run_as(ON_FAILURE_SINCE, tmp_path, isolated_home, pre_tool(missing), [TOUCH, DONE])
    assert tool_result(events)["content"].startswith(
        f"PreToolUse:Bash hook error: [/nonexistent/hook]: failed; {BLOCK}\ncannot run hook"
    )
    slow = script(tmp_path, "time.sleep(30)")
    hanging = {"type": "command", "command": slow, "timeout": 1, "onFailure": "block"}
    events = run_as(ON_FAILURE_SINCE, tmp_path, isolated_home, pre_tool(hanging), [TOUCH, DONE])
    refused_with(events, f"[{slow}]: timed out; {BLOCK}")
    assert not (tmp_path / "project" / "ran").exists()


def test_a_post_tool_use_failure_reaches_the_model_as_blocking_feedback(
    tmp_path: Path, isolated_home: Path
) -> None:
    command = script(tmp_path, "sys.stderr.write('lint crashed'); sys.exit(1)")
    hook = {"type": "command", "command": command, "onFailure": "block"}
    note = f'PostToolUse:Bash hook blocking error from command: "{command}": [{command}]: failed'
    turns: list[dict[str, Any]] = [TOUCH, {"match": re.escape(note), "content": "finished"}]
    events = run_as(
        ON_FAILURE_SINCE, tmp_path, isolated_home, {"PostToolUse": [{"hooks": [hook]}]}, turns
    )
    [end] = [e for e in events if e["type"] == "turn_end"]
    assert end["text"] == "finished"


def test_block_is_ignored_on_stop_and_for_async_hooks(tmp_path: Path, isolated_home: Path) -> None:
    failing = script(tmp_path, "sys.stderr.write('boom'); sys.exit(1)")
    hooks = {
        "PreToolUse": [
            {
                "hooks": [
                    {"type": "command", "command": failing, "async": True, "onFailure": "block"}
                ]
            }
        ],
        "Stop": [{"hooks": [{"type": "command", "command": failing, "onFailure": "block"}]}],
    }
    events = run_as(ON_FAILURE_SINCE, tmp_path, isolated_home, hooks, [TOUCH, DONE])
    assert not tool_result(events)["is_error"]
    [end] = [e for e in events if e["type"] == "turn_end"]
    assert (end["status"], end["text"]) == ("completed", "finished")


class _Endpoint(BaseHTTPRequestHandler):
    """Answers every POST with the status and body in the path: ``/<status>/<body>``."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        _, status, body = self.path.split("/", 2)
        data = body.encode()
        self.send_response(int(status))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.mark.parametrize(
    ("path", "detail"),
    [
        ("/500/oops", "\nHTTP 500 from {url}"),
        ("/200/plain", "\nHTTP hook must return JSON, but got non-JSON response body: plain"),
    ],
    ids=["status-500", "plain-text"],
)
def test_a_failing_http_hook_set_to_block_refuses_the_tool(
    tmp_path: Path, isolated_home: Path, endpoint: str, path: str, detail: str
) -> None:
    url = endpoint + path
    hook = {"type": "http", "url": url, "onFailure": "block"}
    events = run_as(ON_FAILURE_SINCE, tmp_path, isolated_home, pre_tool(hook), [TOUCH, DONE])
    refused_with(events, f"[{url}]: failed; {BLOCK}" + detail.format(url=url))
    assert not (tmp_path / "project" / "ran").exists()


def test_an_http_hook_that_answers_empty_lets_the_tool_run(
    tmp_path: Path, isolated_home: Path, endpoint: str
) -> None:
    hook = {"type": "http", "url": endpoint + "/200/", "onFailure": "block"}
    events = run_as(ON_FAILURE_SINCE, tmp_path, isolated_home, pre_tool(hook), [TOUCH, DONE])
    assert not tool_result(events)["is_error"]
    assert (tmp_path / "project" / "ran").exists()


def _parsed(handler: dict[str, Any], event: str = "PreToolUse") -> tuple[Any, list[str]]:
    result = parse_hooks({event: [{"hooks": [handler]}]}, "settings.json")
    configs = [h.config for h in result.handlers]
    return configs[0] if configs else None, [
        f"{d.severity}: {d.message}" for d in result.diagnostics
    ]


def test_an_unknown_on_failure_value_reads_as_block_with_an_error() -> None:
    config, notes = _parsed({"type": "command", "command": "x", "onFailure": "blok"})
    assert config.onFailure == "block"
    assert notes == [
        'error: onFailure must be "continue" or "block", got \'blok\'; hookwright reads it as '
        '"block", Claude Code ignores every hook of this file'
    ]
    mcp = {"type": "mcp_tool", "server": "s", "tool": "t", "onFailure": True}
    config, notes = _parsed(mcp)
    assert config.onFailure == "block"
    assert notes == ['warning: onFailure True is read as "block"']


@pytest.mark.parametrize(
    ("handler", "event", "blocks"),
    [
        ({"type": "command", "command": "x", "onFailure": "block"}, Event.PreToolUse, True),
        ({"type": "command", "command": "x"}, Event.PreToolUse, False),
        (
            {"type": "command", "command": "x", "async": True, "onFailure": "block"},
            Event.PreToolUse,
            False,
        ),
        ({"type": "command", "command": "x", "onFailure": "block"}, Event.Stop, False),
        ({"type": "http", "url": "http://h/", "onFailure": "block"}, Event.SubagentStop, False),
        ({"type": "http", "url": "http://h/", "onFailure": "block"}, Event.UserPromptSubmit, True),
        (
            {"type": "mcp_tool", "server": "s", "tool": "t", "onFailure": "block"},
            Event.SessionStart,
            False,
        ),
        (
            {"type": "mcp_tool", "server": "s", "tool": "t", "onFailure": "x"},
            Event.PreToolUse,
            True,
        ),
    ],
)
def test_where_on_failure_applies(handler: dict[str, Any], event: Event, blocks: bool) -> None:
    result = parse_hooks({event.value: [{"hooks": [handler]}]}, "settings.json")
    [parsed] = result.handlers
    assert blocks_on_failure(parsed.config, event) is blocks


@pytest.fixture
def servers(h: Harness) -> FakeServers:
    fake = FakeServers()
    h.engine.services = replace(h.engine.services, mcp=fake)
    return fake


MCP_HEAD = (
    f"[srv/check]: failed; {BLOCK} and the hook got no usable answer from its MCP server. "
    "The user needs to fix the cause (in a session, /mcp shows the server's state) or ask "
    "whoever manages the hook; Claude should not change the hook or work around it.\n"
)


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (None, "The call to the MCP server failed."),
        (McpToolReply("boom", is_error=True), "The MCP tool returned an error."),
        ("looks fine to me", "The MCP tool's answer is not a hook's JSON output, {} or empty."),
        ('{"verdict": "ok"}', "The MCP tool's answer is not a hook's JSON output, {} or empty."),
        (
            '{"decision": }',
            "The MCP tool's answer looks like JSON, but is not a valid hook output.",
        ),
    ],
    ids=["not-connected", "tool-error", "plain-text", "no-hook-field", "bad-json"],
)
async def test_an_mcp_tool_hook_set_to_block_refuses_without_the_servers_words(
    h: Harness, servers: FakeServers, reply: Any, why: str
) -> None:
    if reply is not None:
        servers.replies[("srv", "check")] = reply
    h.hooks({"PreToolUse": [{"hooks": [mcp_tool(onFailure="block")]}]})
    verdict = await h.fire_tool(command="ls")
    assert verdict.decision is Decision.deny
    assert verdict.reason == MCP_HEAD + why + MCP_DETAILS_LEFT_OUT
    assert verdict.effects.tool_message == f"PreToolUse:Bash hook error: {verdict.reason}"


async def test_an_mcp_tool_hook_answering_a_hook_field_or_nothing_does_not_block(
    h: Harness, servers: FakeServers
) -> None:
    h.hooks({"PreToolUse": [{"hooks": [mcp_tool(onFailure="block")]}]})
    for answer in ("", "{}", '{"systemMessage": "fine"}'):
        servers.replies[("srv", "check")] = answer
        verdict = await h.fire_tool(command="ls")
        assert verdict.decision is None, answer


async def test_an_mcp_tool_hook_ignores_block_on_session_start(
    h: Harness, servers: FakeServers
) -> None:
    h.hooks({"SessionStart": [{"hooks": [mcp_tool(onFailure="block")]}]})
    verdict = await h.fire("SessionStart", source="startup")
    assert verdict.decision is None and verdict.results[0].status is Status.error


async def test_a_failing_permission_request_hook_set_to_block_denies(h: Harness) -> None:
    command = h.emit(stderr="no answer", code=1)
    hook = cmd(command, onFailure="block")
    h.hooks(group("PermissionRequest", hook, matcher="Bash"))
    verdict = await h.fire_tool(Event.PermissionRequest, command="ls")
    reason = f"[{command}]: failed; {BLOCK}\nno answer"
    assert (verdict.decision, verdict.reason) == (Decision.deny, reason)
    assert verdict.effects.tool_message == reason
