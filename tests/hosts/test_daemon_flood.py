"""The daemon's http front under a hostile local peer: a real daemon started by `hookwright
daemon start`, attacked over real sockets on 127.0.0.1 (by this user, and by uid 65534 from a
forked child where the tests run as root), with short deadlines set through its environment.
Each attack checks what the attacker's sockets saw and that both fronts still answer."""

from __future__ import annotations

import collections
import http.client
import json
import os
import re
import resource
import select
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.bounds import GENEROUS_BOUND, SLOW, eventually
from tests.hosts.conftest import alive
from tests.hosts.project import hook_input, make_project
from tests.hosts.test_daemon import DENY, RM, daemon_status, hookwright, post

from hookwright.bridges import claude_client, tcp_peer
from hookwright.bridges.daemon_http import LIMIT_VARIABLES, MAX_BODY_BYTES
from hookwright.bridges.endpoint import HOOK_PATH, Endpoint, ensure_endpoint
from hookwright.config.trust import TrustStore

NOBODY = 65534


def start(monkeypatch: pytest.MonkeyPatch, nofile: int | None = None, **limits: str) -> int:
    """Start the daemon as the CLI does, with these http limits (and this descriptor limit,
    soft and hard); its pid."""
    for name, value in limits.items():
        monkeypatch.setenv(LIMIT_VARIABLES[name], value)

    def lower_limit() -> None:
        if nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    done = subprocess.run(
        [sys.executable, "-m", "hookwright", "daemon", "start"],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lower_limit,
    )
    assert done.returncode == 0, done.stderr
    pid: int = daemon_status()["pid"]
    return pid


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = make_project(tmp_path / "proj")
    TrustStore(Path.home()).trust(root)
    return root


@pytest.fixture
def endpoint() -> Endpoint:
    return ensure_endpoint(Path.home())


def unix_verdict(project: Path) -> Any:
    """A PreToolUse event answered over the Unix socket (the daemon runs the project's
    hook process for it)."""
    header = {"op": "hook", "project": str(project)}
    body = hook_input(project, "PreToolUse", **RM)
    answer = claude_client.exchange(claude_client.socket_path(Path.home()), header, body, 30)
    return json.loads(answer["stdout"])["hookSpecificOutput"]


def http_verdict(endpoint: Endpoint, project: Path) -> Any:
    """The same event over a fresh http connection with the token."""
    headers = {"Authorization": f"Bearer {endpoint.token}"}
    body = hook_input(project, "PreToolUse", **RM)
    status, answer = post(f"{endpoint.url}?project={project}", headers, body)
    assert status == 200, answer
    return json.loads(answer)["hookSpecificOutput"]


def connect(port: int) -> socket.socket:
    conn = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    conn.settimeout(GENEROUS_BOUND)
    conn.connect(("127.0.0.1", port))
    return conn


def read_until_closed(conn: socket.socket, deadline: float) -> tuple[bool, bytes]:
    """Whether the daemon closed `conn` before `deadline` (monotonic), and what it sent."""
    got = b""
    while True:
        conn.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = conn.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            return True, got
        except TimeoutError:
            return False, got
        if not chunk:
            return True, got
        got += chunk


def closed_soon(conn: socket.socket) -> tuple[bool, bytes]:
    return read_until_closed(conn, time.monotonic() + GENEROUS_BOUND)


def head_of(answer: bytes) -> tuple[int, dict[str, str]]:
    """The status and (lower-cased) headers of an HTTP answer."""
    head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    status = int(head[0].split(" ")[1])
    fields = (line.split(":", 1) for line in head[1:])
    return status, {name.strip().lower(): value.strip() for name, value in fields}


@dataclass(frozen=True)
class Pipes:
    """The two pipes between a test and its forked child."""

    report: int
    release: int

    def say(self, line: str) -> None:
        os.write(self.report, f"{line}\n".encode())

    def released(self, within: float | None = 0) -> bool:
        return bool(select.select([self.release], [], [], within)[0])


Work = Callable[[Pipes], None]


