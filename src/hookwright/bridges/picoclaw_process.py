"""`hookwright picoclaw-process`: a PicoClaw process hook (`hooks.processes`) serving a
project's hooks over PicoClaw's JSON-RPC stdio protocol, both the v0.2.4-v0.2.8 one
(`hook.event` notifications, top-level channel/chat_id) and the current one
(`hook.runtime_event`, `context`): their requests are the same five methods.

The protocol owns the real stdin and stdout: before anything else runs, both are moved to
private descriptors and fds 0/1 become /dev/null and stderr, so a hook that prints or reads
can never corrupt a message. Every request gets exactly one answer, a malformed line a
JSON-RPC error; notifications get none. Stdin closing (PicoClaw's shutdown) or SIGTERM ends
each session (SessionEnd) and the process."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

from hookwright.bridges.picoclaw_bridge import PicoClawBridge, untrusted_answer
from hookwright.bridges.picoclaw_rpc import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    Call,
    RpcFault,
    error_line,
    parse_call,
    result_line,
)
from hookwright.core.home import user_home
from hookwright.host.open import trusted_by_store
from hookwright.transports.rpc import LineSplitter

#: Longest request line read (PicoClaw sends whole conversations in before_llm).
MAX_LINE = 64 * 1024 * 1024
MAX_IN_FLIGHT = 32
Answerer = Callable[[Call], Awaitable[Any]]


def _private_stdio() -> tuple[int, int]:
    """The protocol's own copies of stdin and stdout; fd 0 becomes /dev/null, fd 1 stderr."""
    proto_in, proto_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return proto_in, proto_out


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class _Server:
    def __init__(self, answer: Answerer, proto_out: int) -> None:
        self.answer = answer
        self.out = proto_out
        self.slots = asyncio.Semaphore(MAX_IN_FLIGHT)
        self.tasks: set[asyncio.Task[None]] = set()

    def send(self, line: bytes) -> None:
        with suppress(OSError):  # PicoClaw went away; its stdin EOF ends us next
            _write_all(self.out, line)

    async def handle(self, line: bytes | None) -> None:
        try:
            if line is None:
                self.send(error_line(None, INVALID_REQUEST, "invalid request: line too long"))
                return
            try:
                call = parse_call(line)
            except RpcFault as fault:
                self.send(error_line(fault.msg_id, fault.code, fault.message))
                return
            await self._serve(call)
        finally:
            self.slots.release()

    async def _serve(self, call: Call) -> None:
        try:
            result = await self.answer(call)
        except RpcFault as fault:
            if not call.notification:
                self.send(error_line(call.id, fault.code, fault.message))
            return
        except Exception as exc:  # a bug: the peer still gets its one answer
            sys.stderr.write(f"hookwright: {call.method} failed: {exc!r}\n")
            if not call.notification:
                self.send(error_line(call.id, INTERNAL_ERROR, f"internal error: {exc}"))
            return
        if not call.notification:
            self.send(result_line(call.id, result))

    async def run(self, lines: asyncio.Queue[bytes | EOFError | None]) -> None:
        while True:
            item = await lines.get()
            if isinstance(item, EOFError):
                break
            if item is not None and not item.strip():
                continue
            await self.slots.acquire()
            task = asyncio.create_task(self.handle(item))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)


def _start_reader(fd: int, loop: asyncio.AbstractEventLoop) -> asyncio.Queue[Any]:
    """A daemon thread feeding the lines of `fd` (None: too long) and then EOFError."""
    queue: asyncio.Queue[Any] = asyncio.Queue()

    def put(item: Any) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, item)

    def read() -> None:
        splitter = LineSplitter(MAX_LINE, put)
        with suppress(OSError):
            while chunk := os.read(fd, 1 << 16):
                splitter.feed(chunk)
        splitter.feed_eof()
        put(EOFError())

    threading.Thread(target=read, name="picoclaw-stdin", daemon=True).start()
    return queue


async def _serve(project: Path, home: Path, proto_in: int, proto_out: int) -> None:
    loop = asyncio.get_running_loop()
    lines = _start_reader(proto_in, loop)
    with suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGTERM, lines.put_nowait, EOFError())
    bridge: PicoClawBridge | None = None
    if trusted_by_store(project, home):
        bridge = PicoClawBridge(project, home)
        answer: Answerer = bridge.answer
    else:
        sys.stderr.write(
            f"hookwright: {project} is not trusted: none of its hooks run, every PicoClaw "
            f"call is answered with continue; trust it with: hookwright trust {project}\n"
        )

        async def answer(call: Call) -> Any:
            return untrusted_answer(call)

    try:
        await _Server(answer, proto_out).run(lines)
    finally:
        if bridge is not None:
            await bridge.aclose()


def serve(project: Path, home: Path | None = None) -> int:
    """Serve PicoClaw on this process's stdin/stdout until stdin closes; the exit code."""
    proto_in, proto_out = _private_stdio()
    asyncio.run(_serve(project.resolve(), home or user_home(), proto_in, proto_out))
    return 0
