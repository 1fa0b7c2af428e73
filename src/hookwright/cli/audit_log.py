"""`hookwright audit [filters] [--follow] [--summary] [--format ...]`: read the audit trail.

Records come from the rotated files (oldest first) and then the current one; `--follow` keeps
reading what is appended, across rotations, until interrupted. A line that is not an audit
record is skipped with a warning naming its file and line (the first few; then a count)."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from hookwright.cli.audit_query import Query, Summary, csv_printer
from hookwright.cli.records import describe
from hookwright.core.systems import recorded_event_words
from hookwright.core.words import counted
from hookwright.host.labels import origin_file, system_name
from hookwright.monitor.audit_chain import record_time

Record = dict[str, Any]
POLL_SECONDS = 0.2


#: Lines that are not records named one by one on stderr (a count of all of them follows).
NAMED_BAD_LINES = 5


@dataclass(slots=True)
class Reader:
    """Turns lines into records, warns about the ones it could not read, and keeps the
    records the query selects."""

    query: Query = field(default_factory=Query)
    skipped: int = 0
    #: Records read (before the query), and records kept.
    read: int = 0
    kept: int = 0
    #: Show the records `hooks test` wrote (``"test": true``); hidden by default.
    tests: bool = False
    #: Records of `hooks test` `tests` hides, and of those the ones the query keeps (said
    #: when nothing else is).
    tests_seen: int = 0
    hidden_tests: int = 0
    warn: TextIO | None = None

    def record(self, line: str, where: str = "?") -> Record | None:
        """The record on `line` (`where`: its file and line number), if it is one the query
        keeps."""
        if not line.strip():
            return None
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if not _is_record(record):
            self._bad(where)
            return None
        assert isinstance(record, dict)
        if record.get("test") is True and not self.tests:
            self.tests_seen += 1
            self.hidden_tests += self.query.keeps(record)
            return None
        self.read += 1
        if not self.query.keeps(record):
            return None
        self.kept += 1
        return record

    def _bad(self, where: str) -> None:
        self.skipped += 1
        if self.skipped <= NAMED_BAD_LINES:
            (self.warn or sys.stderr).write(
                f"hookwright: warning: {where}: not an audit record, skipped\n"
            )


def _is_record(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("event"), str)
        and isinstance(value.get("hook"), str)
    )


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


def _where(record: Record) -> str:
    """``Python, .hookwright/hooks.yaml``: the hook's system as every view names it, and its
    file (its source, `project`, in records that name no file). A permission outcome says who
    decided (``by rule, .claude/settings.json``, ``by hook``, ``by person``, ``by mode``)."""
    project = record.get("project")
    origin = record.get("origin")
    file = origin_file(
        origin if isinstance(origin, str) else None,
        Path(project) if isinstance(project, str) else None,
    )
    if record.get("dialect") == "host":  # a permission outcome, or what the host could not do
        by = record.get("source")
        who = "hookwright" if by == "host" else f"by {by}"
        return f"{who}, {file}" if file else who
    return f"{system_name(str(record.get('dialect')))}, {file or record.get('source')}"


def line_text(record: Record) -> str:
    """One record in words, its time in local time (ISO 8601 text, or older records' Unix
    seconds)."""
    ts = record_time(record.get("ts"))
    stamp = time.localtime(ts) if ts is not None else None
    when = time.strftime("%Y-%m-%d %H:%M:%S", stamp) if stamp else "?"
    session = str(record.get("session_id") or "-")[:8]
    # a file whose hooks did not load is its own record's hook: named once, as the file
    name = "hooks" if record.get("status") == "not_loaded" else record.get("hook")
    hook = f"{name} ({_where(record)})"
    marked = " [test]" if record.get("test") is True else ""
    dialect = record.get("dialect")
    event = recorded_event_words(
        str(record.get("event")), dialect if type(dialect) is str else None
    )
    return f"{when} {session}{marked} {event} {hook}: {describe(record)}"


def printer(fmt: str, out: TextIO) -> Callable[[Record], None]:
    """Prints each record as text, a JSON line (`jsonl`) or a CSV row (`csv`)."""
    if fmt == "csv":
        return csv_printer(out)
    json_out = fmt == "jsonl"

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
        #: Lines read from the open file so far.
        self.number = 0

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
        self.number = 0
        return True

    def _replaced(self) -> bool:
        try:
            return os.stat(self.path).st_ino != self._inode
        except FileNotFoundError:
            return False

    def new_lines(self) -> list[tuple[int, str]]:
        """The lines appended since the last call, with their line numbers."""
        lines: list[tuple[int, str]] = []
        if self._handle is None and not self._open():
            return lines
        assert self._handle is not None
        lines += self._read()
        if self._replaced() and self._open():
            lines += self._read()
        return lines

    def _read(self) -> list[tuple[int, str]]:
        assert self._handle is not None
        text = self._partial + self._handle.read()
        *complete, self._partial = text.split("\n")
        first = self.number + 1
        self.number += len(complete)
        return list(enumerate(complete, start=first))

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()


def show(path: Path, reader: Reader, emit: Callable[[Record], None], follow: bool) -> None:
    """Emit every record the reader keeps; with `follow`, then every record appended."""
    files = [*rotated(path), path] if not follow else rotated(path)
    for file in files:
        for number, line in enumerate(_lines(file), start=1):
            record = reader.record(line, f"{file}:{number}")
            if record is not None:
                emit(record)
    if not follow:
        return
    follower = Follower(path)
    try:
        while True:
            for number, line in follower.new_lines():
                record = reader.record(line, f"{path}:{number}")
                if record is not None:
                    emit(record)
            time.sleep(POLL_SECONDS)
    finally:
        follower.close()


@dataclass(slots=True, frozen=True)
class Options:
    """How `hookwright audit` prints: follow the file, summarise, and in which format."""

    follow: bool = False
    summary: bool = False
    fmt: str = "text"
    tests: bool = False


def run(path: Path, query: Query, options: Options) -> int:
    """Print the records `query` keeps (or their summary); the exit status."""
    reader = Reader(query, tests=options.tests)
    if not options.follow and not path.exists() and not rotated(path):
        sys.stderr.write(f"hookwright: no audit records yet ({path} does not exist)\n")
        return 0
    summary = Summary() if options.summary else None
    emit = summary.add if summary is not None else printer(options.fmt, sys.stdout)
    try:
        show(path, reader, emit, options.follow and summary is None)
    except KeyboardInterrupt:
        pass
    finally:
        _report(reader, path, query)
    if summary is not None:
        summary.write(sys.stdout, options.fmt)
    return 0


#: Said of the lines skipped, by whether there is one.
_NOT_RECORDS = {True: "is not an audit record and was", False: "are not audit records and were"}


def _report(reader: Reader, path: Path, query: Query) -> None:
    if reader.skipped:
        sys.stderr.write(
            f"hookwright: warning: {counted(reader.skipped, 'line')} of {path} and its rotated "
            f"files {_NOT_RECORDS[reader.skipped == 1]} skipped\n"
        )
    given = query.describe()
    if reader.kept or not (given or reader.tests_seen):
        return
    said = f"no audit records match {given}" if given else "no audit records"
    read = _what_was_read(reader, path)
    if read:
        said += f" ({read})"
    if reader.hidden_tests:  # hidden by default: say how to see them
        match = "matches" if reader.hidden_tests == 1 else "match"
        said += f"; {counted(reader.hidden_tests, 'record')} of `hooks test` {match}: add --tests"
    sys.stderr.write(f"hookwright: {said}\n")


def _what_was_read(reader: Reader, path: Path) -> str:
    """What the files held, for a query that kept nothing: never silence."""
    where = f"{path} and its rotated files"
    tests = counted(reader.tests_seen, "test record")  # written by `hooks test`
    if reader.read and reader.tests_seen:
        return f"{counted(reader.read, 'record')} and {tests} read from {where}"
    if reader.read:
        return f"{counted(reader.read, 'record')} read from {where}"
    if not reader.tests_seen:
        return f"{where} hold no records"
    if not reader.hidden_tests:
        return f"{where} hold only {tests}, none of which match"
    return f"{where} hold only {tests}" if reader.tests_seen > reader.hidden_tests else ""
