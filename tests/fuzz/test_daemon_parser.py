"""Fuzz of the daemon's http front: what any local process can send to 127.0.0.1:PORT.

Each input (raw bytes, a valid request with bytes spliced in, or one to three pipelined
requests built from valid and hostile request lines, headers, bodies and line endings) is
sent in pieces over a real loopback connection to `serve_connection`, then the sender closes
its side (or, for a few, stays silent until the deadlines). The server never raises and ends
within the deadline; what it sent is a sequence of well-formed HTTP/1.1 answers or nothing,
every refusal last and with `Connection: close`; and it consumed no byte past the head of a
request it refused from its head.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import socket
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bounds import GENEROUS_BOUND
from hookwright.bridges import daemon_http
from hookwright.bridges.daemon_http import Limits, serve_connection
from hookwright.bridges.endpoint import HOOK_PATH, Endpoint
from hookwright.bridges.projects import Reply

from .budget import budget

ENDPOINT = Endpoint(8765, "T" * 43)
#: Short deadlines: an input that leaves the connection open ends at one of them.
LIMITS = Limits(idle=0.1, head=0.2, body=0.2, connections=1)
#: Statuses judged from a head alone: their body must stay unread.
HEAD_REFUSALS = frozenset({401, 403, 404, 405, 411, 413})
STATUSES = HEAD_REFUSALS | {100, 200, 400, 408, 431, 501}
_HEAD_END = re.compile(rb"\n\r?\n")
_STATUS_LINE = re.compile(rb"HTTP/1\.1 (\d{3}) [^\r\n]*\r\n")
_FIELD = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+): ([^\r\n]*)\r\n")


class CountingSocket(socket.socket):
    """A socket that counts the bytes taken from it (peeks are not taken) until the front
    ends its side: what the lingering close drops after a refusal is never parsed."""

    taken = 0
    ended = False

    def recv(self, bufsize: int, flags: int = 0) -> bytes:
        data = super().recv(bufsize, flags)
        if not flags & socket.MSG_PEEK and not self.ended:
            self.taken += len(data)
        return data

    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
        count = super().recv_into(buffer, nbytes, flags)
        if not flags & socket.MSG_PEEK and not self.ended:
            self.taken += count
        return count

    def shutdown(self, how: int) -> None:
        self.ended = True
        super().shutdown(how)


@pytest.fixture(scope="module", autouse=True)
def short_linger() -> Iterator[None]:
    """The lingering read after a refusal as short as the deadlines in `LIMITS`: an input whose
    sender stays silent (about a third of them) is dropped after it, not after the daemon's
    2 s."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(daemon_http, "LINGER_SECONDS", LIMITS.body)
        yield


@pytest.fixture(scope="module")
def listener() -> Iterator[socket.socket]:
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server


@dataclass
class Outcome:
    sent: bytes
    taken: int
    answered: int


#: What the stand-in for the warm projects answers to a body starting with `!`.
NOT_A_HOOK_INPUT = "hookwright: error: not a hook input\n"


async def _feed(client: socket.socket, pieces: list[bytes], keep_open: bool) -> None:
    loop = asyncio.get_running_loop()
    with suppress(OSError):
        for piece in pieces:
            await loop.sock_sendall(client, piece)
            await asyncio.sleep(0)
        if not keep_open:
            client.shutdown(socket.SHUT_WR)


async def _drain(client: socket.socket) -> bytes:
    loop, chunks = asyncio.get_running_loop(), []
    with suppress(ConnectionResetError):
        while chunk := await loop.sock_recv(client, 65536):
            chunks.append(chunk)
    return b"".join(chunks)


async def _exchange(listener: socket.socket, pieces: list[bytes], keep_open: bool) -> Outcome:
    client = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()
    server = CountingSocket(fileno=accepted.detach())
    client.setblocking(False)
    server.setblocking(False)
    calls: list[bytes] = []

    async def answer(body: bytes, project: Path | None, env_project: str | None) -> Reply:
        calls.append(body)
        if body.startswith(b"!"):
            return Reply(1, b"", NOT_A_HOOK_INPUT)
        return Reply(0, b'{"ok": true}')

    feeder = asyncio.create_task(_feed(client, pieces, keep_open))
    drainer = asyncio.create_task(_drain(client))
    try:
        async with asyncio.timeout(GENEROUS_BOUND):
            try:
                await serve_connection(server, ENDPOINT, answer, LIMITS)
            finally:
                server.close()
            sent = await drainer
    finally:
        feeder.cancel()
        drainer.cancel()
        client.close()
    return Outcome(sent, server.taken, len(calls))


