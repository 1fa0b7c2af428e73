from __future__ import annotations

import asyncio
import os
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from bounds import eventually
from hookwright.runtime.tools import bash as bash_module
from hookwright.runtime.tools.base import ToolContext, ToolInputError, ToolOutput
from hookwright.runtime.tools.bash import BashTool, CappedText, duration_text, timeout_for

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="process checks read /proc"
)


def running(pid: int) -> bool:
    """True while `pid` exists and is not a zombie (an unreaped corpse runs nothing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def run_bash(ctx: ToolContext, **arguments: Any) -> ToolOutput:
    tool = BashTool()
    return await tool.run(tool.validate(arguments), ctx)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path)


async def test_stdout_and_stderr_are_merged_in_the_order_written(ctx: ToolContext) -> None:
    output = await run_bash(ctx, command="echo out; echo err >&2; echo out2")

    assert output.data == {
        "stdout": "out\nerr\nout2",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    assert output.content == "out\nerr\nout2"
    assert not output.is_error
    assert output.error is None


async def test_silent_success_says_so(ctx: ToolContext) -> None:
    output = await run_bash(ctx, command="true")

    assert output.content == "(Bash completed with no output)"
    assert not output.is_error


async def test_output_loses_leading_blank_lines_and_trailing_whitespace(
    ctx: ToolContext,
) -> None:
    output = await run_bash(ctx, command="printf ' \\n\\t\\n  a  \\n b \\n\\n'")

    assert output.data is not None
    assert output.data["stdout"] == "  a  \n b"
    assert output.content == "  a  \n b"


async def test_errors_read_as_bash_c_reports_them(ctx: ToolContext) -> None:
    missing = await run_bash(ctx, command="true\nnot-a-command-here")
    syntax = await run_bash(ctx, command="echo (")

    assert missing.content == (
        "Exit code 127\n/bin/bash: line 3: not-a-command-here: command not found"
    )
    assert syntax.content.splitlines()[:2] == [
        "Exit code 2",
        "/bin/bash: eval: line 1: syntax error near unexpected token `newline'",
    ]


async def test_non_zero_exit_is_an_error_whose_first_line_is_the_exit_code(
    ctx: ToolContext,
) -> None:
    output = await run_bash(ctx, command="echo partial; echo 'no such thing' >&2; exit 3")

    assert output.is_error
    assert output.error is not None
    assert output.error.splitlines() == ["Exit code 3", "partial", "no such thing"]
    assert output.content == output.error
    assert output.data is not None
    assert output.data["stdout"] == "partial\nno such thing"
    assert output.cwd is None


async def test_death_by_signal_reports_128_plus_the_signal(ctx: ToolContext) -> None:
    output = await run_bash(ctx, command="kill -KILL $$")

    assert output.error is not None
    assert output.error.splitlines()[0] == "Exit code 137"


async def test_runs_in_the_session_cwd_with_stdin_closed(ctx: ToolContext) -> None:
    output = await run_bash(ctx, command="pwd; cat; echo after-cat")

    assert output.data is not None
    assert output.data["stdout"] == f"{os.path.realpath(ctx.cwd)}\nafter-cat"


async def test_extra_environment_is_visible(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path, env={"HW_GREETING": "hello there"})

    output = await run_bash(ctx, command='echo "$HW_GREETING"')

    assert output.content == "hello there"


async def test_env_files_are_sourced_before_every_command(tmp_path: Path) -> None:
    spaced = tmp_path / "dir with space"
    spaced.mkdir()
    first = spaced / "env one.sh"
    first.write_text("export FOO=bar\n")
    second = tmp_path / "second.sh"
    second.write_text('export BAZ="$FOO-qux"\n')
    ctx = ToolContext(cwd=tmp_path, env_files=[first, tmp_path / "missing.sh", Path("second.sh")])

    output = await run_bash(ctx, command='echo "$FOO $BAZ"')
    again = await run_bash(ctx, command='echo "$FOO"')

    assert output.content == "bar bar-qux"
    assert again.content == "bar"
    assert not output.is_error


async def test_fifty_megabytes_of_output_is_capped_without_buffering_it(
    ctx: ToolContext,
) -> None:
    size = 50_000_000
    tracemalloc.start()
    try:
        output = await run_bash(ctx, command=f"head -c {size} /dev/zero | tr '\\0' x")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert not output.is_error
    assert peak < 16_000_000
    assert output.content.count("x") == bash_module.MAX_OUTPUT_CHARS
    assert f"[{size - bash_module.MAX_OUTPUT_CHARS} characters truncated]" in output.content
    assert output.data is not None
    assert len(output.data["stdout"]) < bash_module.MAX_OUTPUT_CHARS + 100


async def test_floods_on_both_streams_share_one_cap(ctx: ToolContext) -> None:
    command = (
        "head -c 3000000 /dev/zero | tr '\\0' x & head -c 3000000 /dev/zero | tr '\\0' q >&2; wait"
    )

    output = await run_bash(ctx, command=command)

    assert output.data is not None
    shown = output.data["stdout"]
    assert shown.count("x") + shown.count("q") == bash_module.MAX_OUTPUT_CHARS
    assert "[5970000 characters truncated]" in shown


async def test_invalid_utf8_is_replaced_not_fatal(ctx: ToolContext) -> None:
    output = await run_bash(ctx, command="printf 'ok\\377\\376 done\\n'")

    assert output.data is not None
    assert output.data["stdout"] == "ok\ufffd\ufffd done"
    assert not output.is_error


async def test_timeout_kills_the_whole_process_group(ctx: ToolContext) -> None:
    output = await run_bash(ctx, command="sleep 60 & echo $!; sleep 60", timeout=300)

    assert output.is_error
    assert output.data is not None
    assert output.data["interrupted"] is True
    assert output.error is not None
    child = int(output.data["stdout"])
    assert output.error == f"Exit code 143\nCommand timed out after 0s\n{child}", (
        "Claude Code's order: the timeout before the output, in whole seconds"
    )
    assert eventually(lambda: not running(child))


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (0, "0s"),
        (0.5, "0.0s"),
        (1500, "1s"),
        (59_999, "59s"),
        (60_000, "1m 0s"),
        (119_600, "2m 0s"),
        (600_000, "10m 0s"),
        (3_600_000, "1h 0m 0s"),
        (90_061_000, "1d 1h 1m"),
    ],
)
def test_a_duration_reads_as_claude_code_words_it(ms: float, text: str) -> None:
    assert duration_text(ms) == text


async def test_timeout_escalates_to_sigkill_when_sigterm_is_ignored(ctx: ToolContext) -> None:
    output = await run_bash(ctx, command="trap '' TERM; sleep 60 & echo $!; wait", timeout=300)

    assert output.data is not None
    assert output.data["interrupted"] is True
    assert output.error is not None
    assert output.error.splitlines()[0] == "Exit code 137"
    assert eventually(lambda: not running(int(output.data["stdout"])))


async def test_default_timeout_applies_when_none_is_given(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bash_module, "DEFAULT_TIMEOUT_MS", 200)

    output = await run_bash(ctx, command="sleep 60")

    assert output.data is not None
    assert output.data["interrupted"] is True


async def test_background_child_holding_stdout_is_stopped_after_bash_exits(
    ctx: ToolContext,
) -> None:
    output = await run_bash(ctx, command="sleep 60 & echo $!", timeout=60_000)

    assert output.data is not None
    assert output.data["interrupted"] is False
    assert not output.is_error
    assert "Background processes" in output.content
    assert eventually(lambda: not running(int(output.data["stdout"])))


async def test_background_child_with_redirected_output_does_not_delay_the_result(
    ctx: ToolContext,
) -> None:
    output = await run_bash(ctx, command="sleep 60 > /dev/null 2>&1 & echo $!", timeout=60_000)
    assert output.data is not None
    child = int(output.data["stdout"])
    try:
        assert "Background processes" not in output.content
        assert running(child)
    finally:
        os.kill(child, 9)


async def test_cancellation_kills_the_process_group_and_reraises(ctx: ToolContext) -> None:
    pids = ctx.cwd / "pids"
    command = f"sleep 60 & echo $! > {pids}.tmp; echo $$ >> {pids}.tmp; mv {pids}.tmp {pids}; wait"
    task = asyncio.create_task(run_bash(ctx, command=command))
    for _ in range(500):
        if pids.exists():
            break
        await asyncio.sleep(0.01)
    child, shell = (int(line) for line in pids.read_text().split())
    assert running(child) and running(shell)

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert eventually(lambda: not running(child) and not running(shell))


async def test_run_in_background_is_accepted_and_run_in_the_foreground(
    ctx: ToolContext,
) -> None:
    output = await run_bash(ctx, command="echo done", run_in_background=True)

    assert output.content.splitlines()[0] == "done"
    assert "ran in the foreground" in output.content


async def test_missing_working_directory_is_reported(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path / "gone")

    output = await run_bash(ctx, command="true")

    assert output.is_error
    assert "Working directory does not exist" in output.content


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({}, "command: field required"),
        ({"command": "true", "cwd": "/"}, "cwd: extra inputs are not permitted"),
    ],
)
def test_invalid_arguments_name_the_field(arguments: dict[str, Any], field: str) -> None:
    with pytest.raises(ToolInputError, match=field):
        BashTool().validate(arguments)


@pytest.mark.parametrize(
    ("timeout", "runs_with"),
    [(None, 120_000), (0, 120_000), (600_001, 600_000), (1.5, 1.5), (-5, -5)],
)
def test_any_timeout_and_an_empty_command_are_taken(
    timeout: float | None, runs_with: float
) -> None:
    """As in Claude Code (measured): they reach the hooks and run."""
    arguments = {"command": "", **({} if timeout is None else {"timeout": timeout})}
    assert BashTool().validate(arguments) == arguments
    assert timeout_for(timeout) == runs_with


def test_schema_has_claude_code_field_names() -> None:
    schema = BashTool().input_schema()

    assert set(schema["properties"]) == {"command", "description", "timeout", "run_in_background"}
    assert schema["required"] == ["command"]
    assert schema["properties"]["timeout"]["maximum"] == 600_000


def test_capped_text_keeps_head_and_tail_across_multibyte_chunks() -> None:
    text = CappedText(limit=10)
    payload = ("é" * 30 + "END").encode()
    for index in range(len(payload)):
        text.feed(payload[index : index + 1])
    text.feed(b"", final=True)

    assert text.total == 33
    assert text.render(10) == "ééééé\n\n... [23 characters truncated] ...\n\nééEND"
    assert text.render(40) == text.render(10)


def test_capped_text_short_stream_is_returned_whole() -> None:
    text = CappedText(limit=10)
    text.feed(b"abc")
    text.feed(b"def")

    assert text.render(10) == "abcdef"
    assert text.render(4) == "ab\n\n... [2 characters truncated] ...\n\nef"


@pytest.mark.parametrize("ticks", range(12))
async def test_cancellation_while_starting_leaves_nothing_behind(
    ctx: ToolContext, ticks: int
) -> None:
    """Cancel at each early scheduling point, including while asyncio is still connecting pipes."""
    pid_file = ctx.cwd / "child"
    command = f"sleep 120 & echo $! > {pid_file}.tmp; mv {pid_file}.tmp {pid_file}; wait"
    task = asyncio.create_task(run_bash(ctx, command=command))
    for _ in range(ticks):
        await asyncio.sleep(0)

    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=30)

    assert task in done, "the cancelled call is waiting for a leaked background child"
    assert task.cancelled()
    if pid_file.exists():
        assert eventually(lambda: not running(int(pid_file.read_text())))


async def test_cancellation_during_a_slow_start_still_kills_the_group(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A start that completes only after the caller gave up (a loaded machine) is not leaked."""
    loop = asyncio.get_running_loop()
    real_exec = loop.subprocess_exec
    pid_file = ctx.cwd / "child"
    started = asyncio.Event()

    async def late_exec(*args: Any, **kwargs: Any) -> Any:
        result = await real_exec(*args, **kwargs)
        while not pid_file.exists():
            await asyncio.sleep(0.01)
        started.set()
        await asyncio.sleep(bash_module.KILL_GRACE_S * 1.5)
        return result

    monkeypatch.setattr(loop, "subprocess_exec", late_exec)
    command = f"sleep 120 & echo $! > {pid_file}.tmp; mv {pid_file}.tmp {pid_file}; wait"
    task = asyncio.create_task(run_bash(ctx, command=command))
    await started.wait()

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert eventually(lambda: not running(int(pid_file.read_text())))
