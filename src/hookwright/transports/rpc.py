"""JSON-RPC 2.0 over a child process's stdio, one message per line.

`RpcProcess` owns one long-lived hook process:

* spawned from an argv without a shell, in its own process group, with stdin, stdout and stderr
  as pipes (through a `launcher`, e.g. a sandbox, when one is given); stderr is logged line by
  line on ``hookwright.rpc`` with the hook's name, and the lines a call's process wrote before
  answering it travel with its answer (`Output.stderr`);
* started lazily by the first `call`/`notify` (or eagerly by `start`), with a ``hook.hello``
  handshake (id 1 of each spawned process) that must answer within `hello_timeout`; its result is
  ignored, a JSON-RPC error or an exit fails it;
* requests get ids from a per-process counter that never repeats; a pending map lets several
  requests be in flight; notifications carry no id;
* stdout and stderr are split into lines as they arrive, in the pipes' protocol callbacks (no
  reader task): a response completes its call in the same event loop iteration that read it,
  and a stderr line written before the response is handled no later than that iteration, so it
  is logged (and counted against the call) before the caller sees the answer;
* a response is read as PicoClaw's Go struct reads it (`envelope`): member names match
  case-insensitively, ``"method": null`` is no method; a stdout line that is not JSON, not an
  object, has a member of the wrong type, is a request from the hook, or a response whose id is
  0, missing or matches nothing is logged and skipped (the matching call then times out; the
  first stray lines and their number go with a failure to answer, `rpc_strays`); a line
  longer than `max_line` is discarded up to its newline without stalling;
* when the process exits every pending call fails at once; the next call after the backoff
  window of `RestartPolicy` spawns it again, calls before that fail immediately (the window is
  measured on the process's `clock`, `time.monotonic` unless a test injects another);
* `aclose` closes stdin, waits `close_timeout`, then sends SIGTERM and finally SIGKILL to the
  process group.

All I/O of a process runs on its `IoLoop` (its session's, bound with `use_io` before the first
use; a process used without one gets a private one, stopped by `aclose`), so the public
coroutines can be awaited from any event loop (a host's, the engine's sync facade, an observer
thread) and `notify_nowait` can be called from any thread without blocking it.
Cancelling an awaiting caller (a timeout) cancels its request; a response arriving later
matches nothing and is dropped. Request timeouts share one watchdog timer per process (no timer
per call); a write goes straight to the pipe unless another write is waiting for room in it.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import functools
import itertools
import json
import logging
import os
import signal
import threading
import time
import weakref
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from hookwright.config.safeparse import MAX_DEPTH, check_depth, load_json_text
from hookwright.monitor import debug
from hookwright.transports.adoption import Instant, mark_environment, started, starting
from hookwright.transports.base import (
    BaseTransport,
    Envelope,
    Failure,
    IoRunner,
    Reply,
    make_output,
)
from hookwright.transports.groups import signal_group
from hookwright.transports.ioloop import IoLoop, IoLoopClosed
from hookwright.transports.ratelimit import RateLimitedLog
from hookwright.transports.reaper import end_leftovers
from hookwright.transports.rpc_strays import StrayLines

log = logging.getLogger("hookwright.rpc")

T = TypeVar("T")

#: Longest stdout line accepted (PicoClaw's scanner limit).
MAX_LINE = 1 << 20
READ_CHUNK = 1 << 16
STDERR_TAIL_LINES = 50


class RpcError(Exception):
    """A call did not produce a result."""


class RpcRemoteError(RpcError):
    """The hook answered with a JSON-RPC error object."""

    def __init__(self, code: Any, message: str, data: Any = None) -> None:
        super().__init__(f"JSON-RPC error {code}: {message}")
        self.code = code
        self.message = message
        self.data = data


class RpcProcessError(RpcError):
    """The process is not running, exited, or could not be started."""


class RpcUnavailable(RpcProcessError):
    """The process crashed and its restart backoff has not elapsed yet."""


@dataclass(frozen=True, slots=True)
class RestartPolicy:
    """When a crashed process is spawned again.

    After the n-th consecutive failure (exit, failed spawn or failed handshake) the process is
    restarted by the first call made at least ``min(initial_backoff * multiplier**(n-1),
    max_backoff)`` seconds later. A successful call resets the count. `enabled=False` keeps a
    crashed process down for good (PicoClaw's behaviour).
    """

    enabled: bool = True
    initial_backoff: float = 1.0
    max_backoff: float = 30.0
    multiplier: float = 2.0
    max_restarts: int | None = None

    def backoff(self, failures: int) -> float:
        if failures <= 0:
            return 0.0
        return float(
            min(self.initial_backoff * self.multiplier ** (failures - 1), self.max_backoff)
        )


#: The clock of asyncio's own loops (`time.monotonic`, read in a Python method).
_LOOP_TIME = asyncio.BaseEventLoop.time
#: A Python whose loops no longer record their thread falls back to `get_running_loop`.
_UNKNOWN = object()


def _runs_here(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether the caller runs on `loop` (`asyncio.get_running_loop() is loop`). For asyncio's
    own loops this is read from the thread the loop records while it runs (a thread runs one
    loop at a time), without `get_running_loop`, which before Python 3.12 makes a system call
    (`getpid`) on every call: about 0.4 µs, a call on every JSON-RPC request."""
    running_on = getattr(loop, "_thread_id", _UNKNOWN)
    if isinstance(loop, asyncio.BaseEventLoop) and running_on is not _UNKNOWN:
        return bool(running_on == threading.get_ident())
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


async def _hop(coro: Coroutine[Any, Any, T], loop: asyncio.AbstractEventLoop) -> T:
    """Run `coro` on `loop` (another thread's) and wait for it; cancelling cancels it there."""
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))


