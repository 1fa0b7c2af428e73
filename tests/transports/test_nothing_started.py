"""`nothing_started_since`: the check that lets a warm hook's end skip the leftover hunt must
never miss a live process started after the hook, including one started while it looks."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Callable, Container, Iterator

import pytest

from hookwright.transports import groups


def _exited_leader() -> int:
    leader = subprocess.Popen([sys.executable, "-c", "pass"])
    leader.wait()
    return leader.pid


@contextlib.contextmanager
def _sleeping() -> Iterator[subprocess.Popen[bytes]]:
    """A live process, started now (so its pid comes after every one started before)."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    with _sleeping() as proc:
        yield proc


def test_a_live_process_started_after_the_leader_is_seen() -> None:
    leader = _exited_leader()
    with _sleeping():
        assert not groups.nothing_started_since(leader, frozenset())


def test_a_process_started_while_it_looks_is_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    """A descendant forks its successor and exits while the pids are looked at: the first
    look covers the pids up to the exited one, the next, over the pids allocated meanwhile,
    finds the successor."""
    leader = _exited_leader()
    exited = _exited_leader()
    with _sleeping() as successor:
        _looks_twice(monkeypatch, leader, exited, successor.pid)


def _looks_twice(monkeypatch: pytest.MonkeyPatch, leader: int, exited: int, pid: int) -> None:
    assert leader < exited < pid
    reads = iter([exited])
    real = groups.last_pid
    monkeypatch.setattr(groups, "last_pid", lambda: next(reads, None) or real())
    monkeypatch.setattr(groups, "_gone_or_known", _only_past(leader, groups._gone_or_known))
    assert not groups.nothing_started_since(leader, frozenset())


RangeCheck = Callable[[int, int, Container[int]], bool]


def _only_past(leader: int, check: RangeCheck) -> RangeCheck:
    """`check` with whatever else the machine started in the first range ignored, so the
    first look finds nothing, as in the race it stands for."""

    def checked(since: int, last: int, known: Container[int]) -> bool:
        return True if since == leader else check(since, last, known)

    return checked


def test_known_processes_do_not_count(
    monkeypatch: pytest.MonkeyPatch, sleeper: subprocess.Popen[bytes]
) -> None:
    monkeypatch.setattr(groups, "last_pid", lambda: sleeper.pid)
    assert groups._gone_or_known(sleeper.pid - 1, sleeper.pid, {sleeper.pid})
    assert not groups._gone_or_known(sleeper.pid - 1, sleeper.pid, frozenset())
    assert groups.nothing_started_since(sleeper.pid - 1, {sleeper.pid})


def test_a_wrapped_pid_counter_is_not_trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(groups, "last_pid", lambda: 5)
    assert not groups.nothing_started_since(1_000, frozenset())
