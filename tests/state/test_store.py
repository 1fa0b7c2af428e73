"""The state store's backends and its reading of hook answers, attacked: hostile updates,
expiry by an injected clock, the SQLite file's privacy, and concurrent writers in several
processes (no lost increments)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookwright.config.state_setting import StateSetting, choose_state
from hookwright.core.state import MAX_KEY, StateError, parse_update
from hookwright.engine.state import StateStore, store_for

from .redis_server import redis_server


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "sqlite", "redis"])
def setting(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StateSetting]:
    if request.param == "memory":
        yield StateSetting("memory")
    elif request.param == "sqlite":
        yield StateSetting("sqlite", str(tmp_path / "state" / "state.db"))
    else:
        with redis_server(tmp_path / "redis") as url:
            yield StateSetting("redis", url)


HOSTILE = [
    ({"incr": {"k" * (MAX_KEY + 1): 1}}, "bad key"),
    ({"incr": {"a b": 1}}, "bad key"),
    ({"set": {"v": "x" * 5000}}, "longer than"),
    ({"set": {"v": {"deep": [[[[{}]]]]}}}, "expected a string, number"),
    ({"incr": {"n": "1"}}, "expected an integer"),
    ({"incr": {"n": True}}, "expected an integer"),
    ({"incr": {"n": 2**60}}, "expected an integer"),
    ({"add": {"s": [1, 2]}}, "array of strings"),
    ({"add": {"s": ["m"] * 2000}}, "more than"),
    ({"ttl": {"n": -1}}, "seconds above 0"),
    ({"ttl": {"n": float("inf")}}, "seconds above 0"),
    ({"delete": "n"}, "expected an array"),
    ({"bogus": {}}, "unknown operation"),
    ([1, 2], "expected an object"),
    ({"set": {f"k{i}": 1 for i in range(300)}}, "more than"),
]


@pytest.mark.parametrize(("raw", "words"), HOSTILE)
def test_a_hostile_update_is_one_line_and_stores_nothing(
    raw: object, words: str, setting: StateSetting
) -> None:
    store = store_for(setting)
    try:
        store.change("s", {"incr": {"kept": 1}})
        with pytest.raises(StateError) as caught:
            store.change("s", raw)
        assert words in str(caught.value) and "\n" not in str(caught.value)
        assert len(str(caught.value)) < 200
        assert store.snapshot("s") == {"kept": 1}
    finally:
        store.close()


def test_a_kind_clash_stores_nothing_of_the_update(setting: StateSetting) -> None:
    store = store_for(setting)
    try:
        store.change("s", {"add": {"seen": ["a"]}})
        with pytest.raises(StateError, match="holds a set, not a counter"):
            store.change("s", {"set": {"flag": True}, "incr": {"seen": 1}})
        assert store.snapshot("s") == {"seen": ["a"]}
    finally:
        store.close()


def test_entries_expire_by_the_injected_clock(setting: StateSetting) -> None:
    clock = Clock()
    store = store_for(setting, clock)
    try:
        state = store.session("s")
        assert state.incr("denials", ttl=60) == 1
        state.set("secret_read")
        state.add("hosts", "a.example", ttl=10)
        clock.now += 30
        assert state.snapshot() == {"denials": 1, "secret_read": True}
        assert state.incr("denials") == 2, "a live entry keeps counting, and keeps its expiry"
        clock.now += 31
        assert state.count("denials") == 0 and state.has("secret_read")
        assert state.incr("denials") == 1, "an expired counter starts again"
        assert store.session("other").snapshot() == {}
    finally:
        store.close()


def test_the_sqlite_file_is_private(tmp_path: Path) -> None:
    os.umask(0o022)
    path = tmp_path / "home" / ".hookwright" / "state.db"
    store = store_for(StateSetting("sqlite", str(path)))
    store.change("s", {"set": {"flag": True}})
    store.close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_the_sqlite_file_is_never_opened_through_a_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim.db"
    victim.write_bytes(b"precious")
    path = tmp_path / "state.db"
    path.symlink_to(victim)
    store = store_for(StateSetting("sqlite", str(path)))
    with pytest.raises(OSError):
        store.change("s", {"set": {"flag": True}})
    store.close()
    assert victim.read_bytes() == b"precious"


def test_no_file_until_the_state_is_used(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    store = store_for(StateSetting("sqlite", str(path)))
    store.close()
    assert not path.exists()


WRITER = """\
import sys
from hookwright.config.state_setting import StateSetting
from hookwright.engine.state import store_for

store = store_for(StateSetting(sys.argv[1], sys.argv[2]))
state = store.session("shared")
for _ in range(int(sys.argv[3])):
    state.incr("calls")
    state.add("writers", sys.argv[4])
store.close()
"""


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_concurrent_writers_lose_no_increment(backend: str, tmp_path: Path) -> None:
    processes, rounds = 4, 60

    def run(kind: str, location: str) -> None:
        writers = [
            subprocess.Popen(
                [sys.executable, "-c", WRITER, kind, location, str(rounds), f"w{i}"],
                stderr=subprocess.PIPE,
            )
            for i in range(processes)
        ]
        for writer in writers:
            _, err = writer.communicate(timeout=120)
            assert writer.returncode == 0, err.decode()
        store = store_for(StateSetting(kind, location))  # type: ignore[arg-type]
        try:
            assert store.snapshot("shared") == {
                "calls": processes * rounds,
                "writers": [f"w{i}" for i in range(processes)],
            }
        finally:
            store.close()

    if backend == "sqlite":
        run("sqlite", str(tmp_path / "state.db"))
    else:
        with redis_server(tmp_path / "redis") as url:
            run("redis", url)


def test_the_setting_comes_from_the_environment_then_the_user_settings(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert choose_state(home, {}) == (
        StateSetting("sqlite", str(home / ".hookwright" / "state.db")),
        [],
    )
    (home / ".hookwright").mkdir(parents=True)
    settings = {"state": {"backend": "redis", "url": "redis://10.0.0.5:6379/2"}}
    (home / ".hookwright" / "settings.json").write_text(json.dumps(settings))
    assert choose_state(home, {})[0] == StateSetting("redis", "redis://10.0.0.5:6379/2")
    env = {"HOOKWRIGHT_STATE": "sqlite:/var/tmp/s.db"}
    assert choose_state(home, env)[0] == StateSetting("sqlite", "/var/tmp/s.db")
    bad, problems = choose_state(home, {"HOOKWRIGHT_STATE": "mongodb://x"})
    assert bad.backend == "redis" and problems == [
        "$HOOKWRIGHT_STATE: expected sqlite, sqlite:PATH, memory or a redis:// URL, "
        "got 'mongodb://x'"
    ]


def test_parse_update_reads_every_operation() -> None:
    update = parse_update(
        {
            "incr": {"n": 2},
            "set": {"f": True, "why": "read .env"},
            "add": {"hosts": "a", "tags": ["x", "y"]},
            "delete": ["old"],
            "ttl": {"n": 5},
        }
    )
    assert update.keys == {"n", "f", "why", "hosts", "tags", "old"}
    assert StateStore().session(None).incr("n") == 1
