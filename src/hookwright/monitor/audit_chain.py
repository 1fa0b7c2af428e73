"""The audit file as a hash chain, rotated by size and by age.

Every line ends with ``"prev": "<sha256 hex>"``, the SHA-256 of the bytes of the line before
it (newline included). The first line of each file also holds ``"genesis"``: the hash of the
last line of the file it continues (the one rotation renamed away), or ``""`` where a chain
starts; its ``prev`` is `genesis_hash` of that value, the file's own genesis. So an edited,
deleted, inserted or reordered line breaks the chain at the next line, a file's first lines
cannot be cut off unseen, and rotation carries the chain from file to file
(`hookwright audit verify`).

Several processes append to one file (each Claude Code event is a process of its own): each
append holds an exclusive `flock` on the file while it reads the hash of the last line and
writes its lines. A writer remembers the hash and the size it left the file at, so it reads
the file's tail only when another process wrote in between.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from hookwright.config.private_files import open_append
from hookwright.core.digests import sha256_function, sha256_hex

_GENESIS_PREFIX = b"hookwright audit genesis\n"
_PREV = b', "prev": "'
_CLOSE = b'"}\n'
_TAIL_BLOCK = 65536
#: Lines joined into one write (some 100 KB, which stays in the allocator's reused memory).
_CHUNK_LINES = 200
#: How the file is rotated: oldest name dropped, the rest shifted up (`audit.rotate`).
Rotate = Callable[[Path, int], None]


def genesis_hash(after: str) -> str:
    """The `prev` of a file's first line: derived from the hash it continues from."""
    return sha256_hex(_GENESIS_PREFIX + after.encode("ascii", "replace"))


def line_hash(line: bytes) -> str:
    return sha256_hex(line)


