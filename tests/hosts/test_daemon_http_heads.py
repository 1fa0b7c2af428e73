"""A request head the daemon's http front admitted once is remembered by its exact bytes:
sent again (whole, pipelined, split, a byte at a time) it is answered as the first, and any
other bytes (one character of the token changed, another endpoint) are parsed and judged
afresh. A real daemon on 127.0.0.1, real sockets."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import pytest
from tests.hosts.project import hook_input, make_project
from tests.hosts.test_daemon import DENY, RM
from tests.hosts.test_daemon_flood import (
    closed_soon,
    connect,
    head_of,
    http_verdict,
    request_head,
    start,
)

from hookwright.bridges import daemon_http
from hookwright.bridges.daemon_http import DEFAULT_LIMITS, serve_connection
from hookwright.bridges.endpoint import Endpoint, ensure_endpoint
from hookwright.bridges.projects import Reply
from hookwright.config.trust import TrustStore


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = make_project(tmp_path / "proj")
    TrustStore(Path.home()).trust(root)
    return root


@pytest.fixture
def endpoint() -> Endpoint:
    return ensure_endpoint(Path.home())


def read_answers(conn: socket.socket, count: int) -> list[tuple[int, dict[str, str], bytes]]:
    """The next `count` answers on `conn`: status, fields, body."""
    data, answers = b"", []
    while len(answers) < count:
        end = data.find(b"\r\n\r\n")
        if end >= 0:
            status, fields = head_of(data[: end + 4])
            size = int(fields["content-length"])
            if len(data) >= end + 4 + size:
                answers.append((status, fields, data[end + 4 : end + 4 + size]))
                data = data[end + 4 + size :]
                continue
        chunk = conn.recv(65536)
        assert chunk, f"closed after {len(answers)} answers"
        data += chunk
    return answers


def verdict(body: bytes) -> Any:
    return json.loads(body)["hookSpecificOutput"]


def test_a_head_sent_again_whole_pipelined_split_and_bytewise_is_answered_each_time(
    project: Path, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    start(monkeypatch)
    body = hook_input(project, "PreToolUse", **RM)
    request = request_head(endpoint, project, len(body)) + body
    with connect(endpoint.port) as conn:
        conn.sendall(request)
        conn.sendall(request * 2)
        half = len(request) // 2
        conn.sendall(request[:half])
        assert [status for status, _, _ in read_answers(conn, 3)] == [200, 200, 200]
        conn.sendall(request[half:])
        for byte in range(len(request)):
            conn.sendall(request[byte : byte + 1])
        answers = read_answers(conn, 2)
    assert [(status, verdict(text)) for status, _, text in answers] == [(200, DENY)] * 2


def test_a_head_remembered_with_one_token_character_changed_is_refused(
    project: Path, endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    start(monkeypatch)
    body = hook_input(project, "PreToolUse", **RM)
    good = request_head(endpoint, project, len(body))
    token = endpoint.token
    changed = token[:-1] + ("A" if token[-1] != "A" else "B")
    bad = request_head(endpoint, project, len(body), Authorization=f"Bearer {changed}")
    assert len(bad) == len(good) and bad != good
    with connect(endpoint.port) as conn:
        conn.sendall(good + body + bad + body)
        (status, _, text), (refused, fields, _) = read_answers(conn, 2)
        assert (status, verdict(text)) == (200, DENY)
        assert (refused, fields["connection"]) == (401, "close")
        assert closed_soon(conn) == (True, b"")
    assert http_verdict(endpoint, project) == DENY


class CountingReads(socket.socket):
    """A socket that counts the reads that take bytes (not the peeks) and what they took,
    until the front ends its side."""

    reads = 0
    taken = 0
    ended = False

    def recv(self, bufsize: int, flags: int = 0) -> bytes:
        data = super().recv(bufsize, flags)
        if not flags & socket.MSG_PEEK and not self.ended:
            self.reads += 1
            self.taken += len(data)
        return data

    def shutdown(self, how: int) -> None:
        self.ended = True
        super().shutdown(how)


async def _serve_once(endpoint: Endpoint, request: bytes, reads: list[int] | None = None) -> bytes:
    """`request` sent whole to `serve_connection` for `endpoint` over a loopback connection;
    what came back once the front ended the connection. `reads`: the reads and the bytes
    taken are appended to it."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        client = socket.create_connection(listener.getsockname())
        accepted, _ = listener.accept()
    server = CountingReads(fileno=accepted.detach())
    server.setblocking(False)

    async def answer(body: bytes, project: Path | None, env_project: str | None) -> Reply:
        return Reply(0, b'{"ok": true}')

    with client:
        client.sendall(request)
        client.shutdown(socket.SHUT_WR)
        with server:
            await serve_connection(server, endpoint, answer, DEFAULT_LIMITS)
        if reads is not None:
            reads += [server.reads, server.taken]
        client.settimeout(5)
        chunks = []
        while chunk := client.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_a_head_admitted_for_one_endpoint_is_judged_again_for_another(tmp_path: Path) -> None:
    first, other = Endpoint(8765, "A" * 43), Endpoint(8765, "B" * 43)
    request = request_head(first, tmp_path, 2) + b"{}"
    assert head_of(asyncio.run(_serve_once(first, request)))[0] == 200
    assert request[: request.index(b"\r\n\r\n") + 4] in daemon_http._ADMITTED
    assert head_of(asyncio.run(_serve_once(other, request)))[0] == 401


def test_a_request_that_came_whole_is_taken_in_one_read_and_a_refused_one_head_only(
    tmp_path: Path,
) -> None:
    endpoint = Endpoint(8765, "A" * 43)
    body = b'{"hook_event_name": "PreToolUse"}'
    good = request_head(endpoint, tmp_path, len(body))
    reads: list[int] = []
    assert head_of(asyncio.run(_serve_once(endpoint, good + body, reads)))[0] == 200
    assert reads == [1, len(good) + len(body)]
    wrong = request_head(endpoint, tmp_path, len(body), Authorization="Bearer wrong")
    reads.clear()
    assert head_of(asyncio.run(_serve_once(endpoint, wrong + body, reads)))[0] == 401
    assert reads == [1, len(wrong)]