# Reading lines in chunks ---------------------------------------------------------------------


class LineSplitter:
    """Lines of data pushed in pieces (a protocol callback): calls `on_line` with each
    line without its newline, or None for a line longer than `max_line`, which is skipped up to
    its newline without ever being held in memory whole."""

    __slots__ = ("_buf", "_discarding", "max_line", "on_line")

    def __init__(self, max_line: int, on_line: Callable[[bytes | None], None]) -> None:
        self.max_line = max_line
        self.on_line = on_line
        self._buf = bytearray()
        self._discarding = False

    def feed(self, data: bytes) -> None:
        max_line = self.max_line
        buf = self._buf
        end = len(data) - 1
        if end >= 0 and not buf and not self._discarding and data.find(b"\n") == end:
            # One whole line, the usual piece of a line-per-message protocol.
            self.on_line(data[:end] if end <= max_line else None)
            return
        if buf or self._discarding:
            newline = data.find(b"\n")
            if newline < 0:
                if not self._discarding:
                    buf += data
                    if len(buf) > max_line:
                        buf.clear()
                        self._discarding = True
                return
            if self._discarding:
                self._discarding = False
                line: bytes | None = None
            else:
                buf += data[:newline]
                line = bytes(buf) if len(buf) <= max_line else None
            buf.clear()
            self.on_line(line)
            data = data[newline + 1 :]
        lines = data.split(b"\n")
        tail = lines.pop()
        on_line = self.on_line
        for line in lines:
            on_line(line if len(line) <= max_line else None)
        if tail:
            if len(tail) > max_line:
                self._discarding = True
            else:
                buf += tail

    def feed_eof(self) -> None:
        """The stream ended: an unterminated last line counts as a line."""
        if self._discarding:
            self._discarding = False
            self.on_line(None)
        elif self._buf:
            line = bytes(self._buf)
            self._buf.clear()
            self.on_line(line if len(line) <= self.max_line else None)


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_make_c_encoder = getattr(json.encoder, "c_make_encoder", None)
#: The C encoder `_ENCODER` builds for each call, built once and without the circular-reference
#: check (which needs a fresh dict per call): a circular value recurses until RecursionError,
#: and is then encoded again by `_ENCODER`, which raises json's own error for it.
_encode_fast: Callable[[Any, int], Sequence[str]] | None = (
    _make_c_encoder(
        None, _ENCODER.default, json.encoder.encode_basestring, None, ":", ",", False, False, True
    )
    if _make_c_encoder is not None
    else None
)
_encode_str = json.encoder.encode_basestring


