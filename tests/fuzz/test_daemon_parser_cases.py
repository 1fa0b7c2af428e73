"""The daemon's http front on the inputs its head parser (llhttp, through httptools) may treat
otherwise than a lenient one: each sent over a real loopback connection to `serve_connection`,
as the fuzz sends them, with what came back and how many bytes were taken checked exactly."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest

from hookwright.bridges.endpoint import HOOK_PATH

from .test_daemon_parser import ENDPOINT, Outcome, _exchange, answers, check

TOKEN = f"Bearer {ENDPOINT.token}"
HEAD = f"POST {HOOK_PATH} HTTP/1.1\r\nHost: 127.0.0.1:{ENDPOINT.port}\r\n".encode()
BODY = b"{}"


def post(*fields: bytes, body: bytes = BODY, head: bytes = HEAD, token: str = TOKEN) -> bytes:
    lines = [f"Authorization: {token}".encode(), *fields]
    return head + b"".join(line + b"\r\n" for line in lines) + b"\r\n" + body


def with_length(*fields: bytes, body: bytes = BODY) -> bytes:
    return post(b"Content-Length: %d" % len(body), *fields, body=body)


@pytest.fixture(scope="module")
def listener() -> Iterator[socket.socket]:
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server


def exchange(listener: socket.socket, data: bytes, pieces: int = 1) -> Outcome:
    """Send `data` (in `pieces` about equal pieces), end our side, and check the outcome as
    the fuzz does."""
    size = -(-len(data) // pieces)
    cut = [data[at : at + size] for at in range(0, len(data), size)]
    outcome = asyncio.run(_exchange(listener, cut, keep_open=False))
    check(data, outcome)
    return outcome


def statuses(outcome: Outcome) -> list[int]:
    return [status for status, _, _ in answers(outcome.sent)]


def head_end(data: bytes, number: int = 1) -> int:
    """Where the `number`-th request head of `data` ends."""
    at = 0
    for _ in range(number):
        at = data.index(b"\r\n\r\n", at) + 4
    return at


@pytest.mark.parametrize(
    "field",
    [
        b"X-Folded: a\r\n continued",
        b"X-Folded: a\r\n\tcontinued",
    ],
    ids=["space", "tab"],
)
def test_a_folded_field_is_refused_as_malformed(listener: socket.socket, field: bytes) -> None:
    outcome = exchange(listener, with_length(field))
    assert statuses(outcome) == [400] and outcome.answered == 0


@pytest.mark.parametrize(
    "length",
    [b"Content-Length: 2\r\nContent-Length: 2", b"Content-Length: 2, 2", b"Content-Length: +2"],
    ids=["repeated", "listed", "signed"],
)
def test_a_content_length_given_twice_or_not_as_digits_is_refused(
    listener: socket.socket, length: bytes
) -> None:
    outcome = exchange(listener, post(length))
    assert statuses(outcome) == [400] and outcome.answered == 0


@pytest.mark.parametrize(
    "fields",
    [
        (b"Transfer-Encoding: chunked",),
        (b"Transfer-Encoding: chunked", b"Content-Length: 7"),
        (b"Content-Length: 7", b"Transfer-Encoding: gzip"),
    ],
    ids=["chunked", "chunked-and-length", "gzip-and-length"],
)
def test_a_chunked_body_is_refused_from_its_head_and_never_read(
    listener: socket.socket, fields: tuple[bytes, ...]
) -> None:
    data = post(*fields, body=b"2\r\n{}\r\n0\r\n\r\n")
    outcome = exchange(listener, data)
    assert statuses(outcome) == [411] and outcome.answered == 0
    assert outcome.taken == head_end(data)


def test_a_head_over_the_limit_is_refused_431(listener: socket.socket) -> None:
    outcome = exchange(listener, with_length(b"X-Long: " + b"v" * 17_000), pieces=4)
    assert statuses(outcome) == [431] and outcome.answered == 0
    assert outcome.taken <= 16 * 1024 + 1


def test_pipelined_posts_are_answered_in_order_each_body_read_once(
    listener: socket.socket,
) -> None:
    data = with_length(body=b'{"a":1}') + with_length(body=b'{"b":22}') + with_length()
    outcome = exchange(listener, data, pieces=7)
    assert statuses(outcome) == [200, 200, 200] and outcome.answered == 3
    assert outcome.taken == len(data)


def test_a_pipelined_post_refused_from_its_head_leaves_its_body_unread(
    listener: socket.socket,
) -> None:
    refused = post(b"Content-Length: 5", token="Bearer wrong", body=b"12345")
    data = with_length() + refused
    outcome = exchange(listener, data)
    assert statuses(outcome) == [200, 401] and outcome.answered == 1
    assert outcome.taken == head_end(data, 2)


@pytest.mark.parametrize(
    "data",
    [
        with_length().replace(b"\r\n", b"\n"),
        with_length().replace(b"POST ", b"POST  "),
        with_length().replace(b"HTTP/1.1", b"HTTP/2.0"),
        with_length().replace(b"Authorization:", b"Authorization :"),
        with_length(b"X-Nul: a\x00b"),
        with_length().replace(b"POST", b"post"),
    ],
    ids=["bare-lf", "double-space", "http-2", "space-before-colon", "nul-in-value", "lower-method"],
)
def test_a_head_that_is_not_strict_http_1_is_refused_as_malformed(
    listener: socket.socket, data: bytes
) -> None:
    outcome = exchange(listener, data)
    assert statuses(outcome) == [400] and outcome.answered == 0


def test_a_repeated_host_is_refused_even_when_one_is_empty(listener: socket.socket) -> None:
    outcome = exchange(listener, with_length(b"Host:"))
    assert statuses(outcome) == [403] and outcome.answered == 0


def test_whitespace_around_a_value_is_not_part_of_it(listener: socket.socket) -> None:
    data = post(b"Content-Length: 2", token=f" {TOKEN} \t")
    assert statuses(exchange(listener, data, pieces=3)) == [200]


@pytest.mark.parametrize(
    "data",
    [
        with_length(b"Connection: close") + with_length(),
        with_length().replace(b"HTTP/1.1", b"HTTP/1.0") + with_length(),
    ],
    ids=["connection-close", "http-1.0"],
)
def test_a_connection_the_client_closes_answers_once_and_closes(
    listener: socket.socket, data: bytes
) -> None:
    outcome = exchange(listener, data)
    assert statuses(outcome) == [200] and outcome.answered == 1
    assert answers(outcome.sent)[0][1][b"connection"] == b"close"


def test_expect_100_continue_is_answered_before_the_body(listener: socket.socket) -> None:
    outcome = exchange(listener, with_length(b"Expect: 100-continue"), pieces=2)
    assert statuses(outcome) == [100, 200] and outcome.answered == 1


def test_a_head_sent_a_byte_at_a_time_is_answered(listener: socket.socket) -> None:
    data = with_length()
    assert statuses(exchange(listener, data, pieces=len(data))) == [200]
