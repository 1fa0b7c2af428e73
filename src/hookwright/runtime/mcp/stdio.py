"""The stdio transport to an MCP server, with hard bounds (used instead of the SDK's).

A server is a program hookwright did not write, so nothing it prints may cost unbounded memory,
disk or time:

- One stdout message is at most `MAX_MESSAGE_BYTES`. A longer line is cut as soon as it passes
  the limit: the rest of it is read and dropped until its newline (an endless line never ends,
  and memory stays flat). When its first bytes name a request id, the waiting call gets the
  text those bytes start with, marked with `OVERLONG_META` so the tool result says it was cut;
  otherwise (or when no text can be read from it) the call gets an error naming the limit.
- A stdout line that is not JSON-RPC is skipped and noted in the server's log.
- stderr goes to the server's log, at most `MAX_LOG_BYTES` a session; the rest is read and
  dropped so the server never blocks on a full pipe.
- When the server process exits, the connection ends at once (calls in flight fail with
  `StdioLink.ended` saying how), even when a child it started still holds its stdout open.
- The server runs in its own process group; closing stops it as the MCP spec says (stdin closed,
  then SIGTERM, then SIGKILL, each after `STOP_GRACE` seconds), ends whatever is left in its
  group and waits (at most `STOP_GRACE` seconds more) until nothing of the group runs, so a
  server's children do not outlive the session. The kill happens even when the stop is
  cancelled half-way; `STOP_WITHIN` bounds the whole stop.

POSIX only (process groups).
"""

from __future__ import annotations

import contextlib
import json
import re
import signal
import subprocess
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import anyio
import mcp_types as types
from anyio.abc import ByteReceiveStream, Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from hookwright.transports.groups import group_alive, signal_group

__all__ = [
    "KEEP_BYTES",
    "MAX_LOG_BYTES",
    "MAX_MESSAGE_BYTES",
    "OVERLONG_META",
    "LineSplitter",
    "Overlong",
    "ServerLog",
    "StdioLink",
    "open_stdio",
    "salvage",
]

Streams = tuple[
    MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]
]
"""The session's ends: what the server sent, and what goes to it."""

MAX_MESSAGE_BYTES = 16 * 1024 * 1024
MAX_LOG_BYTES = 1024 * 1024
KEEP_BYTES = 1024 * 1024
"""How much of an overlong line is kept to answer the call with."""
OVERLONG_META = "hookwright/overlong"
"""`_meta` key of a result cut at `MAX_MESSAGE_BYTES`; its value is the limit."""
STOP_GRACE = 2.0
STOP_WITHIN = 3 * STOP_GRACE
"""The longest a stop takes: `STOP_GRACE` seconds after stdin is closed, after SIGTERM, and
after SIGKILL for the group to be gone."""
EXIT_POLL = 0.05
EXIT_DRAIN = 0.25
"""After the server exits, how long its last output may take to be read (a child of the
server holding stdout open keeps it from ending)."""
READ_CHUNK = 64 * 1024

