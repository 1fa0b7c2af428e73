"""The session state in a SQLite file, for the processes of one machine.

The file is created private (0600, in a 0700 folder, never through a link) by the project's
one private-file writer before SQLite opens it; SQLite makes its write-ahead log and shared
memory files with the same mode. The journal is in WAL mode, so readers never wait for a
writer, and each change is one ``BEGIN IMMEDIATE`` transaction: the write lock is taken before
the entries are read, so concurrent writers in several processes never lose an update. The
connection opens on first use: a session whose hooks never touch the state creates no file
(and loads neither SQLite nor the state's entries and rules, `hookwright.core.state`).
"""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from pathlib import Path

from hookwright.config.private_files import touch_private

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

    from hookwright.core.state import Entry, StateUpdate

#: How long a writer waits for another's lock before the change fails (seconds).
BUSY_TIMEOUT = 30.0
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS entries (session TEXT NOT NULL, key TEXT NOT NULL,"
    " entry TEXT NOT NULL, PRIMARY KEY (session, key)) WITHOUT ROWID"
)


class SqliteBackend:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._connection: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            touch_private(self.path)
            if not stat.S_ISREG(os.lstat(self.path).st_mode):
                raise OSError(f"{self.path}: not a regular file")
            self._connection = _open(self.path)
        return self._connection

    def read(self, session: str) -> dict[str, Entry]:
        with self._lock:
            rows = self._connect().execute(
                "SELECT key, entry FROM entries WHERE session = ?", (session,)
            )
            return _entries(rows.fetchall())

    def change(self, session: str, update: StateUpdate, now: float) -> dict[str, Entry]:
        from hookwright.core.state import apply_update

        with self._lock:
            connection = self._connect()
            connection.execute("BEGIN IMMEDIATE")
            try:
                rows = connection.execute(
                    "SELECT key, entry FROM entries WHERE session = ?", (session,)
                ).fetchall()
                entries = _entries(rows)
                for key, entry in apply_update(entries, update, now).items():
                    _write(connection, session, key, entry)
                    if entry is None:
                        entries.pop(key, None)
                    else:
                        entries[key] = entry
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
            return entries

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None


def _open(path: Path) -> sqlite3.Connection:
    """A connection to `path` in WAL mode with the table made. Processes opening a new file
    at once each read it, then want it alone to turn on WAL: SQLite answers one of them
    "locked" at once rather than wait (they would wait for each other), so the setup is
    tried again until `BUSY_TIMEOUT`. SQLite loads here, with the first use of the state."""
    import random
    import sqlite3

    deadline = time.monotonic() + BUSY_TIMEOUT
    while True:
        connection = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
        )
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute(_SCHEMA)
        except sqlite3.OperationalError as exc:
            connection.close()
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(random.uniform(0.005, 0.05))
        else:
            return connection


def _entries(rows: list[tuple[str, str]]) -> dict[str, Entry]:
    from hookwright.core.state import entry_from_json

    found: dict[str, Entry] = {}
    for key, text in rows:
        entry = entry_from_json(json.loads(text))
        if entry is not None:
            found[key] = entry
    return found


def _write(connection: sqlite3.Connection, session: str, key: str, entry: Entry | None) -> None:
    if entry is None:
        connection.execute("DELETE FROM entries WHERE session = ? AND key = ?", (session, key))
        return
    from hookwright.core.state import entry_to_json

    connection.execute(
        "INSERT OR REPLACE INTO entries (session, key, entry) VALUES (?, ?, ?)",
        (session, key, json.dumps(entry_to_json(entry), separators=(",", ":"))),
    )
