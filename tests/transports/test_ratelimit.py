"""A hook that floods its pipes gets a few warnings and a count, not one warning per line."""

from __future__ import annotations

import asyncio
import logging
import re
import sys
import textwrap

import pytest

from bounds import FakeClock
from hookwright.transports.ratelimit import BURST, EVERY_STDERR_LINE, RateLimitedLog
from hookwright.transports.rpc import RpcProcess

FLOOD = textwrap.dedent(
    """
    import json, sys
    request = json.loads(sys.stdin.readline())
    for index in range(20000):
        sys.stderr.write(f"noise {index}\\n")
        sys.stdout.write(f"junk {index}\\n")
    sys.stderr.flush()
    print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {"ok": True}}),
          flush=True)
    sys.stdin.read()
    """
)


async def test_a_flooding_rpc_hook_logs_a_few_lines_and_the_count(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="hookwright.rpc")
    process = RpcProcess("flood", [sys.executable, "-c", FLOOD])
    try:
        await process.start()
    finally:
        await process.aclose()
    messages = [r.getMessage() for r in caplog.records if r.name == "hookwright.rpc"]
    assert len(messages) <= 4 * BURST
    held_back = [
        int(m.group(1))
        for text in messages
        if (m := re.search(r"hook flood: (\d+) more warnings?", text))
    ]
    shown = len(messages) - len(held_back)
    assert shown + sum(held_back) == 40_000


def test_one_summary_per_interval(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="t")
    clock = FakeClock()
    limited = RateLimitedLog(logging.getLogger("t"), "h", burst=2, interval=10.0, clock=clock)
    for index in range(7):
        limited.warning("line %d", index)
    clock.advance(10.0)
    limited.warning("line %d", 7)
    limited.flush()
    assert [r.getMessage() for r in caplog.records] == [
        "line 0",
        "line 1",
        "hook h: 5 more warnings like the above suppressed",
        "line 7",
    ]
    assert all(getattr(r, "hook", None) == "h" for r in caplog.records)


async def test_held_back_stderr_is_counted_when_its_interval_ends_with_where_to_read_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """No later warning and no `flush`: the interval's end says it, once."""
    caplog.set_level(logging.WARNING, logger="t")
    limited = RateLimitedLog(logging.getLogger("t"), "h", burst=2, interval=0.2)
    for index in range(5):
        limited.stderr("hook h stderr: line %d", index)
    await asyncio.sleep(0.5)
    messages = [r.getMessage() for r in caplog.records]
    assert messages == [
        "hook h stderr: line 0",
        "hook h stderr: line 1",
        f"hook h: 3 more warnings like the above suppressed; {EVERY_STDERR_LINE}",
    ]
    limited.flush()
    assert len(caplog.records) == 3
