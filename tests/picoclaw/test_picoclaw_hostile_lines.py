"""Hostile JSON-RPC lines from a PicoClaw hook process: a line nested too deep or with a huge
number is one skipped line with a warning, and the valid answer that follows it in the same
chunk of output is still delivered."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from picoclaw_support import HookProc, wait_dead

from hookwright.transports.rpc import RpcProcess

ANSWER = json.dumps({"jsonrpc": "2.0", "id": 2, "result": "still delivered"})
HOSTILE = {
    "deep": ('{"jsonrpc": "2.0", "id": 2, "result": ' + "[" * 100_000, "nesting is deeper"),
    "not-deep-enough-for-python": (
        '{"jsonrpc": "2.0", "id": 2, "result": ' + "[" * 500 + "]" * 500 + "}",
        "nesting is deeper than 200 levels",
    ),
    "huge-integer": ('{"jsonrpc": "2.0", "id": ' + "2" * 5_000 + "}", "more than 4300 digits"),
}


@pytest.fixture
async def processes(tmp_path: Path) -> AsyncIterator[list[tuple[RpcProcess, HookProc]]]:
    made: list[tuple[RpcProcess, HookProc]] = []
    yield made
    for process, _ in made:
        await process.aclose()
    assert wait_dead([pid for _, hook in made for pid in hook.pids()]) == []


@pytest.mark.parametrize("kind", list(HOSTILE))
async def test_a_hostile_line_is_skipped_and_the_answer_after_it_arrives(
    tmp_path: Path,
    processes: list[tuple[RpcProcess, HookProc]],
    caplog: pytest.LogCaptureFixture,
    kind: str,
) -> None:
    line, logged = HOSTILE[kind]
    chunk = line + "\n" + ANSWER  # one write: both lines reach the reader together
    spec = {"methods": {"hook.before_tool": [{"before": [chunk], "noreply": True}]}}
    hook = HookProc("h", spec, tmp_path / "h.jsonl")
    process = RpcProcess(
        "h", hook.argv, env=hook.env, hello_params={"name": "h", "version": 1, "modes": ["tool"]}
    )
    processes.append((process, hook))
    caplog.set_level(logging.WARNING, "hookwright.rpc")
    assert await process.call("hook.before_tool", {}, timeout=30) == "still delivered"
    [warning] = [r.getMessage() for r in caplog.records if "stdout line skipped" in r.getMessage()]
    assert logged in warning
