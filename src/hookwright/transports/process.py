"""One-shot child processes: spawn, feed stdin, capture output, and leave nothing behind.

Every child starts in a new session, so it leads its own process group and everything it
spawns stays in that group. The group is the unit of cleanup:

* when the main process exits, the output pipes get :data:`EOF_GRACE` more seconds to reach
  EOF (a background child may still hold them), then the whole group is terminated;
* on timeout or cancellation the group is terminated at once;
* "terminated" means SIGTERM, then SIGKILL for whatever is still alive after
  :data:`KILL_GRACE` seconds.

A grandchild that leaves the group on purpose (``setsid``, a double-forking daemon) is found
by the run's environment marker, or, when it cleared its environment and was re-parented to
hookwright, by when it started, and killed right after the group (see
:mod:`hookwright.transports.reaper` for how and for the limits).

Detaching (``on_first_line``): Claude Code lets a command hook declare itself asynchronous by
printing ``{"async": true}`` as its first stdout line. When ``on_first_line(line)`` returns
True, :func:`run_process` returns at once with ``exit_code=None``, ``stdout`` = that first line
and ``background`` = a task that keeps supervising the same process (same deadline, same
cleanup) and resolves to the complete outcome, whose ``stdout`` includes the first line.
Cancelling that task kills the process group; whoever detaches owns the task.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import signal
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from hookwright.monitor import debug
from hookwright.transports import adoption
from hookwright.transports.adoption import RunMark, mark_environment, sweep
from hookwright.transports.base import (
    BaseTransport,
    Block,
    Envelope,
    Failure,
    Output,
    Reply,
    WarmRunner,
)
from hookwright.transports.groups import group_alive, others_alive, signal_group
from hookwright.transports.reaper import end_leftovers

if TYPE_CHECKING:
    from hookwright.transports.warm_process import WarmProcess

log = logging.getLogger("hookwright.transports.process")

#: Seconds the output pipes may stay open after the main process exited.
EOF_GRACE = 0.2
#: Seconds between SIGTERM and SIGKILL, and the bound on collecting output after a kill.
KILL_GRACE = 0.5
_READ_CHUNK = 1 << 16
#: A first line longer than this is not a declaration; stop looking for it.
_FIRST_LINE_LIMIT = 1 << 16
_POLL = 0.01


@dataclass(slots=True)
class ProcessOutcome:
    """What a finished (or detached) process produced.

    ``exit_code`` is None when the process was killed by us (timeout, cancellation) or is still
    running in the background; a process that died of another signal N reports ``128 + N``,
    as a shell would.
    """

    exit_code: int | None
    stdout: str
    stderr: str
    stdout_truncated: bool = False
    timed_out: bool = False
    spawn_error: str | None = None
    duration_ms: float = 0.0
    stderr_truncated: bool = False
    pid: int | None = None
    #: Set when the process was detached by ``on_first_line``: resolves to the full outcome.
    background: asyncio.Task[ProcessOutcome] | None = None
    #: Bytes the process wrote to stdout, kept or not.
    stdout_size: int = 0

    @property
    def detached(self) -> bool:
        return self.background is not None


class _Sink:
    """Keeps the first `limit` bytes of a stream and counts the rest."""

    __slots__ = ("chunks", "discarded", "limit", "size")

    def __init__(self, limit: int) -> None:
        self.chunks: list[bytes] = []
        self.size = 0
        self.discarded = 0
        self.limit = limit

    def add(self, data: bytes) -> None:
        room = self.limit - self.size
        if room > 0:
            kept = data[:room]
            self.chunks.append(kept)
            self.size += len(kept)
            self.discarded += len(data) - len(kept)
        else:
            self.discarded += len(data)

    @property
    def truncated(self) -> bool:
        return self.discarded > 0

    def text(self) -> str:
        return b"".join(self.chunks).decode("utf-8", errors="replace")


class _FirstLine:
    """Watches the start of stdout for its first complete line."""

    __slots__ = ("callback", "detach", "head", "line", "pending")

    def __init__(self, callback: Callable[[str], bool], detach: asyncio.Future[None]) -> None:
        self.callback = callback
        self.detach = detach
        self.head = b""
        self.line = ""
        self.pending = True

    def feed(self, data: bytes) -> None:
        if not self.pending:
            return
        self.head += data
        newline = self.head.find(b"\n")
        if newline == -1:
            if len(self.head) > _FIRST_LINE_LIMIT:
                self.pending = False
            return
        self.pending = False
        self.line = self.head[:newline].decode("utf-8", errors="replace").rstrip("\r")
        try:
            wanted = self.callback(self.line)
        except Exception:
            log.exception("on_first_line callback failed; not detaching")
            wanted = False
        if wanted and not self.detach.done():
            self.detach.set_result(None)


class _Protocol(asyncio.subprocess.SubprocessStreamProtocol):
    """The stock stream protocol plus a future that resolves when the process exits.

    ``Process.wait()`` also waits for the pipes to close, which a background child holding
    stdout can postpone forever; ``exited`` does not.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=_READ_CHUNK, loop=loop)
        self.exited: asyncio.Future[None] = loop.create_future()

    def process_exited(self) -> None:
        super().process_exited()
        if not self.exited.done():
            self.exited.set_result(None)


