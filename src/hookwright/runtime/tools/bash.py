"""The Bash tool: one `/bin/bash -c` per call, in its own process group, with Claude Code's
persistent working directory and result shapes.

The command runs as `eval '<command>' && pwd -P >| <file>`, as Claude Code runs it: stdout and
stderr share one pipe (so the output is merged in the order it was written), error messages
read `/bin/bash: line N: ...`, and when the command succeeds the shell's final directory is
written to a private file. The next call starts there (`cd` persists); a directory outside
the project is not kept (the shell goes back to the project and says so), and one that no
longer exists makes the next call run in the project.

Output arrives through a subprocess protocol rather than stream readers, so every chunk is
decoded and folded into a bounded head/tail window the moment it lands: a command printing
gigabytes costs CPU, never memory, and the pipe can never fill up and deadlock the child.

Three things end a call besides a normal exit, and each one kills the whole process group
(SIGTERM, then SIGKILL a second later) so nothing the command started is left behind:

* the timeout;
* bash exiting while something it started in the background still holds the output pipe open
  (after a short grace period, so late output is still collected);
* cancellation of the awaiting task (the group is killed at once and the cancel re-raised).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import math
import os
import re
import shlex
import signal
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from hookwright.runtime.tools.base import ModelTool, ToolContext, ToolOutput, failure
from hookwright.runtime.tools.quiet import no_output_expected
from hookwright.runtime.tools.responses import BASH_NO_OUTPUT, bash_response
from hookwright.runtime.tools.shell_cwd import Settled, cwd_record, settle, start_dir, tracked
from hookwright.transports import adoption
from hookwright.transports.adoption import mark_environment
from hookwright.transports.groups import group_alive, signal_group

MAX_OUTPUT_CHARS = 30_000
DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
KILL_GRACE_S = 1.0
PIPE_GRACE_S = 2.0
"""How long background children may keep the output pipes open after bash itself has exited."""

_LEADING_BLANK_LINES = re.compile(r"\A(?:[^\S\n]*\n)+")


class BashInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # The bounds are shown to the model and not enforced: Claude Code runs an empty command and
    # any timeout (`timeout_for`), after its hooks (measured).
    command: str = Field(description="The command to execute", json_schema_extra={"minLength": 1})
    description: str | None = Field(
        default=None, description="Clear, concise description of what this command does"
    )
    timeout: float | None = Field(
        default=None,
        description=f"Optional timeout in milliseconds (max {MAX_TIMEOUT_MS})",
        json_schema_extra={"exclusiveMinimum": 0, "maximum": MAX_TIMEOUT_MS},
    )
    run_in_background: bool | None = Field(
        default=None,
        description="Accepted for compatibility; the command always runs in the foreground",
    )


class CappedText:
    """Decoded text of one stream, keeping only its first and last `limit` characters."""

    def __init__(self, limit: int) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._limit = limit
        self._head = ""
        self._tail = ""
        self._dropped = 0
        self.total = 0

    def feed(self, data: bytes, *, final: bool = False) -> None:
        text = self._decoder.decode(data, final)
        if not text:
            return
        self.total += len(text)
        room = self._limit - len(self._head)
        if room > 0:
            self._head += text[:room]
            text = text[room:]
        if text:
            tail = self._tail + text
            excess = len(tail) - self._limit
            if excess > 0:
                self._dropped += excess
                tail = tail[excess:]
            self._tail = tail

    def render(self, budget: int) -> str:
        """At most `budget` characters (plus a marker saying how many were cut from the middle)."""
        budget = min(budget, self._limit)
        if self.total <= budget:
            return self._head + self._tail
        if self._dropped:
            head, tail = self._head, self._tail
        else:
            head = tail = self._head + self._tail
        keep_head = budget // 2
        keep_tail = budget - keep_head
        omitted = self.total - budget
        return (
            f"{head[:keep_head]}\n\n... [{omitted} characters truncated] ...\n\n"
            f"{tail[len(tail) - keep_tail :]}"
        )


class _Collector(asyncio.SubprocessProtocol):
    """The merged output of one call (stderr is sent to the same pipe as stdout)."""

    def __init__(self, limit: int) -> None:
        self.output = CappedText(limit)
        self.exited = asyncio.Event()
        self.pipes_closed = asyncio.Event()

    def pipe_data_received(self, fd: int, data: bytes | bytearray) -> None:
        self.output.feed(bytes(data))

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self.output.feed(b"", final=True)
        self.pipes_closed.set()

    def process_exited(self) -> None:
        self.exited.set()


@dataclass(slots=True)
class ShellResult:
    exit_code: int
    output: str
    """stdout and stderr merged, in the order written (capped, not trimmed)."""
    interrupted: bool
    stray_killed: bool


async def run_shell(
    command: str, *, cwd: Path, env: dict[str, str], timeout_s: float
) -> ShellResult:
    """Run `command` with `/bin/bash -c`; see the module docstring for how it can end."""
    loop = asyncio.get_running_loop()
    transport, proto = await _spawn(command, cwd=cwd, env=env)
    pgid = transport.get_pid()
    interrupted = stray_killed = False
    try:
        deadline = loop.time() + timeout_s
        if not await _wait(proto.exited, timeout_s):
            interrupted = True
            await _kill_group(pgid, proto)
        elif not await _wait(proto.pipes_closed, min(PIPE_GRACE_S, deadline - loop.time())):
            stray_killed = True
            await _kill_group(pgid, proto)
        await _wait(proto.pipes_closed, KILL_GRACE_S)
    except asyncio.CancelledError:
        await _abort(pgid, proto)
        raise
    finally:
        transport.close()
        adoption.sweep()
    returncode = transport.get_returncode()
    exit_code = -signal.SIGKILL if returncode is None else returncode
    return ShellResult(
        exit_code=128 - exit_code if exit_code < 0 else exit_code,
        output=proto.output.render(MAX_OUTPUT_CHARS),
        interrupted=interrupted,
        stray_killed=stray_killed,
    )


async def _spawn(
    command: str, *, cwd: Path, env: dict[str, str]
) -> tuple[asyncio.SubprocessTransport, _Collector]:
    """Start bash, shielded from cancellation.

    If asyncio itself were cancelled half-way through connecting the pipes, it would kill only
    bash and then wait for the pipes to close, i.e. for every background child to finish. So a
    cancel lands here instead, the start is allowed to complete, and the whole group is killed.
    """
    loop = asyncio.get_running_loop()
    spawn = asyncio.ensure_future(
        _start_marked(
            loop,
            lambda: _Collector(MAX_OUTPUT_CHARS),
            "/bin/bash",
            "-c",
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            env=mark_environment(env).env,
            start_new_session=True,
        )
    )
    try:
        return await asyncio.shield(spawn)
    except asyncio.CancelledError:
        spawn.add_done_callback(_kill_spawned)
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait([spawn])
            if not spawn.cancelled() and spawn.exception() is None:
                await _until_group_gone(spawn.result()[0].get_pid(), KILL_GRACE_S)
        raise


async def _start_marked(
    loop: asyncio.AbstractEventLoop, factory: Callable[[], _Collector], *args: str, **options: Any
) -> tuple[asyncio.SubprocessTransport, _Collector]:
    """Start the process, registered so the zombies it leaves are reaped (`adoption`)."""
    with adoption.starting():
        transport, proto = await loop.subprocess_exec(factory, *args, **options)
        adoption.started(transport.get_pid())
    return transport, proto


def _kill_spawned(
    spawn: asyncio.Future[tuple[asyncio.SubprocessTransport, _Collector]],
) -> None:
    """Kill the group of a start that finished after its caller was cancelled.

    A done-callback rather than code after an `await`, so it runs however many times the caller
    is cancelled while waiting: a process that gets started is never left running.
    """
    if spawn.cancelled() or spawn.exception() is not None:
        return
    transport, _ = spawn.result()
    signal_group(transport.get_pid(), signal.SIGKILL)
    transport.close()


async def _abort(pgid: int, proto: _Collector) -> None:
    """SIGKILL the group at once and wait (briefly) for it to die; used on cancellation."""
    signal_group(pgid, signal.SIGKILL)
    with contextlib.suppress(asyncio.CancelledError):
        await _until_group_gone(pgid, KILL_GRACE_S)
        await _wait(proto.exited, KILL_GRACE_S)


async def _wait(event: asyncio.Event, timeout_s: float) -> bool:
    if event.is_set():
        return True
    try:
        await asyncio.wait_for(event.wait(), max(timeout_s, 0.0))
    except TimeoutError:
        return False
    return True


async def _until_group_gone(pgid: int, timeout_s: float) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while group_alive(pgid) and loop.time() < deadline:
        await asyncio.sleep(0.01)


async def _kill_group(pgid: int, proto: _Collector) -> None:
    """SIGTERM the group, SIGKILL whatever is left a second later, and wait for the deaths."""
    signal_group(pgid, signal.SIGTERM)
    await _until_group_gone(pgid, KILL_GRACE_S)
    signal_group(pgid, signal.SIGKILL)
    await _until_group_gone(pgid, KILL_GRACE_S)
    await _wait(proto.exited, KILL_GRACE_S)


def shell_environment(ctx: ToolContext) -> dict[str, str]:
    env = dict(os.environ)
    if ctx.env:
        env.update(ctx.env)
    return env


def with_env_files(command: str, ctx: ToolContext) -> str:
    """Prefix `source FILE;` for each existing env file (Claude Code's CLAUDE_ENV_FILE semantics).

    Paths are made absolute first: `source name` without a slash would search $PATH.
    """
    prefix = ""
    for env_file in ctx.env_files:
        path = env_file if env_file.is_absolute() else ctx.cwd / env_file
        if path.is_file():
            prefix += f"source {shlex.quote(str(path.absolute()))}; "
    return prefix + command


class BashTool(ModelTool[BashInput]):
    name = "Bash"
    description = (
        "Executes a bash command and returns its output (stdout and stderr merged). The working "
        "directory persists between calls: after `cd sub`, later commands run in sub (within "
        "the project); other shell state does not carry over. stdin is /dev/null. Default "
        f"timeout {DEFAULT_TIMEOUT_MS} ms, at most {MAX_TIMEOUT_MS} ms. Output beyond "
        f"{MAX_OUTPUT_CHARS} characters is cut from the middle. Processes left running in the "
        "background are stopped unless their output is redirected."
    )
    read_only = False
    args_model = BashInput

    async def call(self, args: BashInput, ctx: ToolContext) -> ToolOutput:
        ran_in = start_dir(ctx)
        if ran_in is None:
            return failure(f"Working directory does not exist: {ctx.cwd}")
        timeout_ms = timeout_for(args.timeout)
        env = shell_environment(ctx)
        with cwd_record() as record:
            result = await run_shell(
                with_env_files(tracked(args.command, record), ctx),
                cwd=ran_in,
                env=env,
                timeout_s=timeout_ms / 1000,
            )
            settled = settle(record, ran_in, ctx, env)
        return _to_output(result, args, timeout_ms, settled)

    def render_response(self, response: Any) -> ToolOutput | None:
        return bash_response(response)


def timeout_for(asked: float | None) -> float:
    """The timeout a call runs with, in ms, as Claude Code's schema takes any number (measured
    with 2.1.240 and 2.1.332: an empty command, a timeout of 0, over the maximum, negative or
    fractional all reach PreToolUse and run): none or 0 is the default, more than the maximum
    is the maximum, a negative one times out at once."""
    return min(asked or DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS)


def trim_output(text: str) -> str:
    """Claude Code's trim of a command's output: leading blank lines and trailing whitespace."""
    return _LEADING_BLANK_LINES.sub("", text).rstrip()


def duration_text(ms: float) -> str:
    """A duration as Claude Code words it: whole seconds under a minute (``1s`` for 1500 ms),
    else minutes and seconds (``2m 0s``), hours, days."""
    if ms < 60_000:
        if ms == 0:
            return "0s"
        return f"{ms / 1000:.1f}s" if ms < 1 else f"{math.floor(ms / 1000)}s"
    days, rest = divmod(ms, 86_400_000)
    hours, rest = divmod(rest, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds = _round_half_up(rest / 1000)
    if seconds == 60:
        seconds, minutes = 0, minutes + 1
    if minutes == 60:
        minutes, hours = 0, hours + 1
    if hours == 24:
        hours, days = 0, days + 1
    if days:
        return f"{int(days)}d {int(hours)}h {int(minutes)}m"
    if hours:
        return f"{int(hours)}h {int(minutes)}m {seconds}s"
    return f"{int(minutes)}m {seconds}s"


def _round_half_up(value: float) -> int:
    """JavaScript's `Math.round`."""
    return math.floor(value + 0.5)