def answers(sent: bytes) -> list[tuple[int, dict[bytes, bytes], bytes]]:
    """The answers in `sent`, each checked to be well-formed HTTP/1.1 with a Content-Length
    body; only a last answer that closes may omit its body (the answer to a HEAD)."""
    found, at = [], 0
    while at < len(sent):
        line = _STATUS_LINE.match(sent, at)
        assert line, sent[at:]
        at, fields = line.end(), {}
        while not sent.startswith(b"\r\n", at):
            field = _FIELD.match(sent, at)
            assert field, sent[at:]
            fields[field[1].lower()] = field[2]
            at = field.end()
        at += 2
        status, body = int(line[1]), b""
        if status != 100:
            length = int(fields[b"content-length"])
            closes = fields.get(b"connection") == b"close"
            assert at + length <= len(sent) or (closes and at == len(sent)), sent
            body, at = sent[at : at + length], min(at + length, len(sent))
        found.append((status, fields, body))
    return found


def check(data: bytes, outcome: Outcome) -> None:
    finals = [reply for reply in answers(outcome.sent) if reply[0] != 100]
    answered = 0
    for number, (status, fields, body) in enumerate(finals):
        assert status in STATUSES, status
        closes = fields.get(b"connection") == b"close"
        assert number == len(finals) - 1 or not closes, finals
        assert closes or status in (200, 400), finals
        answered += status == 200 or body == NOT_A_HOOK_INPUT.encode()
    assert outcome.answered == answered
    assert outcome.taken <= len(data)
    if finals and finals[-1][0] in HEAD_REFUSALS:
        taken = data[: outcome.taken]
        assert _HEAD_END.search(taken[-3:]) and taken.endswith(b"\n"), taken[-40:]
        if len(finals) == 1:
            first = _HEAD_END.search(data)
            assert first and outcome.taken == first.end()


GOOD_HEADERS = (
    (b"Host", f"127.0.0.1:{ENDPOINT.port}".encode()),
    (b"Authorization", f"Bearer {ENDPOINT.token}".encode()),
)
HOSTILE_FIELDS = st.sampled_from(
    [
        (b"Host", b"localhost"),
        (b"Host", b"attacker.example"),
        (b"Host", b"127.0.0.1:1"),
        (b"Host", b"127.0.0.1\r\nAuthorization: Bearer " + ENDPOINT.token.encode()),
        (b"Authorization", b"Bearer wrong"),
        (b"Authorization", f"bearer {ENDPOINT.token}".encode()),
        (b"Authorization", f"Bearer {ENDPOINT.token}\x00".encode()),
        (b"Content-Length", b"-1"),
        (b"Content-Length", b"+5"),
        (b"Content-Length", b"5, 5"),
        (b"Content-Length", b"5,6"),
        (b"Content-Length", b"0x10"),
        (b"Content-Length", b"99999999999999999999999"),
        (b"Content-Length", b"9" * 4300),
        (b"Content-Length", b"16777217"),
        (b"Transfer-Encoding", b"chunked"),
        (b"Transfer-Encoding", b"gzip, chunked"),
        (b"Transfer-Encoding", b"chunked\x00"),
        (b"Expect", b"100-continue"),
        (b"Expect", b"nonsense"),
        (b"Connection", b"close"),
        (b"Connection", b"keep-alive, Upgrade"),
        (b"Upgrade", b"websocket"),
        (b" Host", b"127.0.0.1"),
        (b"Host ", b"127.0.0.1"),
        (b"X-Folded", b"a\r\n continued"),
        (b"Ho\x00st", b"127.0.0.1"),
        (b"", b"no name"),
        (b"X-Long", b"v" * 20_000),
    ]
) | st.tuples(st.binary(max_size=12), st.binary(max_size=40))
METHODS = st.sampled_from([b"POST", b"GET", b"HEAD", b"CONNECT", b"OPTIONS", b"post", b""])
TARGETS = st.sampled_from(
    [
        HOOK_PATH,
        f"{HOOK_PATH}?project=/tmp/p",
        f"{HOOK_PATH}?project=%00",
        f"{HOOK_PATH}?project=&project=/x",
        f"http://127.0.0.1{HOOK_PATH}",
        f"{HOOK_PATH}/../x",
        "*",
        "/",
    ]
).map(str.encode) | st.binary(max_size=30)
VERSIONS = st.sampled_from([b"HTTP/1.1", b"HTTP/1.0", b"HTTP/2.0", b"http/1.1", b"HTTP/1.1 x"])
BODIES = st.binary(max_size=200) | st.sampled_from(
    [
        b"!not json",
        b"5\r\nhello\r\n0\r\n\r\n",
        b"fffffffffffffffffffffff\r\nx\r\n0\r\n\r\n",
        b"-1\r\n\r\n",
        b"x" * 300_000,
    ]
)
ENDINGS = st.sampled_from([b"\r\n", b"\n"])