@dataclass(slots=True)
class RotationRule:
    """When the current file is renamed away: at `max_bytes` (0: never by size), when its
    first record is `max_age` seconds old (0: never by age), or at the first write of a new
    UTC day (`daily`). `keep` rotated files are kept."""

    max_bytes: int
    keep: int
    max_age: float = 0.0
    daily: bool = False

    def due(self, size: int, started: float | None, now: float) -> bool:
        if size == 0:
            return False
        if self.max_bytes > 0 and size >= self.max_bytes:
            return True
        if started is None:
            return False
        if self.max_age > 0 and now - started >= self.max_age:
            return True
        return self.daily and int(now // 86400) != int(started // 86400)


class ChainedFile:
    """Appends lines to the audit file, each closed with the hash of the line before it.
    Used by the audit's writer thread only (or by the thread that flushes an audit without
    one).

    The file stays open from one append to the next while records keep coming (`release`
    closes it when the writer finds nothing to write, and when the audit closes): a batch
    costs its lock, two status reads and its writes, not the open and the checks of a new
    descriptor. Every append still locks the file and compares the name's inode (not
    following a link) with the descriptor's, and opens the name again, as a link-safe
    private file, when it was rotated, removed or replaced meanwhile; a process forked from
    this one opens its own."""

    def __init__(self, path: Path, rule: RotationRule, rotate: Rotate) -> None:
        self.path = path
        self.rule = rule
        self._rotate = rotate
        self._name = os.fspath(path)
        #: The open file and the process that opened it.
        self._fd: int | None = None
        self._pid = 0
        #: (inode, size) the file had after this writer's last append, with its last hash.
        self._left: tuple[int, int] | None = None
        self._last = ""
        #: (inode, time of the file's first record), read once per file for age rotation
        #: (again while the file is empty; a first line with no time means no age).
        self._started: tuple[int, float | None] | None = None

    def append(self, bodies: Sequence[bytes]) -> None:
        """Write one line per body (a JSON object without its closing brace)."""
        if not bodies:
            return
        fd, info = self._locked()
        try:
            if self._rotation_due(fd, info):
                fd, info = self._rotated()
            self._write(fd, info, bodies)
        except BaseException:
            self.release()
            raise
        fcntl.flock(fd, fcntl.LOCK_UN)

    def release(self) -> None:
        """Close the file (and so release its lock) until the next append."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def _locked(self) -> tuple[int, os.stat_result]:
        """The current file, locked, with its status: the one kept open when its name still
        leads to it, else the name opened again."""
        while True:
            if self._pid != os.getpid():
                # A forked process's copy: closing it leaves the parent's lock alone.
                self.release()
            fd = self._fd
            if fd is None:
                fd = self._fd = open_append(self.path, readable=True)
                self._pid = os.getpid()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                info = os.fstat(fd)
                same = os.lstat(self._name).st_ino == info.st_ino
            except FileNotFoundError:
                same = False
            except BaseException:
                self.release()
                raise
            if same:
                return fd, info
            self.release()

    def _rotation_due(self, fd: int, info: os.stat_result) -> bool:
        rule = self.rule
        if rule.max_age <= 0 and not rule.daily:
            return rule.due(info.st_size, None, 0.0)
        known = self._started
        if known is None or known[0] != info.st_ino:
            self._started = (info.st_ino, first_time(fd)) if info.st_size else None
        return rule.due(info.st_size, self._started[1] if self._started else None, time.time())

    def _rotated(self) -> tuple[int, os.stat_result]:
        """Rename the full file away (still holding its lock), then open and lock the new
        one."""
        try:
            self._rotate(self.path, self.rule.keep)
        finally:
            self.release()
        return self._locked()

    def _write(self, fd: int, info: os.stat_result, bodies: Sequence[bytes]) -> None:
        """The lines, chained, written in chunks of `_CHUNK_LINES` (a buffer for a whole
        batch would be fresh pages each time)."""
        sha256 = sha256_function()
        join = b"".join
        lines: list[bytes] = []
        rest = bodies
        if info.st_size == 0:
            after = self._previous_file()
            start = (bodies[0], b', "genesis": "', after.encode("ascii"), b'"', _PREV)
            line = join((*start, genesis_hash(after).encode("ascii"), _CLOSE))
            lines.append(line)
            prev = sha256(line).hexdigest()
            rest = bodies[1:]
        else:
            prev = self._tail_hash(fd, info)
        written = 0
        for body in rest:
            line = join((body, _PREV, prev.encode("ascii"), _CLOSE))
            lines.append(line)
            prev = sha256(line).hexdigest()
            if len(lines) >= _CHUNK_LINES:
                written += _write_all(fd, join(lines))
                lines.clear()
        written += _write_all(fd, join(lines))
        self._left = (info.st_ino, info.st_size + written)
        self._last = prev

    def _previous_file(self) -> str:
        """The hash of the last line of `path.1`, when there is one: a fresh file continues
        the chain of the file rotated before it."""
        older = self.path.with_name(self.path.name + ".1")
        with contextlib.suppress(OSError):
            fd = os.open(older, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            try:
                return self._tail_hash(fd, os.fstat(fd), cached=False)
            finally:
                os.close(fd)
        return ""

    def _tail_hash(self, fd: int, info: os.stat_result, *, cached: bool = True) -> str:
        if cached and self._left == (info.st_ino, info.st_size):
            return self._last
        return line_hash(last_line(fd, info.st_size))


def _write_all(fd: int, data: bytes) -> int:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    return len(data)


def last_line(fd: int, size: int) -> bytes:
    """The file's last line, its newline included (read backwards from the end). A file that
    does not end in a newline (a write cut short) ends with that partial line."""
    end = size
    tail = b""
    while end > 0:
        start = max(0, end - _TAIL_BLOCK)
        tail = os.pread(fd, end - start, start) + tail
        end = start
        cut = tail.rfind(b"\n", 0, len(tail) - 1)
        if cut >= 0:
            return tail[cut + 1 :]
    return tail


def first_time(fd: int) -> float | None:
    """When the file's first record was written (its `ts`), None when it has none."""
    head = os.pread(fd, _TAIL_BLOCK, 0)
    line = head.split(b"\n", 1)[0]
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record_time(record.get("ts")) if isinstance(record, dict) else None


def record_time(ts: object) -> float | None:
    """A record's `ts` in Unix seconds: ISO 8601 text (this version) or a number (older)."""
    if isinstance(ts, int | float) and not isinstance(ts, bool):
        return float(ts)
    if not isinstance(ts, str):
        return None
    written = _written_time(ts)
    if written is not None:
        return written
    from datetime import datetime

    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _written_time(ts: str) -> float | None:
    """`ts` in the one form `iso_utc` writes (``2026-01-31T12:00:00.000001Z``), read without
    `datetime` (a process writing one record reads the first record's time, for the rotation
    by age, and `datetime` would be most of that write); the same value as
    `datetime.fromisoformat(...).timestamp()`. None for any other text."""
    if len(ts) != 27 or ts[4:20:3] != "--T::." or ts[26] != "Z":
        return None
    digits = ts[:4] + ts[5:7] + ts[8:10] + ts[11:13] + ts[14:16] + ts[17:19] + ts[20:26]
    if not (digits.isascii() and digits.isdigit()):
        return None
    year, month, day = int(ts[:4]), int(ts[5:7]), int(ts[8:10])
    hour, minute, second = int(ts[11:13]), int(ts[14:16]), int(ts[17:19])
    if not (year >= 1 and 1 <= month <= 12 and 1 <= day <= _month_days(year, month)):
        return None
    if hour > 23 or minute > 59 or second > 59:
        return None
    seconds = _days_since_epoch(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
    return (seconds * 1_000_000 + int(ts[20:26])) / 1_000_000


def _month_days(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _days_since_epoch(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to the date (the proleptic Gregorian calendar)."""
    year -= month <= 2
    era = year // 400
    of_era = year - era * 400
    of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    of_era_days = of_era * 365 + of_era // 4 - of_era // 100 + of_year
    return era * 146097 + of_era_days - 719468
