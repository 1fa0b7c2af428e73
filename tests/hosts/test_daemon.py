"""The daemon path with recorded Claude Code payloads: a real `hookwright daemon` process
started on demand by the installed hooks, its real Unix socket and its real HTTP endpoint on
127.0.0.1; what Claude Code would read back from each."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from tests.bounds import eventually
from tests.hosts.conftest import alive
from tests.hosts.project import hook_input, make_project, run_installed

from cli_runner import run_cli
from hookwright.bridges import claude_client
from hookwright.bridges.daemon import peer_uid
from hookwright.config.trust import TrustStore
from hookwright.transports.adoption import MARKER

RM = {
    "tool_name": "Bash",
    "tool_input": {"command": "rm -rf build", "description": "clean"},
    "tool_use_id": "toolu_01",
}
DENY = {
    "hookEventName": "PreToolUse",
    "permissionDecision": "deny",
    "permissionDecisionReason": "rm -rf is not allowed here",
}
CONTEXT = {
    "hookEventName": "UserPromptSubmit",
    "additionalContext": "HOUSE-RULES: answer in one line.",
}


def hookwright(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(list(args), dict(os.environ), timeout=60)


def installed(project: Path, mode: str, *, trusted: bool = True) -> dict[str, Any]:
    if trusted:
        TrustStore(Path.home()).trust(project)
    done = hookwright("install", "claude-code", "--project", str(project), "--mode", mode)
    assert done.returncode == 0, done.stderr
    hooks: dict[str, Any] = json.loads((project / ".claude" / "settings.local.json").read_text())
    return {event: groups[0]["hooks"][0] for event, groups in hooks["hooks"].items()}


def run_command(hook: dict[str, Any], project: Path, event: str, **fields: Any) -> Any:
    assert hook["type"] == "command"
    done = run_installed(hook["command"], hook_input(project, event, **fields), project)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def daemon_status() -> dict[str, Any]:
    answer = claude_client.exchange(
        claude_client.socket_path(Path.home()), {"op": "status"}, b"", 30
    )
    data: dict[str, Any] = json.loads(answer["stdout"])
    return data


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "proj")


def test_command_client_answers_through_a_daemon_it_started(project: Path) -> None:
    hooks = installed(project, "command")
    assert "claude_client.py" in hooks["PreToolUse"]["command"]
    out = run_command(hooks["PreToolUse"], project, "PreToolUse", **RM)
    assert out["hookSpecificOutput"] == DENY
    out = run_command(hooks["UserPromptSubmit"], project, "UserPromptSubmit", prompt="hi")
    assert out["hookSpecificOutput"] == CONTEXT
    out = run_command(hooks["PreToolUse"], project, "PreToolUse", **{**RM, "tool_input": {}})
    assert "CLAUDE-HOOK-TWICE" not in json.dumps(out)
    status = daemon_status()
    assert status["projects"] == [str(project.resolve())]
    assert hookwright("daemon", "status").returncode == 0


def post(url: str, headers: dict[str, str], body: bytes) -> tuple[int, bytes]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=60)
    try:
        conn.request("POST", f"{parts.path}?{parts.query}", body, headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_http_hooks_answer_with_the_token_only(project: Path) -> None:
    hooks = installed(project, "http")
    assert hooks["SessionStart"]["type"] == "command"
    hook = hooks["PreToolUse"]
    assert hook["type"] == "http" and hook["url"].startswith("http://127.0.0.1:")
    run_command(hooks["SessionStart"], project, "SessionStart", source="startup")
    body = hook_input(project, "PreToolUse", **RM)
    status, answer = post(hook["url"], hook["headers"], body)
    assert status == 200 and json.loads(answer)["hookSpecificOutput"] == DENY
    prompt = hook_input(project, "UserPromptSubmit", prompt="hi")
    status, answer = post(hooks["UserPromptSubmit"]["url"], hook["headers"], prompt)
    assert json.loads(answer)["hookSpecificOutput"] == CONTEXT
    assert post(hook["url"], {}, body)[0] == 401
    assert post(hook["url"], {"Authorization": "Bearer wrong"}, body)[0] == 401
    rebound = {**hook["headers"], "Host": "attacker.example:80"}
    assert post(hook["url"], rebound, body)[0] == 403
    counts = daemon_status()
    assert counts["http_events"] >= 2 and counts["unix_events"] == 1
    mode = (project / ".claude" / "settings.local.json").stat().st_mode & 0o777
    assert mode == 0o600
    assert (Path.home() / ".hookwright" / "daemon.json").stat().st_mode & 0o777 == 0o600


def test_http_connection_is_kept_alive_across_events(project: Path) -> None:
    hooks = installed(project, "http")
    run_command(hooks["SessionStart"], project, "SessionStart", source="startup")
    hook = hooks["UserPromptSubmit"]
    parts = urlsplit(hook["url"])
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=60)
    try:
        for prompt in ("one", "two"):
            body = hook_input(project, "UserPromptSubmit", prompt=prompt)
            conn.request("POST", f"{parts.path}?{parts.query}", body, hook["headers"])
            response = conn.getresponse()
            assert json.loads(response.read())["hookSpecificOutput"] == CONTEXT
    finally:
        conn.close()


def test_untrusted_project_loads_nothing_and_says_so_at_session_start(project: Path) -> None:
    hooks = installed(project, "command", trusted=False)
    out = run_command(hooks["PreToolUse"], project, "PreToolUse", **RM)
    assert out == {}
    out = run_command(hooks["SessionStart"], project, "SessionStart", source="startup")
    assert "not trusted" in out["systemMessage"] and "hookwright trust" in out["systemMessage"]
    assert run_command(hooks["UserPromptSubmit"], project, "UserPromptSubmit", prompt="x") == {}
    assert not (project / ".hookwright" / "imported").exists()
    assert daemon_status()["projects"] == []


def test_untrust_closes_the_warm_project(project: Path) -> None:
    hooks = installed(project, "command")
    assert run_command(hooks["PreToolUse"], project, "PreToolUse", **RM)["hookSpecificOutput"]
    TrustStore(Path.home()).untrust(project)
    assert run_command(hooks["PreToolUse"], project, "PreToolUse", **RM) == {}
    assert daemon_status()["projects"] == []


def test_changed_python_hook_is_reloaded(project: Path) -> None:
    hooks = installed(project, "command")
    run_command(hooks["UserPromptSubmit"], project, "UserPromptSubmit", prompt="hi")
    rules = project / ".hookwright" / "rules.py"
    rules.write_text(rules.read_text().replace("answer in one line.", "answer in two lines!"))
    out = run_command(hooks["UserPromptSubmit"], project, "UserPromptSubmit", prompt="hi")
    assert out["hookSpecificOutput"]["additionalContext"] == "HOUSE-RULES: answer in two lines!"


def test_killed_daemon_is_restarted_over_its_stale_socket(project: Path) -> None:
    hooks = installed(project, "command")
    run_command(hooks["UserPromptSubmit"], project, "UserPromptSubmit", prompt="hi")
    first = daemon_status()["pid"]
    os.kill(first, signal.SIGKILL)
    assert eventually(lambda: not alive(first))
    assert claude_client.socket_path(Path.home()).exists()
    out = run_command(hooks["PreToolUse"], project, "PreToolUse", **RM)
    assert out["hookSpecificOutput"] == DENY
    assert daemon_status()["pid"] != first


def test_idle_daemon_exits(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOKWRIGHT_DAEMON_IDLE", "1")
    hooks = installed(project, "command")
    run_command(hooks["UserPromptSubmit"], project, "UserPromptSubmit", prompt="hi")
    sock = claude_client.socket_path(Path.home())
    pid_file = sock.with_name("daemon.pid")
    pid = int(pid_file.read_text())
    assert eventually(lambda: not alive(pid))
    assert not sock.exists() and not pid_file.exists()


def test_start_status_and_stop_from_the_command_line() -> None:
    started = hookwright("daemon", "start")
    assert started.returncode == 0, started.stderr
    assert "hookwright daemon running" in started.stdout
    status = json.loads(hookwright("daemon", "status", "--json").stdout)
    assert status["projects"] == [] and status["url"] is None
    assert hookwright("daemon", "start").stdout.splitlines()[0] == started.stdout.splitlines()[0]
    assert hookwright("daemon", "stop").returncode == 0
    assert eventually(lambda: not alive(status["pid"]))
    assert hookwright("daemon", "stop").stdout.strip() == "hookwright daemon not running"


def test_stop_ends_the_daemon(project: Path) -> None:
    hooks = installed(project, "command")
    run_command(hooks["UserPromptSubmit"], project, "UserPromptSubmit", prompt="hi")
    pid = daemon_status()["pid"]
    done = hookwright("daemon", "stop")
    assert done.returncode == 0 and f"pid {pid}" in done.stdout
    assert eventually(lambda: not alive(pid))
    assert hookwright("daemon", "status").returncode == 1


def test_client_falls_back_in_process_without_a_daemon(project: Path) -> None:
    hooks = installed(project, "command")
    blocked = claude_client.runtime_dir(Path.home())
    blocked.rmdir()
    blocked.write_text("not a folder")
    out = run_command(hooks["PreToolUse"], project, "PreToolUse", **RM)
    assert out["hookSpecificOutput"] == DENY
    blocked.unlink()


def test_runtime_folder_is_private(project: Path) -> None:
    hooks = installed(project, "command")
    run_command(hooks["UserPromptSubmit"], project, "UserPromptSubmit", prompt="hi")
    sock = claude_client.socket_path(Path.home())
    assert sock.parent.stat().st_mode & 0o777 == 0o700
    assert sock.stat().st_mode & 0o777 == 0o600


def test_peer_uid_is_the_connecting_process_user() -> None:
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        assert peer_uid(left) == os.getuid()


CHECK_IMPORTS = """
import runpy, sys
before = set(sys.modules)
runpy.run_path(sys.argv[1], run_name="client")
loaded = {name.split(".")[0] for name in set(sys.modules) - before}
print(sorted(n for n in loaded if n not in sys.stdlib_module_names and n != "client"))
"""


def test_client_imports_only_the_standard_library() -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", CHECK_IMPORTS, claude_client.__file__],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_client_and_engine_agree_on_the_hook_run_marker() -> None:
    assert claude_client.MARKER == MARKER


def raw_http(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=60) as conn:
        conn.sendall(request)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_http_front_refuses_what_is_not_a_hook_post(project: Path) -> None:
    hooks = installed(project, "http")
    run_command(hooks["SessionStart"], project, "SessionStart", source="startup")
    url = urlsplit(hooks["PreToolUse"]["url"])
    auth = hooks["PreToolUse"]["headers"]["Authorization"]
    assert url.port is not None
    head = f"Host: 127.0.0.1:{url.port}\r\nAuthorization: {auth}\r\nConnection: close\r\n"
    get = raw_http(url.port, f"GET {url.path} HTTP/1.1\r\n{head}\r\n".encode())
    assert get.startswith(b"HTTP/1.1 405 ")
    other = raw_http(url.port, f"POST /other HTTP/1.1\r\n{head}Content-Length: 0\r\n\r\n".encode())
    assert other.startswith(b"HTTP/1.1 404 ")
    post_xyz = f"POST {url.path} HTTP/1.1\r\n{head}Content-Length: 3\r\n\r\nxyz"
    bad = raw_http(url.port, post_xyz.encode())
    assert bad.startswith(b"HTTP/1.1 400 ") and b"not a JSON hook input" in bad
    assert raw_http(url.port, b"nonsense\r\n\r\n").startswith(b"HTTP/1.1 400 ")


def test_concurrent_http_events_get_their_own_answers(project: Path) -> None:
    hooks = installed(project, "http")
    run_command(hooks["SessionStart"], project, "SessionStart", source="startup")
    hook = hooks["PreToolUse"]
    commands = ["rm -rf a", "ls", "rm -rf b", "pwd", "rm -rf c", "true"]
    bodies = [
        hook_input(project, "PreToolUse", **{**RM, "tool_input": {"command": c}}) for c in commands
    ]
    with ThreadPoolExecutor(len(bodies)) as pool:
        answers = list(pool.map(lambda body: post(hook["url"], hook["headers"], body), bodies))
    for command, (status, answer) in zip(commands, answers, strict=True):
        denied = "deny" in answer.decode()
        assert status == 200 and denied == command.startswith("rm -rf"), (command, answer)
