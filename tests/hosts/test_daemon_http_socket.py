"""The daemon's http front sends each answer at once: every connection it accepts has Nagle's
algorithm off (`TCP_NODELAY`), so the tail of an answer written in more than one piece is
not held back until the client acknowledges the head. Checked on the real accepted socket
of an `HttpFront` listening on 127.0.0.1, answering a real request."""

from __future__ import annotations

import asyncio
import socket
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