def _notes(result: ShellResult, args: BashInput) -> list[str]:
    notes: list[str] = []
    if result.stray_killed:
        notes.append(
            "Background processes still holding the command's output were stopped; redirect "
            "their output (e.g. `cmd > log 2>&1 &`) to keep them running."
        )
    if args.run_in_background:
        notes.append("run_in_background is not supported here; the command ran in the foreground.")
    return notes


def _to_output(
    result: ShellResult, args: BashInput, timeout_ms: float, settled: Settled
) -> ToolOutput:
    """Claude Code's Bash result: the trimmed output as `stdout`, a reset notice as `stderr`;
    the model reads both, or `(Bash completed with no output)`, or `Exit code N` first."""
    output = trim_output(result.output)
    data: dict[str, Any] = {
        "stdout": output,
        "stderr": settled.note,
        "interrupted": result.interrupted,
        "isImage": False,
        "noOutputExpected": no_output_expected(args.command),
    }
    notes = _notes(result, args)
    if result.exit_code == 0 and not result.interrupted:
        text = trim_output(output + settled.note) or BASH_NO_OUTPUT
        return ToolOutput("\n".join([text, *notes]), data=data, cwd=settled.cwd)
    # Claude Code says a timeout before the output (measured in 2.1.240 and 2.1.332).
    timed_out = (
        [f"Command timed out after {duration_text(timeout_ms)}"] if result.interrupted else []
    )
    lines = [f"Exit code {result.exit_code}", *timed_out, *([output] if output else []), *notes]
    error = "\n".join(lines)
    return ToolOutput(error, is_error=True, data=data, error=error, cwd=settled.cwd)
