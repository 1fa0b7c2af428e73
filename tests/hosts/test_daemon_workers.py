"""The daemon's http workers (`HOOKWRIGHT_DAEMON_WORKERS`): real daemon and worker processes
sharing the endpoint's port; which process answered each event is what a Python hook in the
project reports (its pid). A worker killed mid-event leaves its client without an answer (a
hook error for Claude Code, never "ok"), is replaced, and no worker outlives the daemon."""

from __future__ import annotations

import http.client
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from tests.bounds import GENEROUS_BOUND, SLOW, eventually
from tests.hosts.conftest import alive, daemon_pids
from tests.hosts.project import hook_input, make_project
from tests.hosts.test_daemon import DENY, daemon_status, hookwright, installed, run_command
from tests.hosts.test_daemon_flood import (
    Pipes,
    Work,
    as_other_user,
    connect,
    hold_idle,
    http_verdict,
    read_until_closed,
    start,
    unix_verdict,
)

from hookwright.bridges.claude_client import hookwright_command
from hookwright.bridges.daemon_http import BUSY
from hookwright.bridges.daemon_pool import (
    DEFAULT_MAX_WORKERS,
    MAX_WORKERS,
    WORKER_BOOT,
    WORKERS_VARIABLE,
    default_workers,
    endpoint_digest,
    worker_count,
)
from hookwright.bridges.endpoint import Endpoint, ensure_endpoint
from hookwright.config.trust import TrustStore

