"""`hookwright audit [--session ID] [--follow] [--json]`: read the audit trail.

Records come from the rotated files (oldest first) and then the current one; `--follow` keeps
reading what is appended, across rotations, until interrupted. A line that is not a JSON
object is skipped and counted."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from hookwright.cli.records import describe

Record = dict[str, Any]
POLL_SECONDS = 0.2


@dataclass(slots=True)
class Reader:
    """Turns lines into records and counts the ones it could not read."""

    session: str | None = None
    skipped: int = 0
    #: Show the records `hooks test` wrote (``"test": true``); hidden by default.
    tests: bool = False

    def record(self, line: str) -> Record | None:
        if not line.strip():
            return None
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if not isinstance(record, dict):
            self.skipped += 1
            return None
        if record.get("test") is True and not self.tests:
            return None
        if self.session and not str(record.get("session_id") or "").startswith(self.session):
            return None
        return record


def rotated(path: Path) -> list[Path]:
    """`path.N`, ..., `path.1`: the rotated files, oldest first."""
    numbered: list[tuple[int, Path]] = []
    for candidate in path.parent.glob(path.name + ".*"):
        suffix = candidate.name[len(path.name) + 1 :]
        if suffix.isdigit():
            numbered.append((int(suffix), candidate))
    return [p for _, p in sorted(numbered, reverse=True)]


def _lines(path: Path) -> Iterator[str]:
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            yield from fh
    except FileNotFoundError:
        return


def line_text(record: Record) -> str:
    ts = record.get("ts")
    stamp = time.localtime(ts) if isinstance(ts, int | float) else None
    when = time.strftime("%Y-%m-%d %H:%M:%S", stamp) if stamp else "?"
    session = str(record.get("session_id") or "-")[:8]
    hook = f"{record.get('hook')} ({record.get('dialect')}, {record.get('source')})"
    marked = " [test]" if record.get("test") is True else ""
    return f"{when} {session}{marked} {record.get('event')} {hook}: {describe(record)}"


def printer(json_out: bool, out: TextIO) -> Callable[[Record], None]:
    def emit(record: Record) -> None:
        text = json.dumps(record, ensure_ascii=False) if json_out else line_text(record)
        out.write(text + "\n")
        out.flush()

    return emit


class Follower:
    """Reads `path` and then the lines appended to it, reopening it when it is rotated or
    replaced; a line is returned once complete."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: TextIO | None = None
        self._inode: int | None = None
        self._partial = ""

    def _open(self) -> bool:
        try:
            handle = self.path.open(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return False
        if self._handle is not None:
            self._handle.close()
        self._handle = handle
        self._inode = os.fstat(handle.fileno()).st_ino
        self._partial = ""
        return True

    def _replaced(self) -> bool:
        try:
            return os.stat(self.path).st_ino != self._inode
        except FileNotFoundError:
            return False

    def new_lines(self) -> list[str]:
        lines: list[str] = []
        if self._handle is None and not self._open():
            return lines
        assert self._handle is not None
        lines += self._read()
        if self._replaced() and self._open():
            lines += self._read()
        return lines

    def _read(self) -> list[str]:
        assert self._handle is not None
        text = self._partial + self._handle.read()
        *complete, self._partial = text.split("\n")
        return complete

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()


def show(path: Path, reader: Reader, emit: Callable[[Record], None], follow: bool) -> None:
    """Emit every record (of the session); with `follow`, then every record appended."""
    files = [*rotated(path), path] if not follow else rotated(path)
    for file in files:
        for line in _lines(file):
            record = reader.record(line)
            if record is not None:
                emit(record)
    if not follow:
        return
    follower = Follower(path)
    try:
        while True:
            for line in follower.new_lines():
                record = reader.record(line)
                if record is not None:
                    emit(record)
            time.sleep(POLL_SECONDS)
    finally:
        follower.close()


def run(
    path: Path, session: str | None, follow: bool, json_out: bool, *, tests: bool = False
) -> None:
    reader = Reader(session, tests=tests)
    if not follow and not path.exists() and not rotated(path):
        sys.stderr.write(f"hookwright: no audit records yet ({path} does not exist)\n")
        return
    try:
        show(path, reader, printer(json_out, sys.stdout), follow)
    except KeyboardInterrupt:
        pass
    finally:
        if reader.skipped:
            sys.stderr.write(
                f"hookwright: warning: {reader.skipped} line(s) of {path} are not audit "
                "records and were skipped\n"
            )
