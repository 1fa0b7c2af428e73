"""`hookwright audit verify [--file FILE]`: check the audit's hash chain (`audit_chain`).

Reads the rotated files (oldest first) and the current one, and names the first line where
the chain breaks: a line whose `prev` is not the hash of the line before it (that line was
edited, or records were removed, added or moved between the two), a file's first line that
does not start the file's chain, or a file that does not continue the file before it. Lines
written before the chain existed (no `prev`, at the start of a file) are counted, not
checked."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hookwright.cli.audit_log import rotated
from hookwright.core.words import counted
from hookwright.monitor.audit_chain import genesis_hash, line_hash


@dataclass(slots=True)
class Outcome:
    """What verifying found: the first break (None: intact), and what was read."""

    broken: str | None = None
    records: int = 0
    unchained: int = 0
    files: int = 0
    head: str = ""


def _raw_lines(path: Path) -> Iterator[bytes]:
    with path.open("rb") as fh:
        yield from fh


def _problem(record: object, raw: bytes, number: int, expected: str | None) -> str | None:
    """Why line `number` breaks the chain (`expected`: the `prev` it must hold; None: the
    file's first line, which must start its chain), or None."""
    if not isinstance(record, dict):
        return "not an audit record"
    prev = record.get("prev")
    genesis = record.get("genesis")
    if expected is None:
        if not isinstance(genesis, str):
            return "the file's first record does not start its chain (records before it removed)"
        expected = genesis_hash(genesis)
    elif genesis is not None:
        return "a file's first record in the middle of a file (records moved between files)"
    if prev != expected:
        return (
            f"does not follow line {number - 1} (that line was edited, or records were "
            "removed, added or moved between them)"
        )
    return None


def verify_file(path: Path, before: str | None, outcome: Outcome) -> str | None:
    """Check one file; `before`: the hash of the previous file's last line (None when this
    is the oldest file read). Returns the first break."""
    expected: str | None = None
    unchained = True
    last = b""
    number = 0
    for number, raw in enumerate(_raw_lines(path), start=1):
        try:
            record = json.loads(raw)
        except ValueError:
            record = None
        if unchained and isinstance(record, dict) and "prev" not in record:
            outcome.unchained += 1
            expected = line_hash(raw)
            last = raw
            continue
        unchained = False
        problem = _problem(record, raw, number, expected if number > 1 else None)
        if problem is None and number == 1 and before is not None:
            assert isinstance(record, dict)
            if record.get("genesis") != before:
                problem = "does not continue the file before it (its last records removed)"
        if problem is not None:
            return f"{path}:{number}: {problem}"
        outcome.records += 1
        expected = line_hash(raw)
        last = raw
    outcome.head = line_hash(last) if number else outcome.head
    return None


def verify(path: Path) -> Outcome:
    outcome = Outcome()
    before: str | None = None
    for file in [*rotated(path), path]:
        if not file.exists():
            continue
        outcome.files += 1
        outcome.broken = verify_file(file, before, outcome)
        if outcome.broken is not None:
            return outcome
        before = outcome.head
    return outcome


def run(path: Path) -> int:
    """Print the outcome; 0 when the chain holds, 1 when it breaks or there is no file."""
    if not path.exists() and not rotated(path):
        sys.stderr.write(f"hookwright: error: no audit records to verify ({path} does not exist)\n")
        return 1
    try:
        outcome = verify(path)
    except OSError as exc:
        sys.stderr.write(f"hookwright: error: cannot read {exc.filename}: {exc.strerror}\n")
        return 1
    if outcome.broken is not None:
        sys.stdout.write(f"broken: {outcome.broken}\n")
        return 1
    unchained = counted(outcome.unchained, "older record")
    older = f", {unchained} without a chain" if outcome.unchained else ""
    sys.stdout.write(
        f"ok: {counted(outcome.records, 'record')} in {counted(outcome.files, 'file')} "
        f"chained{older}; "
        f"last hash {outcome.head}\n"
    )
    return 0
