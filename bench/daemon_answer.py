"""CPU per event of the daemon's answer in its own process, without the http front: one
UserPromptSubmit on a trusted project whose in-process Python hook adds context, answered by
`WarmProjects.answer` as the daemon answers an http hook (the project named by the input's
cwd), with the user's audit on (its writer thread included in the process's CPU time) or off.

    python bench/daemon_answer.py [events] [rounds]

Prints the median and best microseconds of CPU per event over the rounds, for each case,
and the pieces of one answer timed alone. A shared machine moves these by tens of percent:
compare two trees by running this in turns, not by one run each.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from unittest import mock

from hookwright.bridges import claude_hook, hook_watch
from hookwright.bridges.claude_hook import (
    open_session,
    parse_input,
    project_for,
    relay_on,
    settle,
)
from hookwright.bridges.projects import WarmProjects
from hookwright.config.fingerprint import fingerprint
from hookwright.config.trust import TrustStore
from hookwright.dialects.claude_code.answer import encode_output_json

EVENTS = 20_000
ROUNDS = 5
HOOKS_YAML = "hooks:\n  - name: rules\n    event: UserPromptSubmit\n    call: rules:rules\n"
RULES_PY = (
    "from hookwright import add_context\n\n\n"
    "def rules(inp):\n    return add_context('HOUSE-RULES: one line.')\n"
)
CONTEXT = b"HOUSE-RULES: one line."


def make_project(root: Path, home: Path) -> Path:
    (root / ".hookwright").mkdir(parents=True)
    (root / ".hookwright" / "hooks.yaml").write_text(HOOKS_YAML)
    (root / ".hookwright" / "rules.py").write_text(RULES_PY)
    TrustStore(home).trust(root)
    return root


def event_body(project: Path) -> bytes:
    data = {
        "session_id": "3f2a4c1e-5b6d-4e7f-8a9b-0c1d2e3f4a5b",
        "transcript_path": str(project / "t.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "list the files",
    }
    return json.dumps(data, separators=(",", ":")).encode() + b"\n"


async def answer_cpu(warm: WarmProjects, body: bytes, events: int) -> float:
    """Microseconds of this process's CPU per answered event (the audit writer included)."""
    reply = await warm.answer(body, None, None)
    if CONTEXT not in reply.stdout:
        raise SystemExit(f"the answer lacks the hook's context: {reply}")
    start = time.process_time()
    for _ in range(events):
        await warm.answer(body, None, None)
    return (time.process_time() - start) / events * 1e6


def piece_cpu(call: Callable[[], object], events: int) -> float:
    start = time.process_time()
    for _ in range(events):
        call()
    return (time.process_time() - start) / events * 1e6


async def pieces(home: Path, body: bytes, events: int) -> dict[str, float]:
    """The answer's parts outside the hooks' dispatch, each timed alone (audit off)."""
    event, hook_input = parse_input(body)
    root = project_for(None, hook_input, None)
    session = await open_session(root, home, host="daemon")
    watch, _stamp = hook_watch.watch(root, home)
    try:
        relayed = await relay_on(session, event, hook_input)
        verdict = relayed.verdict
        trust_path = str(TrustStore(home).path)
        times = {
            "decode input": piece_cpu(lambda: parse_input(body), events),
            "project folder": piece_cpu(lambda: project_for(None, hook_input, None), events),
            "trust fingerprint": piece_cpu(lambda: fingerprint(trust_path), events),
            "settle": piece_cpu(lambda: settle(relayed, root, True), events),
            "encode answer": piece_cpu(lambda: encode_output_json(verdict), events),
        }
        if watch is not None:
            times["hook watch"] = piece_cpu(watch.changed, events)
        start = time.process_time()
        for _ in range(events):
            await relay_on(session, event, hook_input)
        times["relay and dispatch"] = (time.process_time() - start) / events * 1e6
        return times
    finally:
        if watch is not None:
            watch.close()
        await session.aclose()


async def run_case(home: Path, project: Path, events: int, rounds: int) -> list[float]:
    warm = WarmProjects(home)
    try:
        body = event_body(project)
        return [await answer_cpu(warm, body, events) for _ in range(rounds)]
    finally:
        await warm.aclose()


def main() -> int:
    events = int(sys.argv[1]) if len(sys.argv) > 1 else EVENTS
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else ROUNDS
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        project = make_project(Path(tmp) / "project", home)
        os.environ["HOME"] = str(home)
        os.environ["HOOKWRIGHT_AUDIT_LOG"] = str(home / "audit.jsonl")
        cpu = asyncio.run(run_case(home, project, events, rounds))
        print(f"audit on   median {statistics.median(cpu):6.1f} µs  best {min(cpu):6.1f} µs")
        with mock.patch.object(claude_hook, "default_audit_path", lambda: None):
            cpu = asyncio.run(run_case(home, project, events, rounds))
            print(f"audit off  median {statistics.median(cpu):6.1f} µs  best {min(cpu):6.1f} µs")
            times = asyncio.run(pieces(home, event_body(project), events))
        for name, cpu_us in times.items():
            print(f"  {name:20} {cpu_us:6.2f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
