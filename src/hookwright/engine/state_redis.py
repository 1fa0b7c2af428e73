"""The session state on a Redis-protocol server (Redis or Valkey), for a fleet of machines.

Each session is one hash, ``hookwright:state:<session id>``, one field per entry (the entry as
JSON). A change is an optimistic transaction: WATCH the hash, read it, compute the change
with the shared rules, and write it in MULTI/EXEC; when another writer changed the hash in
between, the server refuses the EXEC and the change is computed again, so no update is lost.
Needs the `redis` client (``pip install 'hookwright[redis]'``); the connection opens on first
use.
"""

from __future__ import annotations

import json
from typing import Any

from hookwright.core.state import (
    Entry,
    StateUpdate,
    apply_update,
    entry_from_json,
    entry_to_json,
)

PREFIX = "hookwright:state:"
#: Seconds a connection attempt or a reply may take.
SOCKET_TIMEOUT = 10.0


class RedisBackend:
    def __init__(self, url: str) -> None:
        self.url = url
        self._client: Any = None

    def _connect(self) -> Any:
        if self._client is None:
            try:
                import redis
            except ImportError:
                raise OSError(
                    "the redis state backend needs the redis client: "
                    "pip install 'hookwright[redis]'"
                ) from None
            self._client = redis.Redis.from_url(
                self.url, socket_timeout=SOCKET_TIMEOUT, socket_connect_timeout=SOCKET_TIMEOUT
            )
        return self._client

    def read(self, session: str) -> dict[str, Entry]:
        return _entries(self._connect().hgetall(PREFIX + session))

    def change(self, session: str, update: StateUpdate, now: float) -> dict[str, Entry]:
        name = PREFIX + session
        after: dict[str, Entry] = {}

        def attempt(pipe: Any) -> None:
            entries = _entries(pipe.hgetall(name))
            changed = apply_update(entries, update, now)
            pipe.multi()
            for key, entry in changed.items():
                if entry is None:
                    pipe.hdel(name, key)
                    entries.pop(key, None)
                else:
                    pipe.hset(name, key, json.dumps(entry_to_json(entry), separators=(",", ":")))
                    entries[key] = entry
            after.clear()
            after.update(entries)

        self._connect().transaction(attempt, name)
        return after

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def _entries(raw: dict[bytes, bytes]) -> dict[str, Entry]:
    found: dict[str, Entry] = {}
    for key, text in raw.items():
        try:
            entry = entry_from_json(json.loads(text))
        except ValueError:
            continue
        if entry is not None:
            found[key.decode("utf-8", "replace")] = entry
    return found