def hold_idle(port: int, count: int) -> Work:
    """Open `count` connections, say how many the daemon closed within the bound, and hold
    them until released."""

    def work(pipes: Pipes) -> None:
        conns = [connect(port) for _ in range(count)]
        pipes.say("opened")
        deadline = time.monotonic() + GENEROUS_BOUND
        pipes.say(str(sum(read_until_closed(conn, deadline)[0] for conn in conns)))
        pipes.released(None)

    return work


#: Connections a storm opens at most (each leaves a TIME_WAIT entry behind for a minute), and
#: the pause between two, so that it lasts while the test checks the fronts.
STORM = 5000
STORM_PAUSE = 0.001


def storm(port: int) -> Work:
    """Open connections one after another (holding the last 200), saying "opened" after the
    first 250, until released or `STORM` were opened; say how many."""

    def work(pipes: Pipes) -> None:
        held: list[socket.socket] = []
        count = 0
        while count < STORM and not pipes.released(STORM_PAUSE):
            held.append(connect(port))
            count += 1
            if len(held) > 200:
                held.pop(0).close()
            if count == 250:
                pipes.say("opened")
        pipes.released(None)
        pipes.say(str(count))

    return work


@contextmanager
def as_other_user(work: Work) -> Iterator[tuple[Callable[[], str], Callable[[], None]]]:
    """Run `work` in a forked child that became uid 65534; yields a function reading the
    child's next line after "opened", and one releasing it. The child is reaped at the end."""
    if os.geteuid() != 0:
        pytest.skip("acting as another user needs root (setuid 65534)")
    report_r, report_w = os.pipe()
    release_r, release_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        try:
            os.close(report_r)
            os.close(release_w)
            "127.0.0.1".encode("idna")  # codecs cannot be imported once the user changed
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            work(Pipes(report_w, release_r))
        finally:
            os._exit(0)
    os.close(report_w)
    os.close(release_r)
    try:
        with os.fdopen(report_r, "rb") as lines:
            if lines.readline() != b"opened\n":
                pytest.skip("uid 65534 could not open connections here")
            yield (lambda: lines.readline().decode().strip()), (lambda: os.write(release_w, b"x"))
    finally:
        os.close(release_w)
        os.waitpid(pid, 0)


