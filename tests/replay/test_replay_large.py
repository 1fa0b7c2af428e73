"""`hookwright replay` over a very large audit file reads it line by line: the peak memory of
the real command over 200,000 records stays within a fixed allowance of its peak over 2,000
(the whole recording held at once grows by well over a hundred megabytes), and the changed
calls are all found."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from claude_pin import PIN_ENV

from .test_replay_audit import candidate

SESSIONS = 500
#: Every this many records, one call the candidate now denies (`git push`).
CHANGED_EVERY = 10_000
#: What the large run may use beyond the small one (kilobytes of peak RSS): far below what
#: holding 200,000 recorded calls takes, far above the noise of one run.
ALLOWANCE_KB = 40_000

#: Runs its arguments as a child and prints the child's peak RSS (kilobytes on Linux).
PEAK = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
    "print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def write_audit(path: Path, records: int) -> None:
    with path.open("w") as out:
        for index in range(records):
            command = "git push" if index % CHANGED_EVERY == 0 else f"ls -la build/{index}"
            record = {
                "ts": "2026-11-20T10:00:00.000000Z",
                "event": "PreToolUse",
                "hook": "old-hook",
                "decision": None,
                "session_id": f"session-{index % SESSIONS:04d}",
                "tool_name": "Bash",
                "tool_use_id": f"toolu_{index:08d}",
                "tool_input": {"command": command, "description": "x" * 200},
                "project": "/srv/project",
            }
            out.write(json.dumps(record) + "\n")


def peak_kb(tmp_path: Path, home: Path, records: int) -> int:
    audit = tmp_path / f"audit-{records}.jsonl"
    write_audit(audit, records)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKWRIGHT_") or k == PIN_ENV}
    command = [sys.executable, "-m", "hookwright", "replay", str(audit)]
    command += ["--policy", str(candidate(tmp_path / str(records))), "--trust", "--json"]
    done = subprocess.run(
        [sys.executable, "-c", PEAK, *command],
        capture_output=True,
        text=True,
        env={**env, "HOME": str(home)},
        timeout=600,
    )
    code, peak = done.stdout.split()
    assert code == "1", done.stderr  # some decisions changed
    audit.unlink()
    return int(peak)


def test_replay_reads_a_large_audit_in_bounded_memory(tmp_path: Path, isolated_home: Path) -> None:
    small = peak_kb(tmp_path, isolated_home, 2_000)
    large = peak_kb(tmp_path, isolated_home, 200_000)
    print(f"peak RSS: 2,000 records {small} kB, 200,000 records {large} kB")
    assert large - small < ALLOWANCE_KB, (small, large)


def test_a_large_audit_finds_every_changed_call(tmp_path: Path, isolated_home: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    write_audit(audit, 50_000)
    command = [sys.executable, "-m", "hookwright", "replay", str(audit), "--json", "--trust"]
    command += ["--policy", str(candidate(tmp_path))]
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKWRIGHT_") or k == PIN_ENV}
    done = subprocess.run(
        command, capture_output=True, text=True, env={**env, "HOME": str(isolated_home)}
    )
    document = json.loads(done.stdout)
    assert document["replayed"] == 50_000 and document["sessions"] == SESSIONS
    changed = sorted(call["tool_use_id"] for call in document["changed"])
    assert changed == [f"toolu_{i:08d}" for i in range(0, 50_000, CHANGED_EVERY)]
    assert document["per_hook"] == {"no-push": 5}
