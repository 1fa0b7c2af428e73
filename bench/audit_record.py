"""Instructions per audit record: the writer thread's encoding of a fixed number of records.

Run under an instruction counter, once with the count and once with 0, and divide the
difference by the count (the interpreter's start and the set-up cancel out):

    valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        python bench/audit_record.py answered 5000

Shapes: `answered`, the daemon's event (UserPromptSubmit, one in-process hook adding context);
`tool`, a PreToolUse with a Bash input and one hook adding context; `quiet`, a PreToolUse
with ten hooks that answer nothing (the `dispatch_sync_audit_10_hooks` records). Wall time on
a shared machine is noise; the instruction count is not.
"""

from __future__ import annotations

import sys
import time

from hookwright import HookEngine, HookInput, add_context
from hookwright.core.results import Verdict
from hookwright.monitor.audit import AuditLog, AuditRecord


def verdict_of(shape: str) -> tuple[Verdict, HookInput]:
    engine = HookEngine(audit_path=None)
    if shape == "answered":
        engine.add(lambda inp: add_context("HOUSE-RULES: one line."), "UserPromptSubmit")
        inp = HookInput(
            "UserPromptSubmit", session_id="s-1", turn_id="t-1", payload={"prompt": "hi"}
        )
    else:
        hooks = 10 if shape == "quiet" else 1
        for index in range(hooks):
            if shape == "quiet":
                engine.add(lambda inp: None, "PreToolUse", name=f"h{index}")
            else:
                engine.add(lambda inp: add_context("use rg, not grep"), "PreToolUse", name="ctx")
        inp = HookInput(
            "PreToolUse",
            session_id="s-1",
            turn_id="t-1",
            payload={
                "tool_name": "Bash",
                "tool_use_id": "toolu_01",
                "tool_input": {"command": "ls -la src", "description": "List the sources"},
            },
        )
    verdict = engine.dispatch_sync(inp)
    engine.close()
    return verdict, inp


def main() -> int:
    shape, count = sys.argv[1], int(sys.argv[2])
    verdict, inp = verdict_of(shape)
    audit = AuditLog(None)
    audit.active = True
    audit.describe(project="/home/dev/project", host="claude-code daemon")
    audit.submit(verdict, "s-1", inp)
    item = audit._pending.popleft()
    assert not isinstance(item, AuditRecord)
    lines = audit._lines
    out: list[bytes] = []
    ts = time.time()
    for index in range(count):
        # A new time each dispatch, as in a daemon (the date part is formatted once a second).
        lines.add(out, verdict, "s-1", ts + index * 1e-4, "t-1", item[4])
        if len(out) >= 200:
            out.clear()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