def test_idle_flood_from_another_user_is_closed_and_both_fronts_keep_answering(
    project: Path, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    start(monkeypatch, idle="1", head="1")
    with as_other_user(hold_idle(endpoint.port, 250)) as (next_line, _):
        assert unix_verdict(project) == DENY
        assert next_line() == "250"
        assert http_verdict(endpoint, project) == DENY
    counts = daemon_status()
    assert counts["http_open"] == 0 and counts["unix_events"] == 1


def test_connection_storm_from_another_user_leaves_both_fronts_answering(
    project: Path, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    start(monkeypatch, idle="1")

    def arrived() -> int:
        status = daemon_status()
        return int(status["http_refused"] + status["http_connections"])

    assert unix_verdict(project) == DENY  # loaded: the checks below find the project warm
    with as_other_user(storm(endpoint.port)) as (next_line, release):
        before = arrived()
        for _ in range(3):
            assert unix_verdict(project) == DENY
            assert http_verdict(endpoint, project) == DENY
        during = arrived() - before - 3
        release()
        made = int(next_line())
    assert during > 0 and made > 250


def sock_diag_works() -> bool:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        client = connect(listener.getsockname()[1])
        with client, listener.accept()[0] as accepted:
            return tcp_peer.peer_uid(accepted) == os.getuid()


def test_another_users_connection_is_closed_at_once_not_at_a_deadline(
    project: Path, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not sock_diag_works():
        pytest.skip("this kernel does not name the owner of a loopback socket (sock_diag)")
    start(monkeypatch, idle=str(SLOW), head=str(SLOW), connections="4")
    with as_other_user(hold_idle(endpoint.port, 20)) as (next_line, _):
        assert next_line() == "20"
        assert http_verdict(endpoint, project) == DENY
    status = daemon_status()
    assert status["http_refused"] == 20 and status["http_connections"] == 1


def test_connections_over_the_cap_are_refused_at_once_and_idle_ones_closed(
    project: Path, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    start(monkeypatch, idle="1", connections="8")
    idle = [connect(endpoint.port) for _ in range(8)]
    assert eventually(lambda: daemon_status()["http_open"] == 8)
    extra = [connect(endpoint.port) for _ in range(20)]
    for conn in extra:
        closed, answer = closed_soon(conn)
        status, fields = head_of(answer)
        assert closed and status == 503 and fields["connection"] == "close"
    assert unix_verdict(project) == DENY
    assert all(closed_soon(conn) == (True, b"") for conn in idle)
    assert http_verdict(endpoint, project) == DENY
    shown = hookwright("daemon", "status").stdout
    assert "http limits: 8 connections open at most (" in shown
    assert " now, 20 refused at once); idle 1.0 s, head 5.0 s, body 10.0 s" in shown
    for conn in idle + extra:
        conn.close()


def request_head(endpoint: Endpoint, project: Path, length: int, **fields: str) -> bytes:
    headers = {
        "Host": f"127.0.0.1:{endpoint.port}",
        "Authorization": f"Bearer {endpoint.token}",
        "Content-Type": "application/json",
        "Content-Length": str(length),
        **fields,
    }
    lines = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    return f"POST {HOOK_PATH}?project={project} HTTP/1.1\r\n{lines}\r\n".encode()


def test_kept_alive_connection_is_closed_after_the_idle_time(
    project: Path, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    start(monkeypatch, idle="1")
    body = hook_input(project, "PreToolUse", **RM)
    with connect(endpoint.port) as conn:
        conn.sendall(request_head(endpoint, project, len(body)) + body)
        answer = b""
        while not re.search(rb"\r\n\r\n.*\}", answer, re.S):
            answer += conn.recv(65536)
        status, fields = head_of(answer)
        assert status == 200 and fields["keep-alive"] == "timeout=1"
        assert closed_soon(conn) == (True, b"")


def test_slowloris_head_is_cut_at_the_head_deadline(
    endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    start(monkeypatch, head="1", idle=str(SLOW))
    dribble = b"POST /hookwright/claude-code/hook HTTP/1.1\r\nX-Slow: " + b"a" * 1000
    began = time.monotonic()
    with connect(endpoint.port) as conn:
        sent = 0
        conn.settimeout(SLOW / len(dribble))
        while sent < len(dribble):
            with suppress(BrokenPipeError, ConnectionResetError):
                sent += conn.send(dribble[sent : sent + 1])
            try:
                conn.recv(1, socket.MSG_PEEK)
            except TimeoutError:
                continue
            except ConnectionResetError:
                pass
            break
        closed, answer = closed_soon(conn)
    assert closed and head_of(answer)[0] == 408
    assert sent < len(dribble) and time.monotonic() - began < 1 + GENEROUS_BOUND


def test_slow_body_is_cut_at_the_body_deadline(
    project: Path, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    start(monkeypatch, body="1")
    with connect(endpoint.port) as conn:
        conn.sendall(request_head(endpoint, project, 100) + b'{"hook_event_name"')
        closed, answer = closed_soon(conn)
    assert closed and head_of(answer)[0] == 408


def body_sent_before_failure(conn: socket.socket, length: int) -> int:
    """How much of a `length`-byte body goes out before the connection fails."""
    conn.settimeout(GENEROUS_BOUND)
    chunk, sent = b"x" * 65536, 0
    with suppress(OSError):
        while sent < length:
            sent += conn.send(chunk[: length - sent])
    return sent


@pytest.mark.parametrize(
    ("fields", "length", "status"),
    [
        ({"Authorization": "Bearer wrong"}, 8 * 1024 * 1024, 401),
        ({"Host": "attacker.example"}, 8 * 1024 * 1024, 403),
        ({"Authorization": "Bearer wrong"}, 1 << 40, 401),
        ({}, MAX_BODY_BYTES + 1, 413),
        ({"Transfer-Encoding": "chunked"}, 8 * 1024 * 1024, 411),
    ],
    ids=["wrong-token", "wrong-host", "wrong-token-huge", "over-the-cap", "chunked"],
)
def test_refused_head_is_answered_before_and_without_its_body(
    project: Path,
    endpoint: Endpoint,
    monkeypatch: pytest.MonkeyPatch,
    fields: dict[str, str],
    length: int,
    status: int,
) -> None:
    start(monkeypatch, body=str(SLOW))
    with connect(endpoint.port) as conn:
        conn.sendall(request_head(endpoint, project, length, **fields))
        closed, answer = closed_soon(conn)
        assert closed and head_of(answer)[0] == status
        assert head_of(answer)[1]["connection"] == "close"
        assert body_sent_before_failure(conn, 8 * 1024 * 1024) < 8 * 1024 * 1024
    assert http_verdict(endpoint, project) == DENY


def test_flood_at_a_small_descriptor_limit_leaves_the_unix_front_answering(
    project: Path, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    pid = start(monkeypatch, nofile=64, idle="1")
    assert daemon_status()["http_limits"]["connections"] == 64 // 4
    flood = [connect(endpoint.port) for _ in range(200)]
    counts = ("http_connections", "http_refused")
    assert eventually(lambda: sum(daemon_status()[name] for name in counts) == 200)
    assert daemon_status()["http_refused"] > 0
    for _ in range(3):
        assert unix_verdict(project) == DENY
    assert all(closed_soon(conn)[0] for conn in flood)
    assert http_verdict(endpoint, project) == DENY
    log = (claude_client.runtime_dir(Path.home()) / "daemon.log").read_text()
    assert "Too many open files" not in log and alive(pid)
    for conn in flood:
        conn.close()


def test_daemon_raises_its_descriptor_soft_limit_to_the_hard_one() -> None:
    hard = min(resource.getrlimit(resource.RLIMIT_NOFILE)[1], 10_000)

    def soft_64() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))

    done = subprocess.run(
        [sys.executable, "-m", "hookwright", "daemon", "start"],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=soft_64,
    )
    assert done.returncode == 0, done.stderr
    status = daemon_status()
    limits = Path(f"/proc/{status['pid']}/limits").read_text()
    assert re.search(rf"Max open files\s+{hard}\s+{hard}\s", limits), limits
    assert status["http_limits"]["connections"] == min(128, hard // 4)


def test_bad_limit_settings_are_named_and_the_defaults_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    start(monkeypatch, idle="soon", head="-1", body="nan", connections="1.5")
    status = daemon_status()
    assert status["http_limits"] == {"idle": 5.0, "head": 5.0, "body": 10.0, "connections": 128}
    log = (claude_client.runtime_dir(Path.home()) / "daemon.log").read_text()
    for variable in LIMIT_VARIABLES.values():
        assert f"hookwright daemon: {variable}=" in log


#: Concurrent clients of one overload (as many Claude Code sessions), and how many of them
#: come through the Unix socket (command mode) instead of http.
OVERLOAD_CLIENTS = 150
OVERLOAD_UNIX = 30


def open_descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def http_answer(endpoint: Endpoint, project: Path) -> str:
    """How the daemon answered one guarded `rm -rf build` over a fresh connection: "deny",
    "allow" (a 2xx without a denial: the guard did not hold), or "failure" (a non-2xx status
    or a connection that failed, which Claude Code reports as a hook error)."""
    headers = {"Authorization": f"Bearer {endpoint.token}"}
    try:
        status, answer = post(f"{endpoint.url}?project={project}", headers, guarded_rm(project))
    except (OSError, http.client.HTTPException):
        return "failure"
    if not 200 <= status < 300:
        return "failure"
    return "deny" if b'"permissionDecision":"deny"' in answer.replace(b" ", b"") else "allow"


def unix_answer(project: Path) -> str:
    """The same over the Unix socket: a non-zero exit or a failed exchange is a failure."""
    header = {"op": "hook", "project": str(project)}
    path = claude_client.socket_path(Path.home())
    try:
        answer = claude_client.exchange(path, header, guarded_rm(project), SLOW)
    except (OSError, ValueError):
        return "failure"
    if answer.get("exit") != 0:
        return "failure"
    return (
        "deny" if b'"permissionDecision":"deny"' in answer["stdout"].replace(b" ", b"") else "allow"
    )


def guarded_rm(project: Path) -> bytes:
    return hook_input(project, "PreToolUse", **RM)


def overload(endpoint: Endpoint, project: Path) -> collections.Counter[str]:
    """`OVERLOAD_CLIENTS` guarded events at once; how they were answered."""

    def one(index: int) -> str:
        return unix_answer(project) if index < OVERLOAD_UNIX else http_answer(endpoint, project)

    with ThreadPoolExecutor(OVERLOAD_CLIENTS) as pool:
        return collections.Counter(pool.map(one, range(OVERLOAD_CLIENTS)))


def test_overload_never_allows_the_guarded_call_and_releases_every_descriptor(
    project: Path, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    pid = start(monkeypatch, nofile=96)
    assert unix_verdict(project) == DENY and http_verdict(endpoint, project) == DENY
    baseline = open_descriptors(pid)
    for _ in range(2):
        answers = overload(endpoint, project)
        assert answers["allow"] == 0, answers
        assert answers["failure"] > 0, answers
        assert eventually(lambda: abs(open_descriptors(pid) - baseline) <= 2), (
            baseline,
            sorted(os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")),
        )
    assert unix_verdict(project) == DENY and http_verdict(endpoint, project) == DENY
    assert alive(pid)


def test_a_flood_at_a_low_descriptor_limit_gets_an_answer_or_a_clear_refusal(
    project: Path, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Out of descriptors, the front answers each guarded call: a denial, or a 5xx naming
    why; none is allowed, none is left waiting."""
    pid = start(monkeypatch, nofile=48, connections="64")
    headers = {"Authorization": f"Bearer {endpoint.token}"}

    def one(_: int) -> tuple[int, bytes]:
        return post(f"{endpoint.url}?project={project}", headers, guarded_rm(project))

    with ThreadPoolExecutor(100) as pool:
        answers = list(pool.map(one, range(100)))
    statuses = collections.Counter(status for status, _ in answers)
    for status, body in answers:
        if status == 200:
            assert b'"permissionDecision":"deny"' in body.replace(b" ", b"")
        else:
            assert status in (500, 503) and body.startswith(b"hookwright"), (status, body)
    assert statuses[200] > 0 and statuses[503] > 0, statuses
    assert http_verdict(endpoint, project) == DENY and alive(pid)


#: A front whose process has no descriptor left but its reserve: it prints its port, then
#: fills the descriptor table and serves.
OUT_OF_DESCRIPTORS = """
import asyncio, os, sys
from hookwright.bridges.daemon_http import DEFAULT_LIMITS, HttpFront
from hookwright.bridges.endpoint import Endpoint

async def never(*_):
    raise AssertionError("no request may be answered")

async def main():
    front = HttpFront.listen(Endpoint(0, "t"), never, DEFAULT_LIMITS, {"http_refused": 0})
    print(front._listener.getsockname()[1], flush=True)
    held = []
    try:
        while True:
            held.append(os.open(os.devnull, os.O_RDONLY))
    except OSError:
        pass
    await asyncio.sleep(30)

asyncio.run(main())
"""


def test_out_of_descriptors_a_connection_is_answered_503_not_left_waiting() -> None:
    server = subprocess.Popen(
        [sys.executable, "-c", OUT_OF_DESCRIPTORS],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64)),
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        with socket.create_connection(("127.0.0.1", port), timeout=GENEROUS_BOUND) as conn:
            answer = conn.recv(4096)
        assert answer.startswith(b"HTTP/1.1 503 ")
        assert answer.endswith(b"hookwright: out of descriptors, try again\n")
    finally:
        server.kill()
        server.wait()
