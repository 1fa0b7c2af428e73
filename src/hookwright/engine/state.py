"""The session state store hooks read and update (`Services.state`), and the view a Python
hook gets of it (`SessionState`).

A `StateStore` is a backend plus a clock. Backends (`MemoryBackend` here; SQLite and a
Redis-protocol server in `state_sqlite` and `state_redis`) do two things, each atomic against
every other writer: `read` a session's entries and `change` them by one `StateUpdate`, whose
rules (`hookwright.core.state.apply_update`) are the same for all. A session is named by its
id, so the state of a resumed session is the state it left. The entries, updates and their
rules (`hookwright.core.state`) load with the first read or change: a session whose hooks
never touch the state does not load them.

A Python hook asks for it with a keyword-only parameter ``state``: ``def guard(inp, *,
state)`` gets the `SessionState` of the input's session. Command hooks update it through
their answers (``{"hookwright": {"state": {...}}}``) and read it when they opt in; see
docs/state.md.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from hookwright.config.state_setting import StateSetting
    from hookwright.core.state import Entry, Scalar, StateError, StateUpdate

Clock = Callable[[], float]
#: The session name of inputs that carry no session id.
NO_SESSION = "-"


#: A protocol, for the type checker alone (a process that answers one event loads no
#: `typing`): `MemoryBackend` and the SQLite and Redis backends follow it.
if TYPE_CHECKING:

    class StateBackend(Protocol):
        """Where entries are kept. Both methods are atomic against every other writer, in this
        process and in others sharing the backend."""

        def read(self, session: str) -> dict[str, Entry]: ...

        def change(self, session: str, update: StateUpdate, now: float) -> dict[str, Entry]:
            """Apply `update` (raising `StateError` and storing nothing when it cannot apply);
            returns the session's entries after it."""
            ...

        def close(self) -> None: ...


class MemoryBackend:
    """Entries in this process only: the default of a bare `Services()`, gone with it."""

    def __init__(self) -> None:
        self._sessions: dict[str, dict[str, Entry]] = {}
        self._lock = threading.Lock()

    def read(self, session: str) -> dict[str, Entry]:
        with self._lock:
            return dict(self._sessions.get(session, {}))

    def change(self, session: str, update: StateUpdate, now: float) -> dict[str, Entry]:
        from hookwright.core.state import apply_update

        with self._lock:
            entries = self._sessions.setdefault(session, {})
            for key, entry in apply_update(entries, update, now).items():
                if entry is None:
                    entries.pop(key, None)
                else:
                    entries[key] = entry
            return dict(entries)

    def close(self) -> None:
        """Nothing to release."""


class StateStore:
    """A backend and the clock its times to live are read by (injectable for tests)."""

    __slots__ = ("backend", "clock")

    def __init__(self, backend: StateBackend | None = None, clock: Clock = time.time) -> None:
        self.backend: StateBackend = backend if backend is not None else MemoryBackend()
        self.clock = clock

    def session(self, session_id: str | None) -> SessionState:
        return SessionState(self, session_id or NO_SESSION)

    def snapshot(self, session_id: str | None) -> dict[str, object]:
        """The session's live entries as JSON (what an opted-in command hook is given)."""
        from hookwright.core.state import snapshot

        return dict(snapshot(self.backend.read(session_id or NO_SESSION), self.clock()))

    def change(self, session_id: str | None, raw: object) -> None:
        """Apply a hook's raw ``state`` answer; raises `StateError` and stores nothing when it
        is malformed or cannot apply."""
        from hookwright.core.state import parse_update

        self.backend.change(session_id or NO_SESSION, parse_update(raw), self.clock())

    def close(self) -> None:
        self.backend.close()


class SessionState:
    """One session's state, as a Python hook uses it. Each call is one atomic change or
    read; `ttl` (seconds) sets the entry's time to live."""

    __slots__ = ("_session", "_store")

    def __init__(self, store: StateStore, session: str) -> None:
        self._store = store
        self._session = session

    def _change(self, update: StateUpdate, ttl: float | None, key: str) -> Entry | None:
        from hookwright.core.state import StateUpdate, parse_update

        if ttl is not None:
            update = StateUpdate(update.incr, update.set, update.add, update.delete, ((key, ttl),))
        checked = parse_update(_as_raw(update))
        entries = self._store.backend.change(self._session, checked, self._store.clock())
        return entries.get(key)

    def _live(self) -> Mapping[str, Entry]:
        now = self._store.clock()
        return {k: e for k, e in self._store.backend.read(self._session).items() if e.live(now)}

    def incr(self, key: str, by: int = 1, *, ttl: float | None = None) -> int:
        """Add `by` to the counter `key` (absent: 0) and return its new value."""
        entry = self._change(_update(incr=((key, by),)), ttl, key)
        return int(entry.value) if entry is not None else 0  # type: ignore[arg-type]

    def set(self, key: str, value: Scalar = True, *, ttl: float | None = None) -> None:
        """Put a value (a flag by default) at `key`."""
        self._change(_update(set=((key, value),)), ttl, key)

    def add(self, key: str, *members: str, ttl: float | None = None) -> frozenset[str]:
        """Add `members` to the set `key`; returns the set after."""
        entry = self._change(_update(add=((key, members),)), ttl, key)
        return frozenset(entry.value) if entry is not None else frozenset()  # type: ignore[arg-type]

    def delete(self, *keys: str) -> None:
        self._change(_update(delete=keys), None, "")

    def get(self, key: str, default: object = None) -> object:
        """The live value at `key` (a set as a frozenset), or `default`."""
        entry = self._live().get(key)
        if entry is None:
            return default
        return frozenset(entry.value) if entry.kind == "set" else entry.value  # type: ignore[arg-type]

    def count(self, key: str) -> int:
        """The counter `key` (0 when absent or expired)."""
        value = self.get(key, 0)
        return value if type(value) is int else 0

    def has(self, key: str, member: str | None = None) -> bool:
        """Whether `key` is set (and truthy), or holds `member` when one is given."""
        value = self.get(key)
        if member is not None:
            return isinstance(value, frozenset) and member in value
        return bool(value)

    def snapshot(self) -> dict[str, object]:
        return self._store.snapshot(self._session)


def store_for(setting: StateSetting, clock: Clock = time.time) -> StateStore:
    """The store a setting names (`hookwright.config.state_setting.choose_state`); nothing is
    opened or created before the first read or change."""
    if setting.backend == "sqlite":
        from hookwright.engine.state_sqlite import SqliteBackend

        return StateStore(SqliteBackend(Path(setting.location)), clock)
    if setting.backend == "redis":
        from hookwright.engine.state_redis import RedisBackend

        return StateStore(RedisBackend(setting.location), clock)
    return StateStore(MemoryBackend(), clock)


def _update(**operations: Any) -> StateUpdate:
    """A `StateUpdate` of `operations` (the state's rules load with a hook's first change)."""
    from hookwright.core.state import StateUpdate

    return StateUpdate(**operations)


def _as_raw(update: StateUpdate) -> dict[str, object]:
    """An update in its answer form, so a Python hook's values pass the same checks."""
    return {
        "incr": dict(update.incr),
        "set": dict(update.set),
        "add": {k: list(m) for k, m in update.add},
        "delete": list(update.delete),
        "ttl": dict(update.ttl),
    }


def __getattr__(name: str) -> Any:
    """`StateError`, kept here for those who import it from this module, loaded on first use."""
    if name == "StateError":
        from hookwright.core.state import StateError

        return StateError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "MemoryBackend",
    "SessionState",
    "StateError",
    "StateStore",
    "store_for",
]
