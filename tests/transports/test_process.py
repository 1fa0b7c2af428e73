"""The one-shot process transport against real child processes."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

import pytest

from bounds import GENEROUS_BOUND, eventually
from hookwright.transports.process import run_process


def alive(pid: int) -> bool:
    """True while `pid` is a running (not zombie) process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


def py(code: str) -> list[str]:
    return [sys.executable, "-c", code]


async def wait_for_lines(path: Path, count: int) -> list[int]:
    for _ in range(500):
        if path.exists():
            lines = path.read_text().split()
            if len(lines) >= count:
                return [int(line) for line in lines[:count]]
        await asyncio.sleep(0.01)
    raise AssertionError(f"{path} never got {count} lines")


@pytest.mark.parametrize("code", [0, 1, 2, 3, 127])
async def test_exit_code_exec_form(code: int) -> None:
    outcome = await run_process(argv=py(f"import sys; sys.exit({code})"))
    assert outcome.exit_code == code
    assert outcome.spawn_error is None
    assert not outcome.timed_out


@pytest.mark.parametrize("code", [0, 2, 42])
async def test_exit_code_shell_form(code: int) -> None:
    outcome = await run_process(command=f"echo out; echo err >&2; exit {code}")
    assert (outcome.exit_code, outcome.stdout, outcome.stderr) == (code, "out\n", "err\n")


async def test_stdin_is_delivered_then_closed() -> None:
    data = json.dumps({"tool_name": "Bash", "x": "é" * 1000}).encode() + b"\n"
    outcome = await run_process(
        argv=py("import sys; d = sys.stdin.buffer.read(); print(len(d)); print(d.decode())"),
        stdin_data=data,
        timeout=10,
    )
    assert not outcome.timed_out
    length, echoed = outcome.stdout.split("\n", 1)
    assert int(length) == len(data)
    assert echoed.rstrip("\n") == data.decode().rstrip("\n")


async def test_exit_without_reading_stdin_is_fine() -> None:
    outcome = await run_process(command="exit 0", stdin_data=b"x" * 2_000_000, timeout=10)
    assert outcome.exit_code == 0
    assert outcome.spawn_error is None
    assert not outcome.timed_out


async def test_fifty_megabytes_are_capped_and_drained() -> None:
    code = (
        "import sys\n"
        "chunk = b'y' * (1 << 20)\n"
        "for _ in range(50):\n"
        "    sys.stdout.buffer.write(chunk)\n"
        "    sys.stderr.buffer.write(chunk)\n"
        "print('end', file=sys.stderr)\n"
    )
    outcome = await run_process(argv=py(code), max_output=100_000, timeout=60)
    assert outcome.exit_code == 0
    assert not outcome.timed_out
    assert outcome.stdout_truncated and outcome.stderr_truncated
    assert len(outcome.stdout) == 100_000 == len(outcome.stderr)


async def test_invalid_utf8_is_replaced() -> None:
    outcome = await run_process(argv=py("import sys; sys.stdout.buffer.write(b'ok \\xff\\xfe!')"))
    assert outcome.stdout == "ok \ufffd\ufffd!"


async def test_timeout_kills_the_group_with_a_background_child_holding_stdout(
    tmp_path: Path,
) -> None:
    pids = tmp_path / "pids"
    started = time.monotonic()
    outcome = await run_process(
        command=f"echo $$ > {pids}; sleep 60 & echo $! >> {pids}; sleep 60", timeout=0.5
    )
    elapsed = time.monotonic() - started
    leader, child = await wait_for_lines(pids, 2)
    assert outcome.timed_out
    assert outcome.exit_code is None
    assert elapsed < GENEROUS_BOUND
    assert eventually(lambda: not alive(leader) and not alive(child))