HOOKS_YAML = "hooks:\n  - name: whoami\n    event: UserPromptSubmit\n    call: whoami:whoami\n"
#: Says which process answered; when the prompt is "hold", writes that pid to `held` and
#: waits for `release` (at most a minute) before answering.
WHOAMI_PY = """\
import os, time
from pathlib import Path
from hookwright import add_context

HERE = Path(__file__).parent


def whoami(inp):
    if inp.payload.get("prompt") == "hold":
        (HERE / "held").write_text(str(os.getpid()))
        deadline = time.monotonic() + 60
        while not (HERE / "release").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
    return add_context(f"PID {os.getpid()}")
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(WORKERS_VARIABLE, "3")
    root = tmp_path / "proj"
    (root / ".hookwright").mkdir(parents=True)
    (root / ".hookwright" / "hooks.yaml").write_text(HOOKS_YAML)
    (root / ".hookwright" / "whoami.py").write_text(WHOAMI_PY)
    return root


def serving(project: Path) -> dict[str, Any]:
    """The http hook of an installed, started project, once its two workers listen."""
    hooks = installed(project, "http")
    run_command(hooks["SessionStart"], project, "SessionStart", source="startup")
    assert eventually(lambda: len(daemon_status()["workers"]) == 2)
    hook: dict[str, Any] = hooks["UserPromptSubmit"]
    return hook


def ask(hook: dict[str, Any], project: Path, prompt: str = "hi") -> int:
    """The pid that answered one event sent on a new connection."""
    parts = urlsplit(hook["url"])
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=60)
    try:
        body = hook_input(project, "UserPromptSubmit", prompt=prompt)
        conn.request("POST", f"{parts.path}?{parts.query}", body, hook["headers"])
        response = conn.getresponse()
        answer = response.read()
        assert response.status == 200, answer
    finally:
        conn.close()
    context = json.loads(answer)["hookSpecificOutput"]["additionalContext"]
    return int(context.removeprefix("PID "))


def every_pid() -> list[int]:
    status = daemon_status()
    return [int(status["pid"]), *status["workers"]]


def test_events_are_answered_by_the_daemon_and_its_workers_and_stop_leaves_none(
    project: Path,
) -> None:
    hook = serving(project)
    pids = every_pid()
    answered = {ask(hook, project) for _ in range(40)}
    assert answered <= set(pids) and len(answered) > 1
    assert "http workers: 2 beside the daemon" in hookwright("daemon", "status").stdout
    assert hookwright("daemon", "stop").returncode == 0
    assert eventually(lambda: not any(alive(pid) for pid in pids))


def test_status_counts_the_events_its_workers_answered(project: Path) -> None:
    """Every event answered over http is counted, whichever process the kernel gave its
    connection to (the daemon counted only its own: a status that said 0 while workers
    answered)."""
    hook = serving(project)
    before = daemon_status()["http_events"]
    daemon = every_pid()[0]
    answered = [ask(hook, project) for _ in range(30)]
    assert any(pid != daemon for pid in answered)  # the workers answered some
    assert eventually(lambda: daemon_status()["http_events"] - before == len(answered))
    assert f"{before + len(answered)} over http" in hookwright("daemon", "status").stdout


def test_a_worker_killed_mid_event_leaves_its_client_unanswered_and_is_replaced(
    project: Path,
) -> None:
    hook = serving(project)
    daemon, workers = every_pid()[0], set(every_pid()[1:])
    held, release = project / ".hookwright" / "held", project / ".hookwright" / "release"
    for _ in range(40):  # until the held event lands on a worker, not on the daemon
        outcome: list[BaseException | int] = []

        def send(outcome: list[BaseException | int] = outcome) -> None:
            try:
                outcome.append(ask(hook, project, "hold"))
            except BaseException as exc:  # the connection reset: what the client sees
                outcome.append(exc)

        sender = threading.Thread(target=send)
        sender.start()
        assert eventually(held.exists)
        assert eventually(lambda: held.read_text() != "")
        pid = int(held.read_text())
        held.unlink()
        if pid in workers:
            os.kill(pid, signal.SIGKILL)
            sender.join(GENEROUS_BOUND * 6)
            break
        release.touch()
        sender.join(GENEROUS_BOUND * 6)
        release.unlink()
    else:
        pytest.fail("no held event reached a worker")
    assert len(outcome) == 1 and isinstance(outcome[0], (OSError, http.client.HTTPException))
    assert eventually(lambda: len(set(daemon_status()["workers"]) - workers) == 1)
    assert every_pid()[0] == daemon and len(daemon_status()["workers"]) == 2
    answered = {ask(hook, project) for _ in range(10)}
    assert answered <= set(every_pid())


def test_workers_end_with_a_killed_daemon(project: Path, runtime_dir: Path) -> None:
    serving(project)
    pids = every_pid()
    [daemon] = daemon_pids(runtime_dir)
    os.kill(daemon, signal.SIGKILL)
    assert eventually(lambda: not any(alive(pid) for pid in pids), GENEROUS_BOUND * 2)


@pytest.mark.parametrize(("value", "count"), [("1", 1), ("4", 4), (str(MAX_WORKERS), MAX_WORKERS)])
def test_worker_count_is_read_from_the_environment(value: str, count: int) -> None:
    assert worker_count({WORKERS_VARIABLE: value}) == count


@pytest.mark.parametrize(
    ("cores", "count"), [(1, 1), (2, 2), (DEFAULT_MAX_WORKERS, DEFAULT_MAX_WORKERS), (96, 4)]
)
def test_the_default_is_one_process_per_core_the_daemon_may_run_on_at_most_four(
    cores: int, count: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(100, 100 + cores)))
    assert DEFAULT_MAX_WORKERS == 4
    assert worker_count({}) == default_workers() == count


@pytest.mark.parametrize("value", ["0", "-2", "two", "", str(MAX_WORKERS + 1)])
def test_a_bad_worker_count_is_named_and_the_default_kept(
    value: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2})
    assert worker_count({WORKERS_VARIABLE: value}) == 3
    assert f"{WORKERS_VARIABLE}={value!r}" in capsys.readouterr().err


def test_without_the_variable_the_daemon_serves_from_one_process_per_core(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(WORKERS_VARIABLE)
    hooks = installed(project, "http")
    run_command(hooks["SessionStart"], project, "SessionStart", source="startup")
    extra = default_workers() - 1
    assert eventually(lambda: len(daemon_status()["workers"]) == extra)
    pids = every_pid()
    answered = {ask(hooks["UserPromptSubmit"], project) for _ in range(40)}
    assert answered <= set(pids) and len(answered) == min(2, len(pids))
    assert hookwright("daemon", "stop").returncode == 0
    assert eventually(lambda: not any(alive(pid) for pid in pids))


#: Appends its process's pid to `loads` each time it is imported (a project loaded afresh).
COUNTING_PY = """\
import os
from pathlib import Path
from hookwright import add_context