def json_text(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``, the encoding of every
    JSON-RPC message (a codec that writes its params as text encodes their values with it)."""
    if _encode_fast is not None:
        try:
            return "".join(_encode_fast(value, 0))
        except RecursionError:
            pass
    return _ENCODER.encode(value)


def encode_message(message: Mapping[str, Any]) -> bytes:
    """One JSON-RPC message as a compact UTF-8 line (exactly ``json.dumps(message,
    ensure_ascii=False, separators=(",", ":"))``)."""
    return json_text(message).encode() + b"\n"


def encode_request(msg_id: int, method: str, params: Any) -> bytes:
    """``encode_message({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})``,
    without encoding the envelope as a dict. Params given as bytes are their JSON text already
    (UTF-8, compact), sent as they are: bytes are no JSON value, so nothing else reads so."""
    if type(params) is bytes:
        return _request_format(method) % (msg_id, params)
    if type(msg_id) is not int or type(method) is not str:
        return encode_message({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    return (
        f'{{"jsonrpc":"2.0","id":{msg_id},"method":{_encode_str(method)},'
        f'"params":{json_text(params)}}}\n'
    ).encode()


@functools.lru_cache(maxsize=64)
def _request_format(method: str) -> bytes:
    """The line of a request to `method` whose params are JSON text, as a bytes format of its
    id and params: the method encoded once, not on every call (a hook process is called by
    a handful of methods)."""
    return b'{"jsonrpc":"2.0","id":%d,"method":' + _encode_str(method).encode() + b',"params":%b}\n'


#: The C scanner json.loads uses (no attribute in typeshed).
_scan_once: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def decode_line(line: bytes) -> Any:
    """The JSON value of `line` within `safeparse`'s bounds (`ParseError` otherwise), with a
    fast path for a UTF-8 line holding one object."""
    # What json.detect_encoding calls UTF-8: no BOM, first two bytes non-zero.
    if len(line) > 3 and line[0] == 0x7B and line[1]:
        try:
            try:
                text = line.decode()  # the usual line; `surrogatepass` costs its arguments
            except UnicodeDecodeError:
                text = line.decode("utf-8", "surrogatepass")
            value, end = _scan_once(text, 0)
        except (ValueError, StopIteration, RecursionError):
            pass  # load_json_text raises the proper error below
        else:
            if end == len(text) or not text[end:].strip(" \t\n\r"):
                # A line no longer than the bound cannot nest deeper: its brackets go uncounted.
                if len(line) > MAX_DEPTH and line.count(b"[") + line.count(b"{") > MAX_DEPTH:
                    check_depth(value)
                return value
    return load_json_text(line)


# The JSON-RPC envelope, as PicoClaw's Go struct reads it -------------------------------------

_MEMBERS = {"JSONRPC": "jsonrpc", "ID": "id", "METHOD": "method", "PARAMS": "params"}
_MEMBERS.update({"RESULT": "result", "ERROR": "error"})
_ERROR_MEMBERS = {"CODE": "code", "MESSAGE": "message"}
_FOLD_SPECIAL = {"\u017f": "S", "\u212a": "K"}


def _fold(key: str) -> str:
    """Go's case folding of an object key, for ASCII member names."""
    if key.isascii():
        return key.upper()
    return "".join(c.upper() if c.isascii() else _FOLD_SPECIAL.get(c, c) for c in key)


def _members(message: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """The members `names` lists (folded key -> name), matched as Go matches struct fields:
    case-insensitively, a later key overriding an earlier one, a null leaving a scalar unset."""
    out: dict[str, Any] = {}
    for key, value in message.items():
        name = names.get(_fold(key)) if key not in names.values() else key
        if name is not None and (value is not None or name in ("result", "params", "error")):
            out[name] = value
    return out


def envelope(message: Mapping[str, Any]) -> dict[str, Any]:
    """A message's JSON-RPC members as PicoClaw decodes them (`processHookRPCMessage`):
    `jsonrpc` and `method` strings, `id` an unsigned integer, `error` an object with an
    integer `code` and a string `message`; keys match case-insensitively, others are ignored,
    `"method": null` is no method. Raises ValueError for a member of the wrong type (Go drops
    such a line)."""
    fields = _members(message, _MEMBERS)
    for name in ("jsonrpc", "method"):
        if not isinstance(fields.get(name, ""), str):
            raise ValueError(f"{name} is not a string")
    msg_id = fields.get("id", 0)
    if type(msg_id) is not int or msg_id < 0:
        raise ValueError(f"invalid id {msg_id!r}")
    error = fields.get("error")
    if error is not None:
        if not isinstance(error, Mapping):
            raise ValueError("error is not an object")
        members = _members(error, _ERROR_MEMBERS)
        code, text = members.get("code", 0), members.get("message", "")
        if type(code) is not int or not isinstance(text, str):
            raise ValueError("error has a code that is not an integer or a non-string message")
        fields["error"] = {"code": code, "message": text}
    return fields


# One spawned process ------------------------------------------------------------------------

_live: weakref.WeakSet[_Connection] = weakref.WeakSet()


class _Protocol(asyncio.subprocess.SubprocessStreamProtocol):
    """Reports the child's exit as soon as it happens: `Process.wait()` also waits for the
    pipes to close, which a grandchild holding them can delay forever.

    Stdout and stderr do not go through a StreamReader: each piece is split into lines as soon
    as the pipe is read and handed to the line consumer attached by `attach` (lines that come
    before it attaches are kept for it). The pipes' own protocols are wrapped so that their data
    skips the `call_soon` hop the subprocess transport puts between a pipe and this protocol: a
    response then completes its call one event loop iteration sooner, and a stderr line the
    process wrote before its response is handled in the same iteration as that response, before
    the call's caller resumes."""

    def __init__(self, loop: asyncio.AbstractEventLoop, max_line: int = MAX_LINE) -> None:
        super().__init__(limit=2 * READ_CHUNK, loop=loop)
        self.exited = asyncio.Event()
        #: Set when stdout reached its end (or failed).
        self.stdout_done = asyncio.Event()
        #: Set when stderr reached its end (or failed).
        self.stderr_done = asyncio.Event()
        self._early: dict[int, list[bytes | None]] = {1: [], 2: []}
        self._lines = {fd: LineSplitter(max_line, kept.append) for fd, kept in self._early.items()}
        self._done = {1: self.stdout_done, 2: self.stderr_done}
        #: The run token in the child's environment and when the run began (`RunMark.since`), for
        #: the leftover hunt (`hookwright.transports.reaper`).
        self.run_token = ""
        self.run_since: Instant | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        # Another loop implementation may not route pipes this way: its data then comes
        # through `pipe_data_received` as usual.
        if isinstance(transport, asyncio.SubprocessTransport):
            for fd, lines in self._lines.items():
                pipe = transport.get_pipe_transport(fd)
                protocol = pipe.get_protocol() if pipe is not None else None
                if pipe is not None and isinstance(protocol, asyncio.Protocol):
                    pipe.set_protocol(_DirectData(protocol, lines.feed))

    def attach(self, fd: int, on_line: Callable[[bytes | None], None]) -> None:
        """Hand stdout's (`fd` 1) or stderr's (2) lines to `on_line`, those read so far first."""
        early, self._early[fd] = self._early[fd], []
        self._lines[fd].on_line = on_line
        for line in early:
            on_line(line)

    def detach(self, fd: int) -> None:
        """Ignore whatever stdout (`fd` 1) or stderr (2) still brings."""
        self._lines[fd].on_line = _ignore_line

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        lines = self._lines.get(fd)
        if lines is not None:
            lines.feed(data if isinstance(data, bytes) else data.encode())
        else:
            super().pipe_data_received(fd, data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        done = self._done.get(fd)
        if done is not None and not done.is_set():
            if exc is None:
                self._lines[fd].feed_eof()
            done.set()
        super().pipe_connection_lost(fd, exc)

    def process_exited(self) -> None:
        self.exited.set()


def _ignore_line(line: bytes | None) -> None:
    pass


class _DirectData(asyncio.Protocol):
    """A read pipe's protocol that hands data straight to `on_data` and everything else (EOF,
    connection lost) to the pipe's original protocol. Data that the original protocol has
    already queued runs before any data read after the swap, so the order is kept; EOF still
    comes after the data."""

    def __init__(self, inner: asyncio.Protocol, on_data: Callable[[bytes], None]) -> None:
        self.inner = inner
        self.on_data = on_data

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        self.on_data(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()


async def spawn(
    argv: Sequence[str],
    cwd: str | None,
    env: Mapping[str, str] | None,
    max_line: int = MAX_LINE,
) -> tuple[asyncio.subprocess.Process, _Protocol, asyncio.SubprocessTransport]:
    """Start `argv` without a shell, in a new session (its own process group), all three
    standard streams piped. Stdout and stderr lines go to the consumers `_Protocol.attach` sets."""
    loop = asyncio.get_running_loop()
    mark = mark_environment(env)
    with starting():
        transport, protocol = await loop.subprocess_exec(
            lambda: _Protocol(loop, max_line),
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=mark.env,
            start_new_session=True,
        )
        started(transport.get_pid())
    protocol.run_token, protocol.run_since = mark.token, mark.since
    return asyncio.subprocess.Process(transport, protocol, loop), protocol, transport


class _Connection:
    """A spawned child and its pipes. Lives on the I/O loop."""

    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        protocol: _Protocol,
        transport: asyncio.SubprocessTransport,
        name: str,
        max_line: int,
    ) -> None:
        self.proc = proc
        self.protocol = protocol
        self.transport = transport
        self.name = name
        self.max_line = max_line
        self.loop = asyncio.get_running_loop()
        self.pending: dict[int, asyncio.Future[Any]] = {}
        #: Pending requests with a timeout: id -> (deadline on the loop clock, timeout).
        self.deadlines: dict[int, tuple[float, float]] = {}
        self._watch: asyncio.TimerHandle | None = None
        self._watch_at = 0.0
        self.ids = itertools.count(1)
        self.write_lock = asyncio.Lock()
        #: Writes waiting for room in the pipe (`_write_waiting`): while any does, a new write
        #: goes behind them. Counted here so each request reads an attribute, not a method.
        self.waiting_writes = 0
        #: The loop's clock: `time.monotonic` itself where that is what the loop reads (each
        #: request sets its deadline without a Python call).
        loop_time = self.loop.time
        self.loop_clock = (
            time.monotonic if getattr(loop_time, "__func__", None) is _LOOP_TIME else loop_time
        )
        self.lost: RpcProcessError | None = None
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        #: Stderr lines read so far: a call notes it when sent to find the lines of its own.
        self.stderr_count = 0
        self.warnings = RateLimitedLog(log, name)
        #: The stdout lines that were not messages: said with a failure to answer.
        self.strays = StrayLines()
        assert proc.stdin is not None
        self.stdin = proc.stdin
        self.stdin_transport = proc.stdin.transport
        protocol.attach(1, self._on_stdout_line)
        protocol.attach(2, self._on_stderr_line)
        self.exited = asyncio.ensure_future(self._wait_exit())
        _live.add(self)

    @property
    def alive(self) -> bool:
        return self.lost is None

    def check_alive(self) -> None:
        if self.lost is not None:
            raise RpcProcessError(str(self.lost))

    async def request(self, method: str, params: Any, timeout: float | None = None) -> Any:
        """Send one request and wait for its response, at most `timeout` seconds (TimeoutError),
        a write that has to wait for room in the pipe included.

        Timeouts cost no timer per call (nor a task, as `asyncio.wait_for` would): the request's
        deadline goes in `deadlines`, and one watchdog timer per connection, armed for the
        earliest deadline, fails the requests that are due when it fires and re-arms itself
        for the rest. A stream of requests with one timeout re-arms it about once a timeout."""
        if self.lost is not None:
            raise RpcProcessError(str(self.lost))
        msg_id = next(self.ids)
        loop = self.loop
        future: asyncio.Future[Any] = loop.create_future()
        pending = self.pending
        pending[msg_id] = future
        deadline = None
        if timeout is not None:
            deadline = self.loop_clock() + timeout
            self.deadlines[msg_id] = (deadline, timeout)
            if self._watch is None or deadline < self._watch_at:
                self._arm(deadline)
        try:
            data = encode_request(msg_id, method, params)
            left = self._write_nowait(data)
            if left is not None:
                try:
                    if deadline is None:
                        await self._write_waiting(left)
                    else:
                        async with asyncio.timeout_at(deadline):
                            await self._write_waiting(left)
                except BaseException:
                    _consume_exception(future)
                    raise
            return await future
        finally:
            pending.pop(msg_id, None)
            if deadline is not None:
                self.deadlines.pop(msg_id, None)

    def _arm(self, when: float) -> None:
        if self._watch is not None:
            self._watch.cancel()
        self._watch = self.loop.call_at(when, self._on_watch)
        self._watch_at = when

    def _on_watch(self) -> None:
        """Fail the pending requests whose deadline has come; re-arm for the next one."""
        self._watch = None
        # The loop runs a timer up to its clock resolution early: what was due at the time the
        # watchdog was armed for is due now.
        due = max(self.loop.time(), self._watch_at)
        earliest = None
        for msg_id, (deadline, timeout) in list(self.deadlines.items()):
            if deadline <= due:
                future = self.pending.get(msg_id)
                if future is not None and not future.done():
                    future.set_exception(TimeoutError(f"no response within {timeout:g}s"))
            elif earliest is None or deadline < earliest:
                earliest = deadline
        if earliest is not None:
            self._arm(earliest)

    async def write(self, message: Mapping[str, Any]) -> None:
        data = encode_message(message)
        left = self._write_nowait(data)
        if left is not None:
            await self._write_waiting(left)

    def _write_nowait(self, data: bytes) -> bytes | None:
        """Hand `data` to the pipe now unless another write waits for room in it. Returns None
        when done, else what `_write_waiting` has to do: b"" to wait for room (or for the error
        of a closing pipe), `data` to write it in turn."""
        if self.lost is not None:  # `check_alive`, its call saved on every request
            raise RpcProcessError(str(self.lost))
        if self.waiting_writes:
            return data
        transport = self.stdin_transport
        if transport.is_closing():
            return data
        try:
            transport.write(data)
        except (ConnectionError, RuntimeError, OSError) as exc:
            raise RpcProcessError(f"hook {self.name}: cannot write to process: {exc}") from exc
        if transport.get_write_buffer_size() or transport.is_closing():
            return b""
        return None

    async def _write_waiting(self, data: bytes) -> None:
        self.waiting_writes += 1
        try:
            async with self.write_lock:
                if data:
                    self.check_alive()
                    self.stdin.write(data)
                await self.stdin.drain()
        except (ConnectionError, RuntimeError, OSError) as exc:
            raise await self._write_error(exc) from exc
        finally:
            self.waiting_writes -= 1

    async def _write_error(self, exc: BaseException) -> RpcProcessError:
        """Why a write failed: a process that ended leaves only "connection lost" or a broken
        pipe to the writer, so its exit (waited for briefly) is the reason said."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.protocol.exited.wait(), 0.5)
        code = self.transport.get_returncode()
        if code is not None:
            return RpcProcessError(
                f"hook {self.name}: process exited with code {code} before reading the request"
            )
        return RpcProcessError(f"hook {self.name}: cannot write to process: {exc}")

    def _on_stdout_line(self, line: bytes | None) -> None:
        if line is None:
            self.warnings.warning(
                "hook %s: stdout line over %d bytes discarded", self.name, self.max_line
            )
            return
        try:
            message = decode_line(line)
        except ValueError as exc:
            # A blank line never decodes; it is skipped silently.
            if line.strip():
                self.strays.add(line)
                self.warnings.warning(
                    "hook %s: non-JSON stdout line skipped (%s): %.200r", self.name, exc, line
                )
            return
        if not isinstance(message, dict):
            self.strays.add(line)
            self.warnings.warning("hook %s: non-object message skipped: %.200r", self.name, line)
            return
        if (
            len(message) == 3
            and "result" in message
            and "jsonrpc" in message
            and type(msg_id := message.get("id")) is int
            and msg_id >= 0
            and type(message["jsonrpc"]) is str
        ):
            # The usual answer (the members `jsonrpc`, `id` and `result` exactly), which
            # `envelope` would return as it is: its member matching (a key folded and looked
            # up per member) is skipped.
            fields = message
        else:
            try:
                fields = envelope(message)
            except ValueError as exc:
                self.warnings.warning("hook %s: message skipped (%s): %.200r", self.name, exc, line)
                return
            if fields.get("method"):
                self.warnings.warning(
                    "hook %s: messages from the hook are not served (method %.100r)",
                    self.name,
                    fields["method"],
                )
                return
        msg_id = fields.get("id")
        if not msg_id:
            self.warnings.warning("hook %s: response without an id skipped", self.name)
            return
        future = self.pending.get(msg_id)
        if future is None or future.done():
            self.warnings.warning(
                "hook %s: response id %d matches no pending request", self.name, msg_id
            )
            return
        error = fields.get("error")
        if error is not None:
            future.set_exception(RpcRemoteError(error["code"], error["message"]))
        else:
            future.set_result(fields.get("result"))

    def _on_stderr_line(self, line: bytes | None) -> None:
        text = "<line too long>" if line is None else line.decode("utf-8", "replace").rstrip()
        self.stderr_tail.append(text)
        self.stderr_count += 1
        self.warnings.stderr("hook %s stderr: %s", self.name, text)

    def stderr_since(self, count: int) -> str:
        """The stderr lines read since `stderr_count` was `count` (at most the tail's)."""
        new = self.stderr_count - count
        if new <= 0:
            return ""
        lines = list(self.stderr_tail)  # one C call: safe beside the I/O loop's appends
        return "\n".join(lines[max(len(lines) - new, 0) :])

    async def _wait_exit(self) -> int:
        await self.protocol.exited.wait()
        code = self.transport.get_returncode()
        # Responses written just before exiting are still in the pipe: read them first.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.protocol.stdout_done.wait(), 0.5)
        # Whatever the hook left running, in its group or out of it, goes with it.
        signal_group(self.proc.pid, signal.SIGKILL)
        await end_leftovers(
            self.protocol.run_token, self.proc.pid, 0.5, since=self.protocol.run_since
        )
        self._fail(RpcProcessError(f"hook {self.name}: process exited with code {code}"))
        return code if code is not None else -1

    def _fail(self, error: RpcProcessError) -> None:
        if self.lost is None:
            self.lost = error
        for future in self.pending.values():
            if not future.done():
                future.set_exception(RpcProcessError(str(error)))

    def stderr_text(self) -> str:
        return "\n".join(self.stderr_tail)

    async def shutdown(self, close_timeout: float, term_timeout: float) -> None:
        """Close stdin, wait, then SIGTERM and SIGKILL the process group; reap the child."""
        if self.lost is None:
            self.lost = RpcProcessError(f"hook {self.name}: process closed")
        stdin = self.proc.stdin
        if stdin is not None:
            with contextlib.suppress(Exception):
                stdin.close()
        steps = ((None, close_timeout), (signal.SIGTERM, term_timeout), (signal.SIGKILL, 5.0))
        for sig, grace in steps:
            if sig is not None:
                signal_group(self.proc.pid, sig)
            try:
                await asyncio.wait_for(asyncio.shield(self.exited), grace)
                break
            except TimeoutError:
                continue
        await self._finish()
        self._fail(self.lost)

    async def kill(self) -> None:
        signal_group(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.exited), 5.0)
        await self._finish()

    async def _finish(self) -> None:
        """Let stdout and stderr drain, then close the pipes whoever still holds them."""
        protocol = self.protocol
        if not protocol.stdout_done.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(protocol.stdout_done.wait(), 0.5)
        protocol.detach(1)
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        if not protocol.stderr_done.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(protocol.stderr_done.wait(), 0.5)
        protocol.detach(2)
        self.warnings.flush()
        self.transport.close()


@atexit.register
def _kill_leftovers() -> None:
    for conn in list(_live):
        if not conn.transport.is_closing():
            signal_group(conn.proc.pid, signal.SIGKILL)


# The supervised process ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StartHint:
    """What may have caused a failed start, in a dialect's words: `text` is said with the
    first failure it explains, `brief` with each later one (a call's ``(last error: …)``)."""

    text: str
    brief: str


#: Turns (argv, cwd, full environment) into what is actually started (a sandbox wrapper);
#: raises to refuse the start.
Launcher = Callable[
    [Sequence[str], str | None, dict[str, str]], tuple[Sequence[str], str | None, dict[str, str]]
]


class RpcProcess:
    """One hook process: lazy start, handshake, calls, restart with backoff, shutdown."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        hello_params: Mapping[str, Any] | None = None,
        hello_timeout: float = 5.0,
        close_timeout: float = 2.0,
        term_timeout: float = 1.0,
        restart: RestartPolicy | None = None,
        max_line: int = MAX_LINE,
        max_pending_notifications: int = 64,
        io: IoRunner | None = None,
        clock: Callable[[], float] = time.monotonic,
        launcher: Launcher | None = None,
        start_hint: Callable[[], StartHint | None] | None = None,
    ) -> None:
        if not argv:
            raise ValueError(f"hook {name}: command is required")
        self.name = name
        self.argv = list(argv)
        self.cwd = os.fspath(cwd) if cwd is not None else None
        self.env = dict(env) if env is not None else None
        self.hello_params: dict[str, Any] = (
            dict(hello_params) if hello_params is not None else {"name": name, "version": 1}
        )
        self.hello_timeout = hello_timeout
        self.close_timeout = close_timeout
        self.term_timeout = term_timeout
        self.restart = restart if restart is not None else RestartPolicy()
        self.max_line = max_line
        self.max_pending_notifications = max_pending_notifications
        #: Seconds on a monotonic scale; the restart backoff is measured on it (tests inject one).
        self.clock = clock
        self.launcher = launcher
        #: Asked when a start fails: what may have caused it, added to the failure (a
        #: dialect's words: a PicoClaw script not in the folder the process ran in).
        self.start_hint = start_hint
        #: The hints said in full once already (later failures refer to them briefly).
        self._hints_said: set[str] = set()
        #: Processes spawned successfully after the first one.
        self.restarts = 0
        #: Consecutive failures since the last successful call.
        self.failures = 0
        self.spawned = 0
        self.dropped_notifications = 0
        self.last_error: str | None = None
        self._conn: _Connection | None = None
        self._starting: asyncio.Future[_Connection] | None = None
        self._next_start = 0.0
        self._closed = False
        self._notify_lock = threading.Lock()
        self._inflight_notifications = 0
        self._io = io
        #: True when this process made its own IoLoop (no session's was bound) and stops it.
        self._owns_io = False

    # Public API (any loop) -------------------------------------------------------------------

    def use_io(self, io: IoRunner) -> None:
        """Do this process's I/O on `io` (its session's). A process is bound once, before its
        first use; binding it to another loop afterwards is an error."""
        if self._io is io:
            return
        with self._notify_lock:
            if self._io is not None:
                raise RpcProcessError(f"hook {self.name}: already bound to another I/O loop")
            self._io = io

    def io_loop(self) -> asyncio.AbstractEventLoop:
        """The event loop this process does its I/O on; RpcProcessError once it is closed."""
        io = self._io
        if io is None:
            with self._notify_lock:
                if self._io is None:
                    self._io = IoLoop()
                    self._owns_io = True
                io = self._io
        try:
            return io.loop
        except IoLoopClosed:
            raise RpcProcessError(f"hook {self.name}: closed (its session ended)") from None

    async def _on_io(self, coro: Coroutine[Any, Any, T]) -> T:
        try:
            loop = self.io_loop()
        except RpcProcessError:
            coro.close()
            raise
        if _runs_here(loop):
            return await coro
        return await _hop(coro, loop)

    @property
    def pid(self) -> int | None:
        conn = self._conn
        return conn.proc.pid if conn is not None and conn.alive else None

    @property
    def running(self) -> bool:
        conn = self._conn
        return conn is not None and conn.alive

    @property
    def closed(self) -> bool:
        return self._closed

    def stderr_tail(self) -> str:
        conn = self._conn
        return conn.stderr_text() if conn is not None else ""

    def stray_note(self) -> str:
        """``; stdout was not JSON-RPC: ...``: the running process's stdout lines that were
        not messages, to add to a failure; empty when there were none."""
        conn = self._conn
        return _stray_note(conn) if conn is not None else ""

    def stderr_mark(self) -> tuple[_Connection | None, int]:
        """Where the process's stderr is now, for `stderr_after`."""
        conn = self._conn
        return conn, conn.stderr_count if conn is not None else 0

    def stderr_after(self, mark: tuple[_Connection | None, int]) -> str:
        """The stderr lines the process wrote since `mark`: those of a call sent then (all of a
        process spawned since)."""
        conn, count = mark
        now = self._conn
        if now is None:
            return ""
        return now.stderr_since(count if now is conn else 0)

    async def start(self) -> None:
        """Spawn the process and complete the handshake now rather than on first use."""
        await self._on_io(self._ensure())

    async def call(self, method: str, params: Any = None, timeout: float | None = None) -> Any:
        """Send a request and return its `result`; raises RpcError subclasses or TimeoutError.

        `timeout` bounds the write and the wait for the response, not a lazy start (that has
        `hello_timeout`)."""
        if params is None:
            params = {}
        loop = self.io_loop()
        if not _runs_here(loop):
            return await _hop(self._call(method, params, timeout), loop)
        conn = self._conn
        if conn is None or conn.lost is not None or self._closed:
            conn = await self._ensure()
        result = await conn.request(method, params, timeout)
        self.failures = 0
        return result

    def connection_here(self) -> _Connection | None:
        """The running connection when the caller is on this process's I/O loop: a request can
        go straight to it (`_Connection.request`; an answer then sets `failures` to 0, as
        `call` does), with no hop and no start; None when `call` or `call_within` has to do
        more."""
        conn = self._conn
        if conn is None or conn.lost is not None or self._closed:
            return None
        io = self._io
        if io is None or io.closed:
            return None
        return conn if _runs_here(conn.loop) else None

    async def call_within(self, method: str, params: Any, timeout: float) -> Any:
        """`call` bounded as a whole by `timeout`: a lazy start (spawn and handshake) counts
        against it too. Raises TimeoutError when it runs out.

        On the I/O loop with the process running this is the request's own timeout (the
        connection's watchdog, no timer per call); from another thread's loop the caller's
        loop enforces it (a timeout scope around the hop, which cancels the request)."""
        loop = self.io_loop()
        if not _runs_here(loop):
            async with asyncio.timeout(timeout):
                return await _hop(self._call(method, params, None), loop)
        conn = self._conn
        if conn is None or conn.lost is not None or self._closed:
            deadline = loop.time() + timeout
            async with asyncio.timeout_at(deadline):
                conn = await self._ensure()
            timeout = max(deadline - loop.time(), 0.0)
        result = await conn.request(method, params, timeout)
        self.failures = 0
        return result

    async def notify(self, method: str, params: Any = None, timeout: float | None = None) -> None:
        await self._on_io(self._notify(method, {} if params is None else params, timeout))

    def notify_nowait(self, method: str, params: Any = None, timeout: float | None = None) -> bool:
        """Queue a notification from any thread without waiting; False when it was dropped
        (closed, or `max_pending_notifications` already queued)."""
        with self._notify_lock:
            if self._closed or self._inflight_notifications >= self.max_pending_notifications:
                self.dropped_notifications += 1
                return False
            self._inflight_notifications += 1
        try:
            loop = self.io_loop()
        except RpcProcessError:
            with self._notify_lock:
                self._inflight_notifications -= 1
                self.dropped_notifications += 1
            return False
        asyncio.run_coroutine_threadsafe(
            self._queued_notify(method, {} if params is None else params, timeout), loop
        )
        return True

    async def aclose(self) -> None:
        """Stop the process (idempotent). Later calls fail with RpcProcessError."""
        io = self._io
        if io is None or io.closed:
            self._closed = True
            return
        await self._on_io(self._close())
        if self._owns_io:
            io.close()

    # I/O loop side ---------------------------------------------------------------------------

    async def _call(self, method: str, params: Any, timeout: float | None) -> Any:
        conn = await self._ensure()
        result = await conn.request(method, params, timeout)
        self.failures = 0
        return result

    async def _notify(self, method: str, params: Any, timeout: float | None) -> None:
        conn = await self._ensure()
        data = encode_message({"jsonrpc": "2.0", "method": method, "params": params})
        # Written at once unless another write is waiting for room in the pipe; only that wait
        # is bounded by `timeout`.
        left = conn._write_nowait(data)
        if left is not None:
            if timeout is None:
                await conn._write_waiting(left)
            else:
                async with asyncio.timeout(timeout):
                    await conn._write_waiting(left)

    async def _queued_notify(self, method: str, params: Any, timeout: float | None) -> None:
        try:
            await self._notify(method, params, timeout)
        except (RpcError, TimeoutError) as exc:
            self.dropped_notifications += 1
            log.debug("hook %s: notification %s dropped: %s", self.name, method, exc)
        except Exception:
            self.dropped_notifications += 1
            log.exception("hook %s: notification %s failed", self.name, method)
        finally:
            with self._notify_lock:
                self._inflight_notifications -= 1

    async def _ensure(self) -> _Connection:
        if self._closed:
            raise RpcProcessError(f"hook {self.name}: closed")
        conn = self._conn
        if conn is not None and conn.alive:
            return conn
        if self._starting is None:
            self._check_may_start()
            task = asyncio.ensure_future(self._spawn())
            task.add_done_callback(_consume_exception)
            self._starting = task
        return await asyncio.shield(self._starting)

    def _check_may_start(self) -> None:
        if self.spawned == 0 and self.failures == 0:
            return
        last = (self.last_error or "").removeprefix(f"hook {self.name}: ")  # named once
        why = f" (last error: {last})" if last else ""
        policy = self.restart
        if not policy.enabled:
            raise RpcProcessError(f"hook {self.name}: process is down, restart disabled{why}")
        if policy.max_restarts is not None and self.restarts >= policy.max_restarts:
            raise RpcProcessError(f"hook {self.name}: process is down, restart limit reached{why}")
        wait = self._next_start - self.clock()
        if wait > 0:
            raise RpcUnavailable(f"hook {self.name}: process is down, restart in {wait:.2f}s{why}")

    async def _spawn(self) -> _Connection:
        try:
            conn = await self._spawn_and_greet()
        except BaseException as exc:
            hinted, remembered = self._with_hint(exc)
            self._record_failure(remembered)
            self._starting = None
            if hinted is not exc:
                raise hinted from exc
            if isinstance(exc, RpcProcessError):
                raise
            if isinstance(exc, Exception):
                raise RpcProcessError(f"hook {self.name}: {self.last_error}") from exc
            raise
        if self.spawned > 0:
            self.restarts += 1
        self.spawned += 1
        self._conn = conn
        self._starting = None
        conn.exited.add_done_callback(lambda _: self._on_exit(conn))
        return conn

    def _with_hint(self, exc: BaseException) -> tuple[BaseException, BaseException]:
        """A failed start's error with `start_hint`'s words added, when it has some: in full
        the first time a hint is said, briefly after; and the error later calls' ``(last
        error: …)`` repeat, which refers to the hint briefly."""
        hint = self.start_hint() if self.start_hint is not None else None
        if hint is None or not isinstance(exc, Exception):
            return exc, exc
        said = str(exc) if isinstance(exc, RpcProcessError) else f"hook {self.name}: {exc}"
        words = hint.brief if hint.text in self._hints_said else hint.text
        self._hints_said.add(hint.text)
        return RpcProcessError(f"{said}; {words}"), RpcProcessError(f"{said}; {hint.brief}")

    async def _spawn_and_greet(self) -> _Connection:
        env = None if self.env is None else {**os.environ, **self.env}
        argv: Sequence[str] = self.argv
        cwd = self.cwd
        if self.launcher is not None:
            try:
                argv, cwd, env = self.launcher(argv, cwd, dict(os.environ if env is None else env))
            except Exception as exc:
                raise RpcProcessError(f"hook {self.name}: {exc}") from exc
        try:
            proc, protocol, transport = await spawn(argv, cwd, env, self.max_line)
        except OSError as exc:
            raise RpcProcessError(
                f"hook {self.name}: cannot start {self.argv[0]!r}: {exc}"
            ) from exc
        where = self.cwd or os.getcwd()
        debug.trace("spawn", f"{self.name}: {debug.short(self.argv)} in {where}, pid {proc.pid}")
        conn = _Connection(proc, protocol, transport, self.name, self.max_line)
        try:
            await asyncio.wait_for(
                conn.request("hook.hello", self.hello_params), self.hello_timeout
            )
        except TimeoutError:
            await conn.kill()
            raise RpcProcessError(
                f"hook {self.name}: no hook.hello answer within {self.hello_timeout:g}s"
                + _stray_note(conn)
            ) from None
        except RpcError as exc:
            await conn.kill()
            said = f"hook {self.name}: "  # the hook named once, not again by the cause
            raise RpcProcessError(
                f"{said}hook.hello failed: {str(exc).removeprefix(said)}{_stray_note(conn)}"
            ) from exc
        except BaseException:
            await conn.kill()
            raise
        return conn

    def _record_failure(self, exc: BaseException) -> None:
        self.failures += 1
        self.last_error = str(exc) or type(exc).__name__
        self._next_start = self.clock() + self.restart.backoff(self.failures)

    def _on_exit(self, conn: _Connection) -> None:
        if self._conn is not conn:
            return
        self._conn = None
        if self._closed:
            return
        self._record_failure(conn.lost or RpcProcessError("process exited"))
        why = (self.last_error or "").removeprefix(f"hook {self.name}: ")  # named once
        if self.restart.enabled:
            log.warning(
                "hook %s: %s; restart allowed in %.2fs",
                self.name,
                why,
                self.restart.backoff(self.failures),
            )
        else:
            log.warning("hook %s: %s; not restarting", self.name, why)

    async def _close(self) -> None:
        self._closed = True
        starting = self._starting
        if starting is not None:
            starting.cancel()
            with contextlib.suppress(BaseException):
                await starting
        conn = self._conn
        self._conn = None
        if conn is not None:
            await conn.shutdown(self.close_timeout, self.term_timeout)


def _stray_note(conn: _Connection) -> str:
    note = conn.strays.note()
    return f"; {note}" if note else ""


def _consume_exception(future: asyncio.Future[Any]) -> None:
    """Mark a future's exception as retrieved, if it has one: a future still pending (a
    request whose write failed before any answer) has none to read."""
    if future.done() and not future.cancelled():
        future.exception()


class RpcTransport(BaseTransport):
    """A JSON-RPC call on a long-lived `RpcProcess` behind the transport interface:
    `envelope.method` with `envelope.json` as params (or `envelope.body`, their JSON text),
    bounded as a whole by `envelope.timeout` (a lazy start included, no timer per call). The
    process does its I/O on `envelope.io` (the session's loop), bound on the first send that
    brings one. `Output.value` is the result and `Output.stderr` the lines the process wrote
    to stderr while the call was pending; an error answer, a dead process or a timeout is a
    `Failure` carrying the process's stderr tail."""

    __slots__ = ("_bound_io", "process")

    def __init__(self, process: RpcProcess) -> None:
        self.process = process
        self._bound_io: IoRunner | None = None

    async def handle(self, envelope: Envelope) -> Reply:
        process = self.process
        io = envelope.io
        if io is not None and io is not self._bound_io:
            try:
                process.use_io(io)
            except Exception as exc:
                return Failure("error", str(exc) or type(exc).__name__)
            self._bound_io = io
        method = envelope.method or ""
        timeout = envelope.timeout
        try:
            if timeout is not None and (conn := process.connection_here()) is not None:
                # The usual case, the process up and this call on its loop: straight to the
                # connection, one coroutine level less on each side of the round trip.
                seen = conn.stderr_count
                value = await conn.request(method, envelope.body or envelope.json, timeout)
                process.failures = 0
                stderr = conn.stderr_since(seen) if conn.stderr_count != seen else ""
            else:
                mark = process.stderr_mark()
                if timeout is None:
                    value = await process.call(method, envelope.body or envelope.json)
                else:
                    params = envelope.body or envelope.json
                    value = await process.call_within(method, params, timeout)
                stderr = process.stderr_after(mark)
        except TimeoutError:
            said = f"timed out{process.stray_note()}"
            return Failure("timeout", said, stderr=process.stderr_tail())
        except Exception as exc:
            reason = str(exc) or type(exc).__name__
            return Failure("error", reason, stderr=process.stderr_tail())
        # `Output(value=value, stderr=stderr)`, built without keyword parsing: one per call.
        return make_output(("", value, None, stderr, False, 0, 0.0, None))

    async def aclose(self) -> None:
        await self.process.aclose()
