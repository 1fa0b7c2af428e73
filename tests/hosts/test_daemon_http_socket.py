"""The daemon's http front sends each answer at once: every connection it accepts has Nagle's
algorithm off (`TCP_NODELAY`), so the tail of an answer written in more than one piece is
not held back until the client acknowledges the head. Checked on the real accepted socket
of an `HttpFront` listening on 127.0.0.1, answering a real request. A refused connection is
closed after a lingering read, so a client still sending reads its 503."""

from __future__ import annotations

import asyncio
import contextlib
import select
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hookwright.bridges import daemon_http
from hookwright.bridges.daemon_http import HttpFront, Limits
from hookwright.bridges.endpoint import HOOK_PATH, HOST, Endpoint
from hookwright.bridges.projects import Reply

TOKEN = "T" * 43
ANSWER = b'{"continue":true}\n'


async def _answer(body: bytes, project: Path | None, env_project: str | None) -> Reply:
    return Reply(0, ANSWER)


def _request(port: int) -> bytes:
    body = b'{"hook_event_name":"UserPromptSubmit"}'
    head = (
        f"POST {HOOK_PATH} HTTP/1.1\r\nHost: {HOST}:{port}\r\nAuthorization: Bearer {TOKEN}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


async def test_accepted_connections_send_without_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    serve = daemon_http.serve_connection

    async def observed(conn: socket.socket, *args: object) -> None:
        seen.append(conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        await serve(conn, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(daemon_http, "serve_connection", observed)
    listener = socket.create_server((HOST, 0))
    listener.setblocking(False)
    port = listener.getsockname()[1]
    front = HttpFront(listener, Endpoint(port, TOKEN), _answer, Limits(), {"http_connections": 0})
    try:
        reader, writer = await asyncio.open_connection(HOST, port)
        writer.write(_request(port))
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        body = await asyncio.wait_for(reader.readexactly(len(ANSWER)), 30)
        writer.close()
        await writer.wait_closed()
    finally:
        front.close()
    assert head.startswith(b"HTTP/1.1 200") and body == ANSWER
    assert len(seen) == 1 and seen[0] != 0


def _late_request(port: int) -> bytes:
    """A client that connects, sees the answer arrive before it sent anything, then sends its
    request in two writes and reads: what a refused client does when the front answers the
    moment it accepts."""
    request = _request(port)
    head_end = request.index(b"\r\n\r\n") + 4
    with socket.create_connection((HOST, port), timeout=30) as client:
        readable, _, _ = select.select([client], [], [], 30)
        assert readable, "no answer"
        client.sendall(request[:head_end])
        time.sleep(0.2)  # time for a reset to come back, were the front's side closed
        client.sendall(request[head_end:])
        client.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := client.recv(65536):
            answer += chunk
        return answer


@contextlib.asynccontextmanager
async def _holding_the_one_place(front: HttpFront, port: int) -> AsyncIterator[None]:
    """An idle connection that takes the front's one place, so the next one is refused."""
    _, writer = await asyncio.open_connection(HOST, port)
    try:
        async with asyncio.timeout(30):
            while front.open_connections < 1:
                await asyncio.sleep(0.01)
        yield
    finally:
        writer.close()
        await writer.wait_closed()


async def test_a_refused_client_still_sending_reads_its_503_not_a_broken_pipe() -> None:
    listener = socket.create_server((HOST, 0))
    listener.setblocking(False)
    port = listener.getsockname()[1]
    counts = {"http_connections": 0, "http_refused": 0}
    front = HttpFront(listener, Endpoint(port, TOKEN), _answer, Limits(connections=1), counts)
    try:
        async with _holding_the_one_place(front, port):
            answer = await asyncio.to_thread(_late_request, port)
    finally:
        front.close()
    assert answer.startswith(b"HTTP/1.1 503") and b"too many open connections" in answer
    assert counts["http_refused"] == 1


async def test_a_refused_peer_that_never_ends_is_closed_after_the_linger(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The lingering read is bounded: a refused peer that keeps its side open is closed."""
    monkeypatch.setattr(daemon_http, "LINGER_SECONDS", 0.2)
    listener = socket.create_server((HOST, 0))
    listener.setblocking(False)
    port = listener.getsockname()[1]
    counts = {"http_connections": 0, "http_refused": 0}
    front = HttpFront(listener, Endpoint(port, TOKEN), _answer, Limits(connections=1), counts)

    def hold_open() -> bytes:
        with socket.create_connection((HOST, port), timeout=30) as client:
            answer = b""
            while chunk := client.recv(65536):
                answer += chunk
            return answer

    try:
        async with _holding_the_one_place(front, port):
            answer = await asyncio.to_thread(hold_open)
    finally:
        front.close()
    assert answer.startswith(b"HTTP/1.1 503")