@st.composite
def requests(draw: st.DrawFn) -> bytes:
    """One request: mostly a valid hook POST, with hostile fields added or valid ones lost."""
    method = draw(st.just(b"POST") | METHODS)
    target = draw(st.just(HOOK_PATH.encode()) | TARGETS)
    version = draw(st.just(b"HTTP/1.1") | VERSIONS)
    body = draw(BODIES)
    fields = [field for field in GOOD_HEADERS if draw(st.integers(0, 9)) > 0]
    if draw(st.integers(0, 9)) > 0:
        fields.append((b"Content-Length", str(len(body)).encode()))
    fields += draw(st.lists(HOSTILE_FIELDS, max_size=3))
    fields = draw(st.permutations(fields))
    end = draw(ENDINGS)
    lines = [method + b" " + target + b" " + version] + [name + b": " + v for name, v in fields]
    return end.join(lines) + end + end + body


@st.composite
def spliced(draw: st.DrawFn) -> bytes:
    """A request with a slice replaced by arbitrary bytes."""
    data = draw(requests())
    start = draw(st.integers(0, len(data)))
    stop = draw(st.integers(start, min(len(data), start + 50)))
    return data[:start] + draw(st.binary(max_size=20)) + data[stop:]


INPUTS = st.one_of(
    st.binary(max_size=300),
    spliced(),
    st.lists(requests(), min_size=1, max_size=3).map(b"".join),
)


@st.composite
def deliveries(draw: st.DrawFn) -> tuple[bytes, list[bytes]]:
    """An input and its cut in up to five pieces, as a slow or fragmenting sender delivers
    it."""
    data = draw(INPUTS)
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=4)))
    bounds = [0, *cuts, len(data)]
    return data, [data[a:b] for a, b in itertools.pairwise(bounds) if b > a]


VALID = b"".join(
    [
        f"POST {HOOK_PATH} HTTP/1.1\r\nHost: 127.0.0.1:{ENDPOINT.port}\r\n".encode(),
        f"Authorization: Bearer {ENDPOINT.token}\r\nContent-Length: 2\r\n\r\n{{}}".encode(),
    ]
)


def whole(data: bytes) -> tuple[bytes, list[bytes]]:
    return data, [data]


@budget(0.6)
@given(deliveries(), st.integers(0, 49))
@example(whole(VALID * 2), 1).via("two pipelined hook posts")
@example(whole(VALID.replace(b": 2\r", b": 16777217\r")), 1).via("over the body cap")
@example(whole(VALID.replace(b"\r\n\r\n", b"\r\n\r")), 1).via("a head that never ends")
@example(whole(VALID[:-2]), 0).via("a body that never comes")
@example(whole(VALID.replace(b"Content-Length: 2", b"X: y") + b"\x00"), 1).via(
    "a post without a body, then a stray byte"
)
def test_daemon_front_answers_well_formed_or_closes(
    listener: socket.socket, delivery: tuple[bytes, list[bytes]], silent: int
) -> None:
    data, cut = delivery
    outcome = asyncio.run(_exchange(listener, cut, keep_open=silent == 0))
    check(data, outcome)
