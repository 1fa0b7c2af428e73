"""The per-session state hooks share: what an update is, how it is read from a hook's answer
and how it changes a session's entries.

A session's state is a set of named entries, each one of three kinds: a counter (an int
changed by `incr`), a value (a JSON scalar put by `set`; a flag is ``true``) or a set (strings
joined by `add`). Any entry can carry a time to live; an expired entry reads as absent. Every
backend (memory, SQLite, a Redis-protocol server) stores `Entry` records and changes them with
`apply_update` inside one atomic read-modify-write, so the rules live here once.

Hook answers are hostile: `parse_update` bounds every part of one (key names, value sizes,
operation counts, set sizes, TTLs) and refuses anything else whole, with a one-line reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Literal, TypeAlias

Kind: TypeAlias = "Literal['counter', 'value', 'set']"
Scalar = str | int | float | bool | None
StateValue = int | Scalar | tuple[str, ...]

#: A key: letters, digits and ``_ . : -``, at most this long.
MAX_KEY: Final = 128
#: (Compiled at its first use, by `re`, not at import.)
KEY_PATTERN: Final = r"[A-Za-z0-9_.:-]{1,128}"
#: The longest string value or set member.
MAX_STRING: Final = 1024
#: Operations one update may carry (incr + set + add members + delete + ttl).
MAX_OPERATIONS: Final = 256
#: Members one set may hold; entries one session may hold.
MAX_MEMBERS: Final = 1000
MAX_ENTRIES: Final = 1000
#: Counters stay exact JSON integers.
MAX_COUNTER: Final = 2**53
#: The longest time to live: 30 days.
MAX_TTL: Final = 30 * 86400.0
OPERATIONS: Final = ("incr", "set", "add", "delete", "ttl")


class StateError(ValueError):
    """An update that cannot be applied; the message is one line, without the hook's name."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One stored entry: its kind, its value (an int, a scalar, or sorted members) and when it
    expires (seconds since the epoch; None: never)."""

    kind: Kind
    value: StateValue
    expires: float | None = None

    def live(self, now: float) -> bool:
        return self.expires is None or self.expires > now


@dataclass(frozen=True, slots=True)
class StateUpdate:
    """What one hook asks to change, already checked: counters to add to, values to put,
    members to add, keys to delete, and times to live (seconds from now) for keys."""

    incr: tuple[tuple[str, int], ...] = ()
    set: tuple[tuple[str, Scalar], ...] = ()
    add: tuple[tuple[str, tuple[str, ...]], ...] = ()
    delete: tuple[str, ...] = ()
    ttl: tuple[tuple[str, float], ...] = ()

    @property
    def keys(self) -> frozenset[str]:
        named = [k for k, _ in self.incr] + [k for k, _ in self.set] + [k for k, _ in self.add]
        return frozenset([*named, *self.delete, *(k for k, _ in self.ttl)])


def parse_update(raw: object) -> StateUpdate:
    """A hook's ``state`` answer (``{"incr": {...}, "set": {...}, "add": {...}, "delete":
    [...], "ttl": {...}}``) as a `StateUpdate`; raises `StateError` for anything else."""
    if not isinstance(raw, dict):
        raise StateError(f"expected an object, got {_type(raw)}")
    unknown = sorted(str(k)[:40] for k in raw if k not in OPERATIONS)
    if unknown:
        raise StateError(f"unknown operation {unknown[0]!r} (known: {', '.join(OPERATIONS)})")
    update = StateUpdate(
        incr=tuple((k, _delta(k, v)) for k, v in _pairs(raw, "incr")),
        set=tuple((k, _scalar(k, v)) for k, v in _pairs(raw, "set")),
        add=tuple((k, _members(k, v)) for k, v in _pairs(raw, "add")),
        delete=_delete_keys(raw.get("delete", [])),
        ttl=tuple((k, _ttl(k, v)) for k, v in _pairs(raw, "ttl")),
    )
    count = len(update.incr) + len(update.set) + len(update.delete) + len(update.ttl)
    if count + sum(len(m) for _, m in update.add) > MAX_OPERATIONS:
        raise StateError(f"more than {MAX_OPERATIONS} operations")
    return update


def _type(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    return names.get(type(value), type(value).__name__ if value is not None else "null")


def _pairs(raw: Mapping[str, object], operation: str) -> list[tuple[str, object]]:
    body = raw.get(operation, {})
    if not isinstance(body, dict):
        raise StateError(f"{operation}: expected an object, got {_type(body)}")
    if len(body) > MAX_OPERATIONS:
        raise StateError(f"{operation}: more than {MAX_OPERATIONS} keys")
    return [(_key(f"{operation}", k), v) for k, v in body.items()]


def _key(where: str, key: object) -> str:
    if not isinstance(key, str) or re.fullmatch(KEY_PATTERN, key) is None:
        shown = repr(key[:40] + "...") if isinstance(key, str) and len(key) > 40 else repr(key)
        raise StateError(
            f"{where}: bad key {shown} (letters, digits and _ . : - only, at most {MAX_KEY})"
        )
    return key


def _delta(key: str, value: object) -> int:
    if type(value) is not int or abs(value) > MAX_COUNTER:
        raise StateError(f"incr.{key}: expected an integer of at most 2**53, got {_type(value)}")
    return value


def _scalar(key: str, value: object) -> Scalar:
    if value is None or type(value) in (bool, int):
        if type(value) is int and abs(value) > MAX_COUNTER:
            raise StateError(f"set.{key}: integer larger than 2**53")
        return value  # type: ignore[return-value]
    if type(value) is float:
        import math  # here: a state value is rarely a float

        if not math.isfinite(value):
            raise StateError(f"set.{key}: expected a finite number")
        return value
    if type(value) is str:
        return _string(f"set.{key}", value)
    raise StateError(f"set.{key}: expected a string, number, boolean or null, got {_type(value)}")


def _string(where: str, value: str) -> str:
    if len(value) > MAX_STRING:
        raise StateError(f"{where}: string longer than {MAX_STRING} characters")
    return value


def _members(key: str, value: object) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(m, str) for m in items):
        raise StateError(f"add.{key}: expected a string or an array of strings")
    if len(items) > MAX_MEMBERS:
        raise StateError(f"add.{key}: more than {MAX_MEMBERS} members")
    return tuple(_string(f"add.{key}", m) for m in items)


def _delete_keys(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise StateError(f"delete: expected an array of keys, got {_type(value)}")
    if len(value) > MAX_OPERATIONS:
        raise StateError(f"delete: more than {MAX_OPERATIONS} keys")
    return tuple(_key("delete", k) for k in value)


def _ttl(key: str, value: object) -> float:
    if type(value) not in (int, float) or not 0 < value <= MAX_TTL:  # type: ignore[operator]
        raise StateError(f"ttl.{key}: expected seconds above 0 and at most {int(MAX_TTL)}")
    return float(value)  # type: ignore[arg-type]


def apply_update(
    entries: Mapping[str, Entry], update: StateUpdate, now: float
) -> dict[str, Entry | None]:
    """The entries `update` changes (None: deleted), from a session's current `entries`, at
    time `now`; raises `StateError` when a key holds another kind or a bound would be passed.
    Expired entries count as absent."""
    current = {k: e for k, e in entries.items() if e.live(now)}
    changed: dict[str, Entry | None] = {k: None for k in entries if k not in current}
    for key in update.delete:
        current.pop(key, None)
        changed[key] = None
    for key, delta in update.incr:
        held = _held(current, key, "counter", 0)
        total = (held if isinstance(held, int) else 0) + delta
        if abs(total) > MAX_COUNTER:
            raise StateError(f"incr.{key}: counter would pass 2**53")
        changed[key] = current[key] = _kept(current, key, "counter", total)
    for key, scalar in update.set:
        _held(current, key, "value", None)
        changed[key] = current[key] = _kept(current, key, "value", scalar)
    for key, members in update.add:
        held = _held(current, key, "set", ())
        joined = tuple(sorted({*(held if isinstance(held, tuple) else ()), *members}))
        if len(joined) > MAX_MEMBERS:
            raise StateError(f"add.{key}: the set would hold more than {MAX_MEMBERS} members")
        changed[key] = current[key] = _kept(current, key, "set", joined)
    for key, seconds in update.ttl:
        entry = current.get(key)
        if entry is not None:
            changed[key] = current[key] = Entry(entry.kind, entry.value, now + seconds)
    if len(current) > MAX_ENTRIES:
        raise StateError(f"the session would hold more than {MAX_ENTRIES} entries")
    return changed


def _held(current: Mapping[str, Entry], key: str, kind: Kind, empty: StateValue) -> StateValue:
    entry = current.get(key)
    if entry is None:
        return empty
    if entry.kind != kind:
        raise StateError(f"{key!r} holds a {entry.kind}, not a {kind}")
    return entry.value


def _kept(current: Mapping[str, Entry], key: str, kind: Kind, value: StateValue) -> Entry:
    old = current.get(key)
    return Entry(kind, value, old.expires if old is not None else None)


def snapshot(entries: Mapping[str, Entry], now: float) -> dict[str, int | Scalar | list[str]]:
    """The live entries as JSON: counters as ints, values as they are, sets as sorted lists."""
    return {
        key: list(e.value) if isinstance(e.value, tuple) else e.value
        for key, e in sorted(entries.items())
        if e.live(now)
    }


def entry_to_json(entry: Entry) -> dict[str, object]:
    """An entry as stored by the backends that keep JSON text."""
    value = list(entry.value) if isinstance(entry.value, tuple) else entry.value
    return {"k": entry.kind, "v": value, "e": entry.expires}


def entry_from_json(data: object) -> Entry | None:
    """An entry read back (None: not one this version wrote)."""
    if not isinstance(data, dict) or data.get("k") not in ("counter", "value", "set"):
        return None
    kind, value, expires = data["k"], data.get("v"), data.get("e")
    if not (expires is None or type(expires) in (int, float)):
        return None
    if kind == "set":
        if not isinstance(value, list):
            return None
        value = tuple(str(m) for m in value)
    return Entry(kind, value, expires)