def _signal_pid(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


async def kill_group(pgid: int, exited: asyncio.Future[None] | None = None) -> None:
    """SIGTERM the group, SIGKILL it if anything survives `KILL_GRACE` seconds.

    With `exited` (the leader's exit future) also wait briefly for the leader to be reaped so
    its exit status is collected. A second cancellation while waiting still sends SIGKILL.
    """
    if not signal_group(pgid, signal.SIGTERM):
        return
    gone = False
    try:
        deadline = time.monotonic() + KILL_GRACE
        while time.monotonic() < deadline:
            await asyncio.sleep(_POLL)
            if (exited is None or exited.done()) and not group_alive(pgid):
                gone = True
                return
    finally:
        if not gone:
            signal_group(pgid, signal.SIGKILL)
    if exited is not None and not exited.done():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(exited), KILL_GRACE)


async def _drain(
    reader: asyncio.StreamReader | None, sink: _Sink, first: _FirstLine | None
) -> None:
    if reader is None:
        return
    while True:
        data = await reader.read(_READ_CHUNK)
        if not data:
            return
        sink.add(data)
        if first is not None:
            first.feed(data)


async def _feed(writer: asyncio.StreamWriter | None, data: bytes) -> None:
    """Write stdin and close it; a child that exits without reading is not an error."""
    if writer is None:
        return
    try:
        if data:
            writer.write(data)
            await writer.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        with contextlib.suppress(OSError):
            writer.close()


def _exit_code(returncode: int | None) -> int | None:
    if returncode is None or returncode >= 0:
        return returncode
    return 128 - returncode