with (Path(__file__).parent.parent.parent / "loads").open("a") as loads:
    loads.write(f"{os.getpid()} {Path(__file__).parent.parent.name}\\n")


def whoami(inp):
    return add_context(f"PID {os.getpid()}")
"""


def test_each_process_keeps_its_own_bound_on_loaded_projects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With one project loaded at most, a process answering two projects in turns on one
    kept-alive connection loads each afresh every time: a worker keeps the bound too."""
    monkeypatch.setenv(WORKERS_VARIABLE, "2")
    monkeypatch.setenv("HOOKWRIGHT_DAEMON_PROJECTS", "1")
    roots = [tmp_path / name for name in ("a", "b")]
    for root in roots:
        (root / ".hookwright").mkdir(parents=True)
        (root / ".hookwright" / "hooks.yaml").write_text(HOOKS_YAML)
        (root / ".hookwright" / "whoami.py").write_text(COUNTING_PY)
    hooks = {root: installed(root, "http")["UserPromptSubmit"] for root in roots}
    run_command(installed(roots[0], "http")["SessionStart"], roots[0], "SessionStart")
    assert eventually(lambda: len(daemon_status()["workers"]) == 1)
    worker = daemon_status()["workers"][0]
    for _ in range(40):  # new connections until one lands on the worker
        parts = urlsplit(hooks[roots[0]]["url"])
        conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=60)
        pids = [_ask_on(conn, hooks[root], root) for root in roots * 3]
        conn.close()
        if set(pids) == {worker}:
            break
    else:
        pytest.fail("no connection reached the worker")
    loads = (tmp_path / "loads").read_text().split("\n")
    by_worker = [line.split()[1] for line in loads if line.startswith(f"{worker} ")]
    assert by_worker[-6:] == ["a", "b"] * 3


def _ask_on(conn: http.client.HTTPConnection, hook: dict[str, Any], project: Path) -> int:
    """The pid that answered one event of `project` sent on the kept-alive `conn`."""
    parts = urlsplit(hook["url"])
    body = hook_input(project, "UserPromptSubmit", prompt="hi")
    conn.request("POST", f"{parts.path}?{parts.query}", body, hook["headers"])
    response = conn.getresponse()
    answer = response.read()
    assert response.status == 200, answer
    context = json.loads(answer)["hookSpecificOutput"]["additionalContext"]
    return int(context.removeprefix("PID "))


def bind_shared(port: int) -> Work:
    """Try to join the daemon's port group (`SO_REUSEPORT`) and say whether it was let in."""

    def work(pipes: Pipes) -> None:
        pipes.say("opened")
        try:
            socket.create_server(("127.0.0.1", port), reuse_port=True).close()
        except OSError:
            pipes.say("refused")
        else:
            pipes.say("bound")

    return work


@pytest.fixture
def endpoint() -> Endpoint:
    return ensure_endpoint(Path.home())


@pytest.fixture
def guarded(tmp_path: Path) -> Path:
    root = make_project(tmp_path / "guarded")
    TrustStore(Path.home()).trust(root)
    return root


