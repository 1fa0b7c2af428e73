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
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.audit_record import verdict_of
from hookwright.monitor.audit import AuditLog, AuditRecord


def main() -> int:
    shape, count = sys.argv[1], int(sys.argv[2])
    batch = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    verdict, inp = verdict_of(shape)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "audit.jsonl"
        audit = AuditLog(path, max_bytes=0, max_age=0, daily=False)
        audit.describe(project="/home/dev/project", host="claude-code daemon")
        audit.write_on_close()  # no writer thread: the batches are written here
        audit.submit(verdict, "s-1", inp)
        item = audit._pending[0]
        assert not isinstance(item, AuditRecord)
        verdict_, session_id, ts, turn_id, call = item
        audit._drain()  # the file's first line (its genesis) is not counted
        for start in range(0, count // batch * batch, batch):
            # A new time each dispatch, as in a daemon (the date is formatted once a second).
            audit._pending.extend(
                (verdict_, session_id, ts + index * 1e-4, turn_id, call)
                for index in range(start, start + batch)
            )
            audit._drain()  # what the writer thread does with a batch
        audit.close()
        assert audit.written == (1 + count // batch * batch) * len(verdict.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
