"""The JSON-RPC stdio transport against real scripted processes."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from picoclaw_support import HookProc, alive, until, wait_dead

from bounds import GENEROUS_BOUND, SLOW, FakeClock
from hookwright.transports.base import Envelope, Output
from hookwright.transports.ioloop import IoLoop
from hookwright.transports.rpc import (
    RestartPolicy,
    RpcProcess,
    RpcProcessError,
    RpcRemoteError,
    RpcTransport,
    RpcUnavailable,
)

Factory = Callable[..., tuple[RpcProcess, HookProc]]


@pytest.fixture
async def rpc(tmp_path: Path) -> AsyncIterator[Factory]:
    made: list[tuple[RpcProcess, HookProc]] = []

    def make(spec: dict[str, Any] | None = None, **options: Any) -> tuple[RpcProcess, HookProc]:
        hook = HookProc("h", spec or {}, tmp_path / f"h{len(made)}.jsonl")
        options.setdefault("hello_params", {"name": "h", "version": 1, "modes": ["tool"]})
        process = RpcProcess("h", hook.argv, env=hook.env, **options)
        made.append((process, hook))
        return process, hook

    yield make
    for process, _ in made:
        await process.aclose()
    pids = [pid for _, hook in made for pid in hook.pids()]
    assert wait_dead(pids) == [], "hook processes left behind"


def started_pid(hook: HookProc) -> int:
    return int(hook.events("start")[-1]["pid"])


# Handshake and requests ----------------------------------------------------------------------


async def test_starts_lazily_and_greets_with_id_1(rpc: Factory) -> None:
    process, hook = rpc()
    assert hook.records() == []
    assert not process.running
    assert await process.call("hook.before_tool", {"tool": "x"}) == {}
    hello, call = hook.messages()
    assert hello == {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "hook.hello",
        "params": {"name": "h", "version": 1, "modes": ["tool"]},
    }
    assert call["id"] == 2 and call["method"] == "hook.before_tool"


async def test_the_transport_answers_each_way_with_the_same_output_record(
    rpc: Factory,
) -> None:
    """The first send starts the process, the next goes straight to the running connection
    (the per-call record is built without keyword parsing), one more has no timeout: each
    reply is exactly `Output(value=<result>)`."""
    process, hook = rpc()
    transport = RpcTransport(process)
    io = IoLoop(asyncio.get_running_loop())
    bounded = Envelope(method="hook.before_tool", json={"tool": "x"}, timeout=5.0, io=io)
    replies = [
        await transport.handle(bounded),
        await transport.handle(bounded),
        await transport.handle(bounded._replace(timeout=None)),
    ]
    for reply in replies:
        assert type(reply) is Output
        assert reply == Output(value={})
    assert [m["method"] for m in hook.messages()] == ["hook.hello"] + ["hook.before_tool"] * 3


async def test_eager_start_spawns_before_any_call(rpc: Factory) -> None:
    process, hook = rpc()
    await process.start()
    assert process.running and process.pid == started_pid(hook)
    assert [m["method"] for m in hook.messages()] == ["hook.hello"]


@pytest.mark.parametrize("hello", [{"ok": False}, {}, None])
async def test_hello_result_contents_are_ignored(rpc: Factory, hello: Any) -> None:
    process, _ = rpc({"hello": {"result": hello}})
    assert await process.call("hook.before_llm", {}) == {}


async def test_hello_error_fails_the_start_and_kills_the_process(rpc: Factory) -> None:
    process, hook = rpc(
        {"hello": {"error": {"code": -32000, "message": "no"}}}, restart=RestartPolicy(False)
    )
    with pytest.raises(RpcProcessError, match=r"hook\.hello failed"):
        await process.call("hook.before_tool", {})
    assert wait_dead(hook.pids()) == []
    with pytest.raises(RpcProcessError, match="restart disabled"):
        await process.call("hook.before_tool", {})


async def test_hello_never_answered_times_out(rpc: Factory) -> None:
    process, hook = rpc({"hello": {"noreply": True}}, hello_timeout=0.3)
    started = time.monotonic()
    with pytest.raises(RpcProcessError, match=r"no hook\.hello answer within 0\.3s"):
        await process.start()
    assert time.monotonic() - started < GENEROUS_BOUND
    assert wait_dead(hook.pids()) == []


async def test_exit_before_hello_fails_the_start(rpc: Factory) -> None:
    process, _ = rpc({"hello": {"exit": 4}})
    with pytest.raises(RpcProcessError, match="exited with code 4"):
        await process.start()


async def test_unknown_command_is_a_clear_error(tmp_path: Path) -> None:
    process = RpcProcess("ghost", [str(tmp_path / "missing-binary")])
    with pytest.raises(RpcProcessError, match=r"hook ghost: cannot start .*missing-binary"):
        await process.start()
    await process.aclose()


async def test_remote_error_is_raised_with_code(rpc: Factory) -> None:
    process, _ = rpc()
    with pytest.raises(RpcRemoteError) as info:
        await process.call("not.a.hook", {})
    assert info.value.code == -32601
    assert info.value.message == "method not found"


async def test_several_requests_in_flight_and_answered_out_of_order(rpc: Factory) -> None:
    process, hook = rpc(
        {
            "methods": {
                "hook.slow": [{"delay": 0.4, "result": "slow"}],
                "hook.fast": [{"result": "fast"}],
            }
        }
    )
    await process.start()
    slow = asyncio.ensure_future(process.call("hook.slow", {}))
    await until(lambda: bool(hook.messages("hook.slow")))
    assert await process.call("hook.fast", {}) == "fast"
    assert not slow.done()
    assert await slow == "slow"


async def test_writes_that_fill_the_pipe_go_out_whole_and_in_turn(rpc: Factory) -> None:
    """Requests far larger than the pipe's buffer, sent at once: the first waits for room, the
    others queue behind it (none is written into the middle of another), every one answers."""
    process, hook = rpc()
    await process.start()
    big = 300_000
    calls = [process.call("hook.before_tool", {"n": n, "pad": str(n) * big}) for n in range(6)]
    assert await asyncio.gather(*calls) == [{}] * 6
    received = hook.messages("hook.before_tool")
    assert [m["params"]["n"] for m in received] == list(range(6))
    assert all(m["params"]["pad"] == str(m["params"]["n"]) * big for m in received)
    assert len({m["id"] for m in received}) == 6


async def test_ids_never_repeat_and_notifications_have_none(rpc: Factory) -> None:
    process, hook = rpc()
    for _ in range(3):
        await process.call("hook.before_tool", {})
    await process.notify("hook.event", {"Kind": "turn_end"})
    await process.call("hook.after_tool", {})
    messages = hook.messages()
    ids = [m["id"] for m in messages if "id" in m]
    assert ids == [1, 2, 3, 4, 5]
    (note,) = [m for m in messages if m["method"] == "hook.event"]
    assert "id" not in note and note["params"] == {"Kind": "turn_end"}


async def test_cancelled_call_late_answer_is_dropped(
    rpc: Factory, caplog: pytest.LogCaptureFixture
) -> None:
    process, _ = rpc(
        {"methods": {"hook.before_tool": [{"times": 1, "delay": 0.4, "result": "late"}]}}
    )
    with pytest.raises(TimeoutError):
        await process.call("hook.before_tool", {}, timeout=0.1)
    await asyncio.sleep(0.5)
    assert await process.call("hook.before_tool", {}) == {}
    assert "matches no pending request" in caplog.text


# Bad output -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "logged"),
    [
        ({"id": "2", "result": "x"}, "invalid id '2'"),
        ({"id": 0, "result": "x"}, "response without an id"),
        ({"drop_id": True, "result": "x"}, "response without an id"),
        ({"id": -1, "result": "x"}, "invalid id -1"),
        ({"id": 2.0, "result": "x"}, "invalid id 2.0"),
        ({"before": ['{"id":2,"jsonrpc":2,"result":1}'], "noreply": True}, "not a string"),
        ({"before": ['{"id":2,"error":"boom"}'], "noreply": True}, "error is not an object"),
        ({"id": 999, "result": "x"}, "id 999 matches no pending request"),
        ({"before": ["not json at all"], "noreply": True}, "non-JSON stdout line"),
        (
            {"before": ['{"jsonrpc":"2.0","method":"hook.ask","id":7}'], "noreply": True},
            "not served",
        ),
    ],
)
async def test_unusable_responses_are_skipped_and_the_call_times_out(
    rpc: Factory, caplog: pytest.LogCaptureFixture, rule: dict[str, Any], logged: str
) -> None:
    caplog.set_level(logging.WARNING, "hookwright.rpc")
    process, _ = rpc({"methods": {"hook.before_tool": [{"times": 1, **rule}]}})
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        await process.call("hook.before_tool", {}, timeout=0.5)
    assert time.monotonic() - started < GENEROUS_BOUND
    assert logged in caplog.text
    assert await process.call("hook.before_tool", {}) == {}


@pytest.mark.parametrize(
    "line",
    [
        '{"jsonrpc":"2.0","id":2,"method":null,"result":"ok"}',
        '{"JSONRPC":"2.0","Id":2,"Result":"ok"}',
        '{"jsonrpc":"2.0","id":2,"method":"","error":null,"result":"ok"}',
    ],
)
async def test_responses_decode_as_go_reads_them(rpc: Factory, line: str) -> None:
    """PicoClaw reads a response into a Go struct: keys match case-insensitively and a null or
    empty `method` is no method."""
    process, _ = rpc({"methods": {"hook.before_tool": [{"before": [line], "noreply": True}]}})
    assert await process.call("hook.before_tool", {}, timeout=10) == "ok"


async def test_an_error_object_is_read_case_insensitively(rpc: Factory) -> None:
    line = '{"jsonrpc":"2.0","id":2,"error":{"Code":-32000,"MESSAGE":"nope"}}'
    process, _ = rpc({"methods": {"hook.before_tool": [{"before": [line], "noreply": True}]}})
    with pytest.raises(RpcRemoteError, match="nope"):
        await process.call("hook.before_tool", {}, timeout=10)


async def test_garbage_flood_does_not_wedge_the_reader(rpc: Factory) -> None:
    process, _ = rpc({"methods": {"hook.before_tool": [{"garbage": 5000, "result": "ok"}]}})
    assert await process.call("hook.before_tool", {}, timeout=10) == "ok"


async def test_a_2mb_line_is_discarded_and_reading_goes_on(
    rpc: Factory, caplog: pytest.LogCaptureFixture
) -> None:
    process, _ = rpc(
        {"methods": {"hook.before_tool": [{"big_line": 2 * 1024 * 1024, "result": "after"}]}}
    )
    assert await process.call("hook.before_tool", {}, timeout=10) == "after"
    assert "stdout line over 1048576 bytes discarded" in caplog.text
    assert await process.call("hook.before_tool", {}, timeout=5) == "after"


async def test_max_line_bounds_each_response_line(rpc: Factory) -> None:
    process, _ = rpc(
        {
            "methods": {
                "hook.short": [{"result": "y" * 100}],
                "hook.long": [{"result": "y" * 400}],
            }
        },
        max_line=300,
    )
    assert await process.call("hook.short", {}) == "y" * 100
    with pytest.raises(TimeoutError):
        await process.call("hook.long", {}, timeout=0.3)
    assert await process.call("hook.short", {}) == "y" * 100


# Crash and restart -----------------------------------------------------------------------------


async def test_crash_mid_call_fails_every_pending_call_at_once(rpc: Factory) -> None:
    process, hook = rpc(
        {
            "methods": {
                "hook.slow": [{"delay": SLOW, "result": "never"}],
                "hook.die": [{"delay": 0.2, "exit": 3}],
            }
        },
        restart=RestartPolicy(initial_backoff=60),
    )
    await process.start()
    pid = started_pid(hook)
    slow = [asyncio.ensure_future(process.call("hook.slow", {})) for _ in range(3)]
    started = time.monotonic()
    with pytest.raises(RpcProcessError, match="exited with code 3"):
        await process.call("hook.die", {})
    for call in slow:
        with pytest.raises(RpcProcessError, match="exited with code 3"):
            await call
    assert time.monotonic() - started < GENEROUS_BOUND
    assert not alive(pid)
    with pytest.raises(RpcUnavailable, match="restart in"):
        await process.call("hook.before_tool", {})


async def test_restart_after_backoff_with_exponential_growth(rpc: Factory) -> None:
    clock = FakeClock()
    policy = RestartPolicy(initial_backoff=0.5, multiplier=2.0, max_backoff=10)
    process, hook = rpc({"methods": {"hook.die": [{"exit": 1}]}}, restart=policy, clock=clock)
    with pytest.raises(RpcProcessError):
        await process.call("hook.die", {})
    first_pid = started_pid(hook)
    clock.advance(0.25)
    with pytest.raises(RpcUnavailable, match=r"restart in 0\.25s"):
        await process.call("hook.before_tool", {})
    clock.advance(0.25)
    with pytest.raises(RpcProcessError, match="exited"):
        await process.call("hook.die", {})
    assert process.restarts == 1 and process.failures == 2
    # The second failure doubles the window: 0.5 s later it is still closed.
    clock.advance(0.5)
    with pytest.raises(RpcUnavailable, match=r"restart in 0\.50s"):
        await process.call("hook.before_tool", {})
    clock.advance(0.5)
    assert await process.call("hook.before_tool", {}) == {}
    assert process.restarts == 2 and process.failures == 0
    pids = [start["pid"] for start in hook.events("start")]
    assert len(pids) == 3 and pids[0] == first_pid and len(set(pids)) == 3
    assert [m["id"] for m in hook.messages("hook.hello")] == [1, 1, 1]


async def test_restart_disabled_keeps_the_process_down(rpc: Factory) -> None:
    process, hook = rpc({"methods": {"hook.die": [{"exit": 1}]}}, restart=RestartPolicy(False))
    with pytest.raises(RpcProcessError):
        await process.call("hook.die", {})
    await asyncio.sleep(0.1)
    with pytest.raises(RpcProcessError, match="restart disabled"):
        await process.call("hook.before_tool", {})
    assert len(hook.events("start")) == 1


async def test_max_restarts_is_honoured(rpc: Factory) -> None:
    clock = FakeClock()
    policy = RestartPolicy(initial_backoff=0.01, max_restarts=1)
    process, hook = rpc({"methods": {"hook.die": [{"exit": 1}]}}, restart=policy, clock=clock)
    for _ in range(2):
        with pytest.raises(RpcProcessError):
            await process.call("hook.die", {})
        clock.advance(policy.max_backoff)
    with pytest.raises(RpcProcessError, match="restart limit reached"):
        await process.call("hook.before_tool", {})
    assert len(hook.events("start")) == 2


# Shutdown ---------------------------------------------------------------------------------------


async def test_close_ends_a_well_behaved_process_through_stdin(rpc: Factory) -> None:
    process, hook = rpc(close_timeout=SLOW, term_timeout=SLOW)
    await process.start()
    pid = started_pid(hook)
    started = time.monotonic()
    await process.aclose()
    assert time.monotonic() - started < GENEROUS_BOUND
    assert hook.events("eof") and not alive(pid)
    with pytest.raises(RpcProcessError, match="closed"):
        await process.call("hook.before_tool", {})


async def test_close_sends_sigterm_to_a_process_ignoring_stdin(rpc: Factory) -> None:
    process, hook = rpc({"on_eof": "ignore"}, close_timeout=0.3, term_timeout=SLOW)
    await process.start()
    pid = started_pid(hook)
    started = time.monotonic()
    await process.aclose()
    assert 0.3 <= time.monotonic() - started < GENEROUS_BOUND
    assert hook.events("eof") and not alive(pid)


async def test_close_kills_a_process_ignoring_stdin_and_sigterm(rpc: Factory) -> None:
    process, hook = rpc(
        {"on_eof": "ignore", "ignore_sigterm": True, "spawn_child": True},
        close_timeout=0.2,
        term_timeout=0.2,
    )
    await process.start()
    pids = hook.pids()
    assert len(pids) == 2 and all(alive(pid) for pid in pids)
    started = time.monotonic()
    await process.aclose()
    assert 0.4 <= time.monotonic() - started < GENEROUS_BOUND
    assert wait_dead(pids) == []


async def test_close_fails_pending_calls(rpc: Factory) -> None:
    process, _ = rpc({"methods": {"hook.slow": [{"delay": SLOW}]}}, close_timeout=0.1)
    await process.start()
    pending = asyncio.ensure_future(process.call("hook.slow", {}))
    await asyncio.sleep(0.1)
    await process.aclose()
    with pytest.raises(RpcProcessError):
        await pending


async def test_close_during_a_slow_handshake(rpc: Factory) -> None:
    process, hook = rpc({"hello": {"noreply": True}})
    start = asyncio.ensure_future(process.start())
    await until(lambda: bool(hook.events("start")))
    await process.aclose()
    with pytest.raises((RpcProcessError, asyncio.CancelledError)):
        await start
    assert wait_dead(hook.pids()) == []


async def test_the_process_group_is_its_own(rpc: Factory) -> None:
    process, hook = rpc()
    await process.start()
    pid = started_pid(hook)
    assert os.getpgid(pid) == pid != os.getpgid(0)


# Environment, stderr, threads -------------------------------------------------------------------


async def test_env_merges_over_the_parent_environment_and_cwd_is_set(
    rpc: Factory, tmp_path: Path
) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    process, hook = rpc(cwd=workdir)
    process.env = {**(process.env or {}), "HOOKPROC_X_ONE": "1"}
    await process.start()
    start = hook.events("start")[0]
    assert start["cwd"] == str(workdir)
    assert start["env"] == {"HOOKPROC_X_ONE": "1"}


async def test_stderr_is_logged_line_by_line_with_the_hook_name(
    rpc: Factory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "hookwright.rpc")
    process, _ = rpc({"stderr": ["first problem", "second problem"]})
    await process.start()
    assert await until(lambda: "second problem" in caplog.text)
    lines = [r for r in caplog.records if r.name == "hookwright.rpc" and "stderr" in r.message]
    assert [r.getMessage() for r in lines] == [
        "hook h stderr: first problem",
        "hook h stderr: second problem",
    ]
    assert process.stderr_tail() == "first problem\nsecond problem"


async def test_notify_nowait_from_another_thread_never_blocks(rpc: Factory) -> None:
    process, hook = rpc()
    await process.start()
    sent: list[bool] = []

    def worker() -> None:
        sent.extend(process.notify_nowait("hook.event", {"n": n}, timeout=0.5) for n in range(5))

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(timeout=GENEROUS_BOUND)
    assert sent == [True] * 5
    assert await until(lambda: len(hook.messages("hook.event")) == 5)
    assert sorted(m["params"]["n"] for m in hook.messages("hook.event")) == list(range(5))


async def test_a_process_on_the_host_loop_answers_that_loop_and_another_threads_loop(
    rpc: Factory,
) -> None:
    """Bound to the host's loop, a call made on it goes straight to the pipe; a call made on
    another thread's loop (the same thread id never runs two loops at once) hops onto the
    host's loop, where the process's pipes live, and is answered there."""
    process, hook = rpc(io=IoLoop(asyncio.get_running_loop()))
    assert await process.call("hook.before_tool", {"n": 1}, timeout=10) == {}
    answers: list[Any] = []

    def other_thread() -> None:
        answers.append(asyncio.run(process.call("hook.before_tool", {"n": 2}, timeout=10)))

    thread = threading.Thread(target=other_thread)
    thread.start()
    assert await until(lambda: not thread.is_alive())
    thread.join()
    assert answers == [{}]
    assert [m["params"] for m in hook.messages("hook.before_tool")] == [{"n": 1}, {"n": 2}]


async def test_notifications_beyond_the_bound_are_dropped(rpc: Factory) -> None:
    process, hook = rpc({"hello": {"delay": 0.3, "result": {}}}, max_pending_notifications=2)
    results = [process.notify_nowait("hook.event", {"n": n}) for n in range(5)]
    assert results == [True, True, False, False, False]
    assert process.dropped_notifications == 3
    assert await until(lambda: len(hook.messages("hook.event")) == 2)


async def test_sigterm_reaches_the_whole_group_on_close(rpc: Factory) -> None:
    process, hook = rpc({"on_eof": "ignore", "spawn_child": True}, close_timeout=0.1)
    await process.start()
    child = hook.events("start")[0]["child_pid"]
    await process.aclose()
    assert wait_dead([child]) == []