def test_another_user_is_closed_by_every_worker_and_cannot_join_the_port(
    guarded: Path, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(WORKERS_VARIABLE, "3")
    start(monkeypatch, idle=str(SLOW), head=str(SLOW), connections="4")
    assert eventually(lambda: len(daemon_status()["workers"]) == 2)
    with as_other_user(hold_idle(endpoint.port, 30)) as (next_line, _):
        assert next_line() == "30"
        assert http_verdict(endpoint, guarded) == DENY
    with as_other_user(bind_shared(endpoint.port)) as (next_line, _):
        assert next_line() == "refused"


def test_a_flood_meets_each_workers_cap_and_the_fronts_keep_answering(
    guarded: Path, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(WORKERS_VARIABLE, "2")
    start(monkeypatch, idle=str(SLOW), head=str(SLOW), connections="4")
    assert eventually(lambda: len(daemon_status()["workers"]) == 1)
    flood = [connect(endpoint.port) for _ in range(40)]
    try:
        deadline = time.monotonic() + GENEROUS_BOUND
        seen = [read_until_closed(conn, deadline) for conn in flood]
        refused = sum(closed and answer.startswith(BUSY) for closed, answer in seen)
        held = sum(not closed for closed, _ in seen)
        # At most 4 open per process (two processes), every other one refused at once.
        assert held <= 8 and refused == 40 - held
        assert unix_verdict(guarded) == DENY
    finally:
        for conn in flood:
            conn.close()
    assert eventually(lambda: _answers(endpoint, guarded))


def _answers(endpoint: Endpoint, project: Path) -> bool:
    try:
        return bool(http_verdict(endpoint, project) == DENY)
    except (OSError, AssertionError, http.client.HTTPException):
        return False


def test_an_idle_daemon_takes_its_workers_with_it(
    endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(WORKERS_VARIABLE, "2")
    monkeypatch.setenv("HOOKWRIGHT_DAEMON_IDLE", "2")
    start(monkeypatch)
    assert eventually(lambda: len(daemon_status()["workers"]) == 1)
    pids = every_pid()
    assert eventually(lambda: not any(alive(pid) for pid in pids), GENEROUS_BOUND * 3)


def open_files_limit(pid: int) -> tuple[str, str]:
    """The soft and hard limits on open descriptors of process `pid`."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return soft, hard
    raise AssertionError(f"no descriptor limit for {pid}")


def test_the_daemon_and_its_workers_run_at_the_raised_descriptor_limit(project: Path) -> None:
    low, before = 256, resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (low, before[1]))  # what the daemon inherits
    try:
        serving(project)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, before)
    for pid in every_pid():
        soft, hard = open_files_limit(pid)
        assert soft == hard or (hard == "unlimited" and int(soft) > low)


def test_a_worker_command_line_names_the_endpoint_by_digest_never_by_token(
    project: Path, endpoint: Endpoint
) -> None:
    serving(project)
    for pid in daemon_status()["workers"]:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        assert endpoint_digest(endpoint).encode() in command
        assert not any(endpoint.token.encode() in part for part in command)


def test_a_worker_serves_only_the_endpoint_its_daemon_read(endpoint: Endpoint) -> None:
    ours, theirs = socket.socketpair()
    other = Endpoint(endpoint.port, "x" * 43)
    command = hookwright_command(
        sys.executable, str(theirs.fileno()), endpoint_digest(other), boot=WORKER_BOOT
    )
    worker = subprocess.Popen(command, pass_fds=(theirs.fileno(),), stderr=subprocess.PIPE)
    theirs.close()
    try:
        assert worker.stderr is not None
        line = worker.stderr.readline().decode()
        assert line == "hookwright http worker: the stored endpoint changed; not serving\n"
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", endpoint.port), timeout=GENEROUS_BOUND)
        ours.close()  # the daemon gone: the worker exits
        assert worker.wait(timeout=GENEROUS_BOUND * 2) == 0
    finally:
        ours.close()
        if worker.poll() is None:
            worker.kill()
            worker.wait()
        if worker.stderr is not None:
            worker.stderr.close()