class _Child(Protocol):
    """A running hook process as `_supervise` sees it: a spawned `asyncio.subprocess.Process`
    or one forked warm (`hookwright.transports.warm_process.WarmProcess`)."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    stdin: asyncio.StreamWriter | None
    stdout: asyncio.StreamReader | None
    stderr: asyncio.StreamReader | None


@dataclass(slots=True)
class _Run:
    proc: _Child
    close: Callable[[], None]
    exited: asyncio.Future[None]
    stdout: _Sink
    stderr: _Sink
    first: _FirstLine | None
    started: float
    deadline: float | None
    mark: RunMark

    async def end(self, exited: asyncio.Future[None] | None = None) -> None:
        """Kill the process group, then whatever left it. A warm process that reported its
        exit before exiting (`WarmProcess.reported`) may still be in its group, tearing down:
        it is killed, and the group only when something else is in it (and the processes
        read to find out are the leftover hunt's first look). When the run's processes cannot
        be followed through the process tree (`adoption.tracking`) and no process was started
        since it (`WarmProcess.left_nothing`), nothing is left to look for."""
        seen = None
        if getattr(self.proc, "reported", False):
            if adoption.tracking():
                _signal_pid(self.proc.pid, signal.SIGKILL)
            elif cast("WarmProcess", self.proc).left_nothing():
                sweep()
                return
            alive, seen = others_alive(self.proc.pid)
            if alive:
                seen = None
                await kill_group(self.proc.pid, exited)
        else:
            await kill_group(self.proc.pid, exited)
        await end_leftovers(self.mark.token, self.proc.pid, KILL_GRACE, seen, since=self.mark.since)

    def outcome(self, *, killed: bool, timed_out: bool) -> ProcessOutcome:
        return ProcessOutcome(
            exit_code=None if killed else _exit_code(self.proc.returncode),
            stdout=self.stdout.text(),
            stderr=self.stderr.text() + ("" if killed else getattr(self.proc, "shell_note", "")),
            stdout_truncated=self.stdout.truncated,
            timed_out=timed_out,
            duration_ms=(time.monotonic() - self.started) * 1000.0,
            stderr_truncated=self.stderr.truncated,
            pid=self.proc.pid,
            stdout_size=self.stdout.size + self.stdout.discarded,
        )


async def _settle(tasks: list[asyncio.Task[None]], timeout: float) -> None:
    """Give the pipe readers `timeout` seconds to reach EOF, then stop them."""
    pending = [task for task in tasks if not task.done()]
    if pending:
        await asyncio.wait(pending, timeout=timeout)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _supervise(run: _Run, stdin_data: bytes) -> ProcessOutcome:
    proc = run.proc
    readers = [
        asyncio.ensure_future(_drain(proc.stdout, run.stdout, run.first)),
        asyncio.ensure_future(_drain(proc.stderr, run.stderr, None)),
    ]
    writer = asyncio.ensure_future(_feed(proc.stdin, stdin_data))
    tasks = [*readers, writer]
    timed_out = False
    try:
        remaining = None if run.deadline is None else max(0.0, run.deadline - time.monotonic())
        try:
            await asyncio.wait_for(asyncio.shield(run.exited), remaining)
        except TimeoutError:
            timed_out = True
            await run.end(run.exited)
        else:
            await asyncio.wait(readers, timeout=EOF_GRACE)
            await run.end()
        await _settle(tasks, KILL_GRACE)
        return run.outcome(killed=timed_out, timed_out=timed_out)
    except asyncio.CancelledError:
        await run.end(run.exited)
        raise
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        run.close()


def _traced(outcome: ProcessOutcome) -> ProcessOutcome:
    """Trace how a process ended (`--debug`) and return its outcome."""
    if not debug.state.on:
        return outcome
    if outcome.spawn_error is not None:
        debug.trace("spawn", f"failed: {outcome.spawn_error}")
        return outcome
    how = "timed out" if outcome.timed_out else f"exit {outcome.exit_code}"
    if outcome.exit_code is None and not outcome.timed_out:
        how = "killed"
    debug.trace(
        "process",
        f"pid {outcome.pid} {how} after {outcome.duration_ms:.0f} ms; "
        f"stdout: {debug.short(outcome.stdout) or '(empty)'}; "
        f"stderr: {debug.short(outcome.stderr) or '(empty)'}",
    )
    return outcome


def _spawn_error(args: list[str], cwd: str | Path | None, exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        if cwd is not None and not os.path.isdir(cwd):
            return f"working directory not found: {cwd}"
        return f"executable not found: {args[0]}"
    if isinstance(exc, PermissionError):
        return f"permission denied: {args[0]}"
    limit = _LIMITS.get(exc.errno or 0)
    if limit is not None:
        return f"cannot start {args[0]}: {limit} ({errno.errorcode[exc.errno or 0]})"
    return f"cannot start {args[0]}: {exc}"


#: The resource a spawn ran out of, by the errno fork, exec or pipe creation failed with.
_LIMITS = {
    errno.EMFILE: "this process's open-descriptor limit (RLIMIT_NOFILE) is reached",
    errno.ENFILE: "the system's open-file table is full",
    errno.EAGAIN: "the process limit (RLIMIT_NPROC) is reached or the system is out of processes",
    errno.ENOMEM: "out of memory",
}


#: A started process: itself, its closer, its exit future and the stdin bytes left to write.
_Begun = tuple[_Child, Callable[[], None], asyncio.Future[None], bytes]


async def _spawn(
    args: list[str], cwd: str | Path | None, env: dict[str, str], stdin_data: bytes
) -> _Begun | str:
    """Start `args` in a new session: the process, its closer and exit future, or why not."""
    loop = asyncio.get_running_loop()
    popen_options: dict[str, Any] = {
        "stdin": asyncio.subprocess.PIPE,
        "stdout": asyncio.subprocess.PIPE,
        "stderr": asyncio.subprocess.PIPE,
        "cwd": cwd,
        "env": env,
        "start_new_session": True,
    }
    try:
        with adoption.starting():
            transport, protocol = await loop.subprocess_exec(
                lambda: _Protocol(loop), *args, **popen_options
            )
            adoption.started(transport.get_pid())
    except OSError as exc:
        return _spawn_error(args, cwd, exc)
    if debug.state.on:
        debug.trace(
            "spawn",
            f"{debug.short(args)} in {cwd or os.getcwd()}, pid {transport.get_pid()}; "
            f"stdin: {debug.short(stdin_data) or '(empty)'}",
        )
    proc = asyncio.subprocess.Process(transport, protocol, loop)
    return proc, transport.close, protocol.exited, stdin_data


async def _start(
    args: list[str],
    *,
    shell: bool,
    cwd: str | Path | None,
    env: dict[str, str],
    stdin_data: bytes,
    warm: WarmRunner | None,
) -> _Begun | str:
    """Fork `args` warm when `warm` takes it (a plain Python script run), else spawn it."""
    if warm is not None:
        child = await warm.launch(args, shell=shell, env=env, cwd=cwd, stdin_data=stdin_data)
        if child is not None:
            if debug.state.on:
                debug.trace(
                    "spawn",
                    f"{debug.short(args)} in {cwd or os.getcwd()}, pid {child.pid} (warm); "
                    f"stdin: {debug.short(stdin_data) or '(empty)'}",
                )
            return child, child.close, child.exited, child.unsent
    return await _spawn(args, cwd, env, stdin_data)


async def _started_or_ended(
    start: Coroutine[Any, Any, _Begun | str], mark: RunMark
) -> _Begun | str:
    """`start` carried to its end even when the caller is cancelled meanwhile; the process it
    started is then ended (its group and whatever left it) before the cancellation goes on.

    Left to itself, asyncio's clean-up of a start cancelled before the pipes were connected
    kills the leader alone and waits for the output pipes to close, which a background child
    of the hook holds open for as long as it runs.
    """
    task = asyncio.ensure_future(start)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        begun = await task
        if not isinstance(begun, str):
            proc, close, exited, _stdin = begun
            try:
                await kill_group(proc.pid, exited)
                await end_leftovers(mark.token, proc.pid, KILL_GRACE, since=mark.since)
            finally:
                close()
        raise


async def run_process(
    *,
    command: str | None = None,
    argv: list[str] | None = None,
    shell: str = "sh",
    stdin_data: bytes = b"",
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    max_output: int = 10_000_000,
    on_first_line: Callable[[str], bool] | None = None,
    warm: WarmRunner | None = None,
) -> ProcessOutcome:
    """Run one process to completion (or detachment) and return what it did.

    Shell form runs ``[shell, "-c", command]``; exec form runs `argv` without a shell.
    `max_output` caps each of stdout and stderr separately; output past the cap is read and
    discarded so the child never blocks on a full pipe. With `warm`, a plain Python script
    run is forked from a warm interpreter instead of spawned (the same observable process;
    see `hookwright.transports.warm`). Never raises for anything the child does; raises
    ValueError for a call that names neither or both of `command` and `argv`, and re-raises
    cancellation after killing the process group.
    """
    args = _arguments(command, argv, shell)
    started = time.monotonic()
    loop = asyncio.get_running_loop()
    mark = mark_environment(env)
    start = _start(
        args, shell=command is not None, cwd=cwd, env=mark.env, stdin_data=stdin_data, warm=warm
    )
    begun = await _started_or_ended(start, mark)
    if isinstance(begun, str):
        failed = ProcessOutcome(
            exit_code=None,
            stdout="",
            stderr="",
            spawn_error=begun,
            duration_ms=(time.monotonic() - started) * 1000.0,
        )
        return _traced(failed)
    proc, close, exited, stdin_data = begun
    detach: asyncio.Future[None] = loop.create_future()
    run = _Run(
        proc=proc,
        close=close,
        exited=exited,
        stdout=_Sink(max_output),
        stderr=_Sink(max_output),
        first=_FirstLine(on_first_line, detach) if on_first_line is not None else None,
        started=started,
        deadline=None if timeout is None else started + timeout,
        mark=mark,
    )
    if run.first is None:
        return _traced(await _supervise(run, stdin_data))
    return await _until_detached(run, run.first, stdin_data, detach)


def _arguments(command: str | None, argv: list[str] | None, shell: str) -> list[str]:
    """The argv `run_process` starts: ``[shell, "-c", command]`` or `argv` (ValueError for
    neither, both or an empty one)."""
    if (command is None) == (argv is None):
        raise ValueError("run_process needs exactly one of command= or argv=")
    args = [shell, "-c", command] if command is not None else list(argv or ())
    if not args or not args[0]:
        raise ValueError("run_process: empty argv")
    return args


async def _until_detached(
    run: _Run, first: _FirstLine, stdin_data: bytes, detach: asyncio.Future[None]
) -> ProcessOutcome:
    """`run` supervised until it ends or its first stdout line detaches it (an async hook:
    the outcome then carries that line and the supervision as its `background`)."""
    task = asyncio.ensure_future(_supervise(run, stdin_data))
    try:
        waiters: set[asyncio.Future[Any]] = {task, detach}
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        raise
    if task.done():
        return _traced(task.result())
    debug.trace("process", f"pid {run.proc.pid} detached (async): {debug.short(first.line)}")
    return ProcessOutcome(
        exit_code=None,
        stdout=first.line,
        stderr="",
        duration_ms=(time.monotonic() - run.started) * 1000.0,
        pid=run.proc.pid,
        background=task,
    )


class ProcessTransport(BaseTransport):
    """One-shot processes behind the transport interface: `run_process` with the envelope's
    command or argv, `body` on stdin, env, cwd, timeout and caps. `warm`: a warm runner used
    when the envelope brings none (a session's runner travels in `Envelope.warm`)."""

    def __init__(self, warm: WarmRunner | None = None) -> None:
        self.warm = warm

    async def handle(self, envelope: Envelope) -> Reply:
        caps = envelope.caps
        if caps.background:
            return Output(later=asyncio.ensure_future(self._run(envelope, None)))
        return await self._run(envelope, caps.detach)

    async def _run(self, envelope: Envelope, detach: Callable[[str], bool] | None) -> Reply:
        outcome = await run_process(
            command=envelope.command,
            argv=list(envelope.argv) if envelope.argv is not None else None,
            shell=envelope.shell,
            stdin_data=envelope.body,
            cwd=envelope.cwd,
            env=envelope.env,
            timeout=envelope.timeout,
            max_output=envelope.caps.max_output,
            on_first_line=detach,
            warm=envelope.warm or self.warm,
        )
        return reply_of(outcome, envelope.caps.block_exit)


def reply_of(outcome: ProcessOutcome, block_exit: int | None = None) -> Reply:
    """A `ProcessOutcome` as a transport reply; `block_exit` (when not None) means block."""
    duration = outcome.duration_ms
    if outcome.spawn_error is not None:
        return Failure("unstarted", outcome.spawn_error, duration_ms=duration)
    if outcome.background is not None:
        later = asyncio.ensure_future(_reply_later(outcome.background, block_exit))
        return Output(outcome.stdout, duration_ms=duration, later=later)
    if outcome.timed_out:
        return Failure("timeout", "timed out", stderr=outcome.stderr, duration_ms=duration)
    code = outcome.exit_code
    if code is None:
        return Failure("killed", "was killed", stderr=outcome.stderr, duration_ms=duration)
    if code == block_exit:
        return Block(outcome.stderr, code=code, stderr=outcome.stderr, duration_ms=duration)
    return Output(
        outcome.stdout,
        code=code,
        stderr=outcome.stderr,
        truncated=outcome.stdout_truncated,
        size=outcome.stdout_size,
        duration_ms=duration,
    )


async def _reply_later(task: asyncio.Task[ProcessOutcome], block_exit: int | None) -> Reply:
    """The detached run's complete reply; cancelling this cancels the run (and kills it)."""
    return reply_of(await task, block_exit)
