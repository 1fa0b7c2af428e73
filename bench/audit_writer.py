"""Instructions per dispatch through the audit's writer: records queued as `AuditLog.submit`
queues them, then written as the writer thread writes a batch (encoded, chained, appended to a
file), `batch` dispatches at a time.

Run under an instruction counter, once with the count and once with 0, and divide the
difference by the count (the interpreter's start and the set-up cancel out):

    valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        python bench/audit_writer.py answered 5000 100

The shapes are those of `bench/audit_record.py`. The file is a fresh one in a temporary
folder, rotated neither by size nor by time. The writer's step (`AuditLog._drain`, a batch
taken from the queue and written) runs on this thread, batch after batch as under load, so
no thread hand-off is counted: what is left is the writer's own work per record, plus its
per-batch work divided by `batch`.

With ``timed`` after the batch size, each dispatch's runs take a duration of their own, as in
a daemon, where a hook's exact duration hardly repeats (else every record repeats the first
one's): the records cycle through `TIMED` results made before the count matters, so the
set-up still cancels out.
"""

from __future__ import annotations

import copy
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.audit_record import verdict_of
from hookwright.core.results import Verdict
from hookwright.monitor.audit import AuditLog, AuditRecord

#: Distinct durations `timed` cycles through (12.3 to 52.3 µs, to the nanosecond).
TIMED = 1_000


def timed(verdict: Verdict) -> list[Verdict]:
    """`TIMED` copies of `verdict`, each run with a duration of its own."""
    copies = []
    for index in range(TIMED):
        runs: list[Any] = []
        for spec, result, _ in verdict.runs:
            ns = 12_345 + (index * 7_919) % 40_000
            if result is not None:
                result = copy.copy(result)
                result.duration_ms = ns / 1e6
            runs.append((spec, result, ns))
        again = copy.copy(verdict)
        again.runs = runs
        copies.append(again)
    return copies


def main() -> int:
    shape, count = sys.argv[1], int(sys.argv[2])
    batch = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    verdict, inp = verdict_of(shape)
    verdicts = timed(verdict) if sys.argv[4:5] == ["timed"] else [verdict]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "audit.jsonl"
        audit = AuditLog(path, max_bytes=0, max_age=0, daily=False)
        audit.describe(project="/home/dev/project", host="claude-code daemon")
        audit.write_on_close()  # no writer thread: the batches are written here
        audit.submit(verdict, "s-1", inp)
        item = audit._pending[0]
        assert not isinstance(item, AuditRecord)
        _, session_id, ts, turn_id, call = item
        audit._drain()  # the file's first line (its genesis) is not counted
        for start in range(0, count // batch * batch, batch):
            # A new time each dispatch, as in a daemon (the date is formatted once a second).
            audit._pending.extend(
                (verdicts[index % len(verdicts)], session_id, ts + index * 1e-4, turn_id, call)
                for index in range(start, start + batch)
            )
            audit._drain()  # what the writer thread does with a batch
        audit.close()
        assert audit.written == (1 + count // batch * batch) * len(verdict.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
