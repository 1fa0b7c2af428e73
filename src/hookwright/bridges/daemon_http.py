"""The daemon's HTTP/1.1 front for Claude Code `http` hooks, on 127.0.0.1 only.

A request is answered only when it carries the daemon's token (`Authorization: Bearer`,
otherwise 401) and names a loopback host (`Host`, otherwise 403: a web page that rebinds a
name of its own to 127.0.0.1 cannot reach the daemon). Connections are kept alive, as Claude
Code's HTTP client keeps them."""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from hookwright.bridges.endpoint import HOOK_PATH, Endpoint
from hookwright.bridges.projects import Reply

MAX_HEADER_BYTES = 16 * 1024
MAX_BODY_BYTES = 16 * 1024 * 1024
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost"})
REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden"}
REASONS |= {404: "Not Found", 405: "Method Not Allowed", 413: "Payload Too Large"}

Answer = Callable[[bytes, Path | None, str | None], Awaitable[Reply]]


@dataclass(frozen=True, slots=True)
class Request:
    method: str
    target: str
    headers: dict[str, str]
    body: bytes
    keep_alive: bool


class BadRequest(Exception):
    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status


async def read_request(reader: asyncio.StreamReader) -> Request | None:
    """The next request on the connection; None when the client closed it."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        if exc.partial.strip():
            raise BadRequest(400, "incomplete request") from None
        return None
    except asyncio.LimitOverrunError:
        raise BadRequest(413, "request head too large") from None
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        raise BadRequest(400, "malformed request line")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    length = headers.get("content-length", "0")
    if not length.isdigit() or int(length) > MAX_BODY_BYTES:
        raise BadRequest(413, "body missing a valid Content-Length or too large")
    body = await reader.readexactly(int(length))
    close = headers.get("connection", "").lower() == "close" or parts[2] == "HTTP/1.0"
    return Request(parts[0], parts[1], headers, body, not close)


def loopback_host(value: str, port: int) -> bool:
    name, sep, given = value.partition(":")
    return name.lower() in LOOPBACK_NAMES and (not sep or given == str(port))


def authorized(request: Request, token: str) -> bool:
    given = request.headers.get("authorization", "")
    return hmac.compare_digest(given.encode(), f"Bearer {token}".encode())


async def respond(request: Request, endpoint: Endpoint, answer: Answer) -> tuple[int, bytes]:
    if not loopback_host(request.headers.get("host", ""), endpoint.port):
        return 403, b"hookwright: not a loopback Host\n"
    if not authorized(request, endpoint.token):
        return 401, b"hookwright: missing or wrong token\n"
    url = urlsplit(request.target)
    if url.path != HOOK_PATH:
        return 404, b"hookwright: no such path\n"
    if request.method != "POST":
        return 405, b"hookwright: POST only\n"
    named = parse_qs(url.query).get("project")
    project = Path(named[0]) if named and named[0] else None
    reply = await answer(request.body, project, None)
    if reply.exit != 0:
        return 400, reply.stderr.encode()
    return 200, reply.stdout


def _response(status: int, body: bytes, keep_alive: bool) -> bytes:
    kind = "application/json" if status == 200 else "text/plain; charset=utf-8"
    head = (
        f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}\r\n"
        f"Content-Type: {kind}\r\nContent-Length: {len(body)}\r\n"
        f"Connection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n"
    )
    return head.encode() + body


async def serve_connection(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    endpoint: Endpoint,
    answer: Answer,
) -> None:
    try:
        while True:
            try:
                request = await read_request(reader)
            except BadRequest as exc:
                writer.write(_response(exc.status, f"hookwright: {exc}\n".encode(), False))
                await writer.drain()
                return
            if request is None:
                return
            status, body = await respond(request, endpoint, answer)
            writer.write(_response(status, body, request.keep_alive))
            await writer.drain()
            if not request.keep_alive:
                return
    except (ConnectionError, asyncio.IncompleteReadError):
        return
    finally:
        writer.close()