# A string id is short; bounded repeats keep the regex engine's memory small on hostile input.
_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"[^"\\]{0,256}(?:\\.[^"\\]{0,256}){0,16}")')
_METHOD = re.compile(rb'(?<!\\)"method"\s*:')
_TEXT = re.compile(rb'"text"\s*:\s*"')
_CUT_ESCAPE = re.compile(r"\\u[0-9a-fA-F]{0,3}$|\\u[dD][89abAB][0-9a-fA-F]{2}$")


@dataclass(slots=True)
class StdioLink:
    """What became of the connection: `ended` says why it ended, once it has."""

    ended: str | None = None

    def end(self, why: str) -> None:
        if self.ended is None:
            self.ended = why


class ServerLog:
    """A server's log file, of which one session writes at most `MAX_LOG_BYTES`."""

    def __init__(self, sink: IO[str] | None) -> None:
        self._sink = sink
        self._room = MAX_LOG_BYTES

    def write(self, text: str) -> None:
        if self._sink is None or self._room <= 0:
            return
        data = text[: self._room]
        self._room -= len(data)
        if self._room <= 0:
            data += f"\n[hookwright: over {MAX_LOG_BYTES} bytes; the rest is dropped]\n"
        with contextlib.suppress(OSError, ValueError):
            self._sink.write(data)
            self._sink.flush()


@dataclass(frozen=True, slots=True)
class Overlong:
    """The first `KEEP_BYTES` of a stdout line that passed the limit."""

    head: bytes


class LineSplitter:
    """Splits a byte stream into lines of at most `limit` bytes; a longer line comes out once,
    as an `Overlong`, the moment it passes the limit, and its rest is dropped."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._line = bytearray()
        self._dropping = False

    def feed(self, chunk: bytes) -> list[bytes | Overlong]:
        out: list[bytes | Overlong] = []
        start = 0
        while start <= len(chunk):
            newline = chunk.find(b"\n", start)
            end = len(chunk) if newline < 0 else newline
            self._take(chunk[start:end], newline >= 0, out)
            if newline < 0:
                break
            start = newline + 1
        return out

    def _take(self, piece: bytes, ends_line: bool, out: list[bytes | Overlong]) -> None:
        if self._dropping:
            self._dropping = not ends_line
            return
        self._line += piece
        if len(self._line) > self._limit:
            out.append(Overlong(bytes(self._line[:KEEP_BYTES])))
            self._line.clear()
            self._dropping = not ends_line
        elif ends_line:
            out.append(bytes(self._line))
            self._line.clear()


def salvage(head: bytes, limit: int) -> SessionMessage | None:
    """The answer for the call an overlong line answers, from its first bytes: the text it
    starts with, or an error; None when they name no request id (or are a request)."""
    found = _ID.search(head)
    if not head.lstrip().startswith(b"{") or found is None or _METHOD.search(head):
        return None
    request_id: types.RequestId = json.loads(found.group(1))
    text = _text_prefix(head)
    if text is None:
        message = f"the MCP server's answer was over {limit} bytes, the limit for one message"
        error = types.ErrorData(code=types.INTERNAL_ERROR, message=message)
        return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))
    result = {
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "_meta": {OVERLONG_META: limit},
    }
    return SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=request_id, result=result))


def _text_prefix(head: bytes) -> str | None:
    """The (possibly cut) value of the first ``"text"`` string in ``head``."""
    found = _TEXT.search(head)
    if found is None:
        return None
    body = head[found.end() : _string_end(head, found.end())]
    if (len(body) - len(body.rstrip(b"\\"))) % 2:
        body = body[:-1]  # cut inside an escape
    raw = _CUT_ESCAPE.sub("", body.decode("utf-8", "ignore"))
    try:
        text = json.loads(f'"{raw}"')
    except ValueError:
        return None
    return str(text)


def _string_end(data: bytes, start: int) -> int:
    """The closing quote of the JSON string whose body starts at ``start``, or the end of
    ``data``; one linear pass (a regex would keep state for every escape it steps over)."""
    at = start
    while (quote := data.find(b'"', at)) >= 0:
        backslashes = 0
        while quote - backslashes > start and data[quote - backslashes - 1] == ord("\\"):
            backslashes += 1
        if backslashes % 2 == 0:
            return quote
        at = quote + 1
    return len(data)


@asynccontextmanager
async def open_stdio(
    command: str,
    args: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path | None,
    log: ServerLog,
    link: StdioLink,
) -> AsyncIterator[Streams]:
    """Start the server and yield the session's read and write streams; stop it on exit."""
    process = await anyio.open_process(
        [command, *args],
        env=dict(env),
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    inbox, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, outbox = anyio.create_memory_object_stream[SessionMessage](0)
    async with anyio.create_task_group() as tasks:
        stdout_done = anyio.Event()
        tasks.start_soon(_pump_stdout, process, inbox, log, link, stdout_done)
        tasks.start_soon(_pump_stdin, process, outbox, inbox, link)
        tasks.start_soon(_pump_stderr, process, log)
        tasks.start_soon(_watch_exit, process, inbox, link, stdout_done)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                write_stream.close()
                read_stream.close()
                await _stop(process)
                tasks.cancel_scope.cancel()


async def _pump_stdout(
    process: Process,
    inbox: MemoryObjectSendStream[SessionMessage | Exception],
    log: ServerLog,
    link: StdioLink,
    done: anyio.Event,
) -> None:
    assert process.stdout is not None
    lines = LineSplitter(MAX_MESSAGE_BYTES)
    try:
        async for chunk in _chunks(process.stdout):
            for line in lines.feed(chunk):
                message = _message(line, log)
                if message is not None:
                    await inbox.send(message)
    except (anyio.BrokenResourceError, anyio.ClosedResourceError):
        return
    finally:
        done.set()
    if await _exited(process, EXIT_DRAIN):
        link.end(f"the server exited (code {process.returncode})")
    link.end("the server closed its output")
    inbox.close()


async def _chunks(stream: ByteReceiveStream) -> AsyncIterator[bytes]:
    """The stream's data until it ends (or breaks, as a pipe whose far end is gone may)."""
    while True:
        try:
            yield await stream.receive(READ_CHUNK)
        except (anyio.EndOfStream, anyio.BrokenResourceError, OSError):
            return


def _message(line: bytes | Overlong, log: ServerLog) -> SessionMessage | None:
    if isinstance(line, Overlong):
        salvaged = salvage(line.head, MAX_MESSAGE_BYTES)
        if salvaged is None:
            log.write(f"hookwright: dropped a stdout line over {MAX_MESSAGE_BYTES} bytes\n")
        return salvaged
    if not line.strip():
        return None
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError:
        shown = line[:200].decode("utf-8", "replace")
        log.write(f"hookwright: skipped a stdout line that is not JSON-RPC: {shown}\n")
        return None


async def _pump_stdin(
    process: Process,
    outbox: MemoryObjectReceiveStream[SessionMessage],
    inbox: MemoryObjectSendStream[SessionMessage | Exception],
    link: StdioLink,
) -> None:
    assert process.stdin is not None
    try:
        async for message in outbox:
            body = message.message.model_dump_json(by_alias=True, exclude_unset=True)
            await process.stdin.send(body.encode("utf-8") + b"\n")
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        link.end("the server stopped reading its input")
        inbox.close()


async def _pump_stderr(process: Process, log: ServerLog) -> None:
    assert process.stderr is not None
    async for chunk in _chunks(process.stderr):
        log.write(chunk.decode("utf-8", "replace"))


async def _watch_exit(
    process: Process,
    inbox: MemoryObjectSendStream[SessionMessage | Exception],
    link: StdioLink,
    stdout_done: anyio.Event,
) -> None:
    """End the connection when the server exits: after its last output is read, or at once
    when a child of it keeps stdout open."""
    while process.returncode is None:
        await anyio.sleep(EXIT_POLL)
    with anyio.move_on_after(EXIT_DRAIN):
        await stdout_done.wait()
    link.end(f"the server exited (code {process.returncode})")
    inbox.close()


async def _stop(process: Process) -> None:
    """Ask the server to end (stdin closed, then SIGTERM to its group), then SIGKILL whatever
    is left of the group and wait until none of it runs. The kill is in a `finally`: a native
    asyncio cancellation (which an anyio shield does not stop) skips the asking, not the
    kill; after a kill, a process may still run for a moment, so the wait is what makes the
    stop end only once the group is gone."""
    try:
        await _ask_to_end(process)
    finally:
        signal_group(process.pid, signal.SIGKILL)
        with anyio.move_on_after(STOP_GRACE):
            await process.aclose()
            while group_alive(process.pid):
                await anyio.sleep(EXIT_POLL / 5)


async def _ask_to_end(process: Process) -> None:
    """Close the server's stdin, then SIGTERM its group, each followed by up to `STOP_GRACE`
    seconds for the server to exit."""
    assert process.stdin is not None
    with contextlib.suppress(Exception):
        await process.stdin.aclose()
    for ending in (None, signal.SIGTERM):
        if ending is not None:
            signal_group(process.pid, ending)
        if await _exited(process, STOP_GRACE):
            return


async def _exited(process: Process, within: float) -> bool:
    with anyio.move_on_after(within):
        while process.returncode is None:
            await anyio.sleep(EXIT_POLL)
    return process.returncode is not None