async def test_a_child_ignoring_sigterm_is_killed(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    outcome = await run_process(
        command=f"trap '' TERM; sleep 60 & echo $! > {pids}; sleep 60", timeout=0.3
    )
    (child,) = await wait_for_lines(pids, 1)
    assert outcome.timed_out
    assert eventually(lambda: not alive(child))


async def test_cancellation_kills_the_group_and_propagates(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    task = asyncio.ensure_future(
        run_process(command=f"echo $$ > {pids}; sleep 60 & echo $! >> {pids}; wait")
    )
    leader, child = await wait_for_lines(pids, 2)
    assert alive(leader) and alive(child)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert eventually(lambda: not alive(leader) and not alive(child))


def lines_written(path: Path, count: int, within: float) -> list[int] | None:
    """The first `count` lines of `path` once written, waited for without letting the event
    loop run (so nothing the loop has scheduled meanwhile happens)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if path.exists() and len(lines := path.read_text().split()) >= count:
            return [int(line) for line in lines[:count]]
        time.sleep(0.01)
    return None


async def test_cancellation_while_the_start_is_under_way_kills_the_group(tmp_path: Path) -> None:
    """Cancelled after the fork but before the loop connected the pipes: the group, whose
    background child holds the output pipes open, is killed at once, not when it exits."""
    pids = tmp_path / "pids"
    task = asyncio.ensure_future(
        run_process(command=f"echo $$ > {pids}; sleep 60 & echo $! >> {pids}; wait")
    )
    found = None
    for _ in range(20):
        await asyncio.sleep(0)
        found = lines_written(pids, 2, within=0.2)
        if found is not None:
            break
    assert found is not None
    leader, child = found
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < GENEROUS_BOUND
    assert eventually(lambda: not alive(leader) and not alive(child))


async def test_background_child_holding_stdout_does_not_hang() -> None:
    outcome = await run_process(command="sleep 60 & echo $!; echo done", timeout=20)
    assert not outcome.timed_out
    assert outcome.exit_code == 0
    child, done = outcome.stdout.split()
    assert done == "done"
    assert eventually(lambda: not alive(int(child)))


async def test_background_child_not_holding_stdout_is_reaped_too(tmp_path: Path) -> None:
    outcome = await run_process(command="sleep 60 >/dev/null 2>&1 & echo $!", timeout=20)
    assert outcome.exit_code == 0
    assert eventually(lambda: not alive(int(outcome.stdout)))


async def test_missing_executable_exec_form() -> None:
    outcome = await run_process(argv=["hookwright-no-such-binary", "x"])
    assert outcome.exit_code is None
    assert outcome.spawn_error == "executable not found: hookwright-no-such-binary"


async def test_missing_command_shell_form_exits_127() -> None:
    outcome = await run_process(command="hookwright-no-such-binary --flag")
    assert outcome.spawn_error is None
    assert outcome.exit_code == 127
    assert "hookwright-no-such-binary" in outcome.stderr


async def test_missing_cwd_is_a_spawn_error(tmp_path: Path) -> None:
    outcome = await run_process(command="true", cwd=tmp_path / "nope")
    assert outcome.spawn_error == f"working directory not found: {tmp_path / 'nope'}"


async def test_cwd_and_env_reach_the_child(tmp_path: Path) -> None:
    outcome = await run_process(
        command='pwd; echo "$HOOK_VAR"',
        cwd=tmp_path,
        env={"PATH": os.environ["PATH"], "HOOK_VAR": "v1"},
    )
    assert outcome.stdout.split() == [str(tmp_path), "v1"]


async def test_bash_shell_is_used_when_asked() -> None:
    outcome = await run_process(command='echo "${BASH_VERSION:+bash}"', shell="bash")
    assert outcome.stdout == "bash\n"


async def test_death_by_foreign_signal_is_reported_like_a_shell() -> None:
    outcome = await run_process(argv=py("import os, signal; os.kill(os.getpid(), 9)"))
    assert outcome.exit_code == 128 + 9


async def test_detach_on_first_line_returns_early_and_collects_in_background() -> None:
    seen: list[str] = []

    def declare(line: str) -> bool:
        seen.append(line)
        return bool(json.loads(line).get("async"))

    outcome = await run_process(
        command='echo \'{"async": true}\'; read x; echo "got $x"; exit 3',
        stdin_data=b"input\n",
        on_first_line=declare,
        timeout=20,
    )
    assert seen == ['{"async": true}']
    assert outcome.detached and outcome.background is not None
    assert outcome.exit_code is None
    assert outcome.stdout == '{"async": true}'
    final = await outcome.background
    assert final.exit_code == 3
    assert final.stdout == '{"async": true}\ngot input\n'


async def test_first_line_not_a_declaration_runs_to_the_end() -> None:
    outcome = await run_process(
        command='echo "plain"; sleep 0.1; echo "{}"', on_first_line=lambda line: False
    )
    assert not outcome.detached
    assert outcome.stdout == "plain\n{}\n"


async def test_cancelling_a_detached_process_kills_it(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    outcome = await run_process(
        command=f"echo $$ > {pids}; echo async; sleep 60", on_first_line=lambda line: True
    )
    assert outcome.background is not None
    (leader,) = await wait_for_lines(pids, 1)
    outcome.background.cancel()
    with pytest.raises(asyncio.CancelledError):
        await outcome.background
    assert eventually(lambda: not alive(leader))


async def test_detached_process_keeps_its_deadline() -> None:
    outcome = await run_process(
        command="echo async; sleep 60", on_first_line=lambda line: True, timeout=0.3
    )
    assert outcome.background is not None
    final = await outcome.background
    assert final.timed_out and final.exit_code is None
    pid = final.pid
    assert pid is not None and eventually(lambda: not alive(pid))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({}, "exactly one"), ({"command": "true", "argv": ["true"]}, "exactly one")],
)
async def test_bad_calls_raise(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        await run_process(**kwargs)  # type: ignore[arg-type]
