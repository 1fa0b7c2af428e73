"""A kept-alive connection's repeated request is answered from its readiness report, its
answer's first step run as a step of the connection's task: the answer still sees that task
as the current one (a timeout works and fires), its context variables hold across a
suspension, an answer that suspends or raises is taken over by the task, and every request
is answered once, in order. Real loopback sockets, `serve_connection` as the front runs
it."""

from __future__ import annotations

import asyncio
import contextvars
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from tests.hosts.test_daemon_flood import head_of, request_head

from hookwright.bridges.daemon_http import DEFAULT_LIMITS, serve_connection
from hookwright.bridges.endpoint import Endpoint
from hookwright.bridges.projects import Reply

ENDPOINT = Endpoint(8765, "Q" * 43)
Answer = Callable[[bytes, Path | None, str | None], Awaitable[Reply]]
#: Set by an answer before it suspends, read after.
_SEEN: contextvars.ContextVar[bytes] = contextvars.ContextVar("_SEEN", default=b"")


async def _read_answer(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    status, fields = head_of(head)
    return status, await reader.readexactly(int(fields["content-length"]))


async def _client(port: int, bodies: list[bytes], pipelined: bool) -> list[tuple[int, bytes]]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    requests = [request_head(ENDPOINT, Path("/"), len(body)) + body for body in bodies]
    try:
        if pipelined:
            writer.write(b"".join(requests))
            return [await _read_answer(reader) for _ in requests]
        answers = []
        for request in requests:
            writer.write(request)
            answers.append(await _read_answer(reader))
        return answers
    finally:
        writer.close()


async def _served(
    answer: Answer, bodies: list[bytes], *, pipelined: bool = False
) -> list[tuple[int, bytes]]:
    """`bodies` posted on one kept-alive connection to `serve_connection` with `answer`; the
    status and body of each answer."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    loop = asyncio.get_running_loop()
    with listener:
        client = asyncio.create_task(_client(listener.getsockname()[1], bodies, pipelined))
        conn, _ = await loop.sock_accept(listener)
    conn.setblocking(False)
    with conn:
        server = asyncio.create_task(serve_connection(conn, ENDPOINT, answer, DEFAULT_LIMITS))
        try:
            async with asyncio.timeout(30):
                return await client
        finally:
            server.cancel()
            await asyncio.gather(server, return_exceptions=True)


async def _suspending(body: bytes, project: Path | None, env_project: str | None) -> Reply:
    """Sets a context variable, suspends (every other request), and answers what it read
    of the variable after: the answer's first step in place, its rest in the task."""
    _SEEN.set(body)
    if body.endswith(b"0}"):
        await asyncio.sleep(0.01)
    await asyncio.sleep(0)
    return Reply(0, _SEEN.get())


@pytest.mark.parametrize("pipelined", [False, True], ids=["one-by-one", "pipelined"])
async def test_an_answer_that_suspends_is_finished_by_the_task_in_its_context(
    pipelined: bool,
) -> None:
    bodies = [b'{"n": %d}' % n for n in range(12)]
    answers = await _served(_suspending, bodies, pipelined=pipelined)
    assert answers == [(200, body) for body in bodies]


async def test_an_answer_in_place_sees_its_task_and_its_timeout_fires() -> None:
    tasks: list[asyncio.Task[object] | None] = []

    async def timed(body: bytes, project: Path | None, env_project: str | None) -> Reply:
        tasks.append(asyncio.current_task())
        try:
            async with asyncio.timeout(0.01 if body == b'{"late": 1}' else 10):
                await asyncio.sleep(0 if body == b"{}" else 5)
        except TimeoutError:
            return Reply(0, b"timed out")
        return Reply(0, b"in time")

    answers = await _served(timed, [b"{}", b"{}", b'{"late": 1}', b"{}"])
    assert answers == [(200, b"in time")] * 2 + [(200, b"timed out"), (200, b"in time")]
    assert None not in tasks and len(set(tasks)) == 1


async def test_an_answer_that_raises_in_place_ends_the_connection_as_from_the_task() -> None:
    calls: list[bytes] = []

    async def failing(body: bytes, project: Path | None, env_project: str | None) -> Reply:
        calls.append(body)
        if len(calls) == 3:
            raise RuntimeError("the answer failed")
        return Reply(0, b"ok")

    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    loop = asyncio.get_running_loop()
    with listener:
        client = asyncio.create_task(
            _client(listener.getsockname()[1], [b"{}"] * 4, pipelined=False)
        )
        conn, _ = await loop.sock_accept(listener)
    conn.setblocking(False)
    with conn, pytest.raises(RuntimeError, match="the answer failed"):
        async with asyncio.timeout(30):
            await serve_connection(conn, ENDPOINT, failing, DEFAULT_LIMITS)
    with pytest.raises(asyncio.IncompleteReadError):
        await client
    assert calls == [b"{}"] * 3
