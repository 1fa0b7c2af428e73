"""Replay benchmark: how many recorded tool calls `hookwright replay` replays per second through
a folder with one in-process hook.

A transcript of `CALLS` Bash calls (spread over `SESSIONS` sessions) and an audit file holding
the hook's recorded deny of some of them are read and replayed as the command does (the files
parsed, the calls merged, each PreToolUse dispatched and compared); the best of `ROUNDS`
counts. Merges `replay_calls_per_second` into bench/results.json (reported only: higher is
better).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROUNDS = 5
CALLS = 5_000
SESSIONS = 50
RESULTS = Path(__file__).resolve().parent / "results.json"
GUARD = (
    "from hookwright import deny\n\n"
    "def no_rm(inp):\n"
    "    if inp.tool_input.get('command', '').startswith('rm '):\n"
    "        return deny('no rm')\n"
    "    return None\n"
)
HOOKS = (
    "hooks:\n  - name: no-rm\n    event: PreToolUse\n    matcher: Bash\n    call: guards:no_rm\n"
)


def _command(index: int) -> str:
    return f"rm -rf build{index}" if index % 10 == 0 else f"grep -rn TODO src/part{index}"


def _transcript_line(index: int) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_use", "id": f"call_{index}", "name": "Bash"}
    block["input"] = {"command": _command(index)}
    return {
        "type": "assistant",
        "sessionId": f"session-{index % SESSIONS}",
        "timestamp": "2026-11-20T10:00:00.000Z",
        "cwd": "/w",
        "message": {"role": "assistant", "content": [block]},
    }


def _audit_record(index: int) -> dict[str, Any]:
    return {
        "ts": "2026-11-20T10:00:00.000000Z",
        "event": "PreToolUse",
        "hook": "no-rm",
        "decision": "deny",
        "session_id": f"session-{index % SESSIONS}",
        "tool_name": "Bash",
        "tool_use_id": f"call_{index}",
        "tool_input": {"command": _command(index)},
    }


def write_recording(root: Path) -> list[Path]:
    transcript, audit = root / "sessions.jsonl", root / "audit.jsonl"
    lines = (json.dumps(_transcript_line(i)) for i in range(CALLS))
    transcript.write_text("".join(line + "\n" for line in lines))
    denied = (json.dumps(_audit_record(i)) for i in range(0, CALLS, 10))
    audit.write_text("".join(line + "\n" for line in denied))
    return [transcript, audit]


def write_project(root: Path) -> Path:
    folder = root / "project" / ".hookwright"
    folder.mkdir(parents=True)
    (folder / "hooks.yaml").write_text(HOOKS)
    (folder / "guards.py").write_text(GUARD)
    return folder.parent


def measure(project: Path, files: list[Path]) -> float:
    """The best round's recorded calls per second (reading included)."""
    from hookwright.cli.replay import CallFilter, read_calls, replay_engine
    from hookwright.cli.replay_run import replay

    engine, _ = replay_engine(project, trust=True)
    best = float("inf")
    try:
        for _ in range(ROUNDS):
            start = time.perf_counter()
            calls, _ = read_calls(files, CallFilter())
            report = replay(engine, calls)
            best = min(best, time.perf_counter() - start)
            assert report.replayed == CALLS and not report.changed, report
    finally:
        engine.close()
    return CALLS / best


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["HOME"] = str(root / "home")
        sys.dont_write_bytecode = True
        per_second = measure(write_project(root), write_recording(root))
    print(f"replay, one in-process hook: {per_second:10,.0f} recorded calls/s")
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results["replay_calls_per_second"] = per_second
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
