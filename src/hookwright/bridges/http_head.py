"""One HTTP/1.1 request head, parsed strictly for the daemon's http front.

The head (request line, fields, blank line; nothing of the body) is parsed by llhttp, the
parser of Node.js, through `httptools` (what uvicorn uses), with none of its leniencies:
every line ends in CRLF; field names are tokens; values hold no control character but HTAB;
a field folded over two lines (obs-fold), a second `Content-Length` (even an equal one) and
a `Content-Length` that is not plain digits or overflows are refused. On top of it the
request line must be `METHOD TARGET HTTP/1.x` with single spaces, for HTTP/1.0 or HTTP/1.1.

Two leniencies are on, both about `Transfer-Encoding`, which the front refuses whatever its
value (411, from the head): llhttp would refuse it beside a `Content-Length`, or without
`chunked` last, as a malformed head (400) instead. No body is ever given to the parser.

A refusal is a `Refusal` (status and text); the front answers it and closes."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import httptools

#: `METHOD SP request-target SP HTTP/1.0|1.1 CRLF` (llhttp alone allows repeated spaces).
_REQUEST_LINE = re.compile(rb"[A-Z]+ [\x21-\x7e\x80-\xff]+ HTTP/1\.[01]\r\n")


class Refusal(Exception):
    """A request answered with an error status, after which the connection closes; the
    answer to a `bodiless` one (a HEAD request) has no body."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status
        self.bodiless = False


@dataclass(frozen=True, slots=True)
class RequestHead:
    """What the front reads of a request head: field names lower-cased, values without the
    whitespace around them, in the order sent."""

    method: bytes
    target: bytes
    fields: tuple[tuple[bytes, bytes], ...]
    #: Each field's value; None for a field given more than once.
    once: Mapping[bytes, bytes | None]
    #: HTTP/1.1 without `Connection: close`: the connection may carry the next request.
    keep_alive: bool
    #: HTTP/1.1 (HTTP/1.0 knows no `Expect: 100-continue`).
    version_11: bool

    def single(self, name: bytes) -> bytes | None:
        """The value of field `name` (lower case) given exactly once; None when missing or
        repeated."""
        return self.once.get(name)

    def expects_continue(self) -> bool:
        """Whether the client waits for `100 Continue` before it sends the body."""
        if not self.version_11 or b"expect" not in self.once:
            return False
        tokens = b",".join(value for key, value in self.fields if key == b"expect")
        return b"100-continue" in (token.strip().lower() for token in tokens.split(b","))


class _Collected:
    """The llhttp callbacks: the target, the fields, whether the head ended."""

    __slots__ = ("complete", "fields", "once", "target")

    def __init__(self) -> None:
        self.target = b""
        self.fields: list[tuple[bytes, bytes]] = []
        self.once: dict[bytes, bytes | None] = {}
        self.complete = False

    def on_url(self, url: bytes) -> None:
        self.target += url

    def on_header(self, name: bytes, value: bytes) -> None:
        name, value = name.lower(), value.strip(b" \t")
        self.fields.append((name, value))
        self.once[name] = value if name not in self.once else None

    def on_headers_complete(self) -> None:
        self.complete = True


def parse_head(data: bytes) -> RequestHead:
    """The head in `data` (a request head up to and with its blank line); raises `Refusal`
    (400) for one that is not strict HTTP/1.x."""
    if not _REQUEST_LINE.match(data):
        raise Refusal(400, "malformed request line")
    collected = _Collected()
    parser = httptools.HttpRequestParser(collected)
    parser.set_dangerous_leniencies(lenient_chunked_length=True, lenient_transfer_encoding=True)
    try:
        parser.feed_data(data)
    except httptools.HttpParserUpgrade:
        pass  # CONNECT, or an Upgrade asked for: answered (or refused) as any request
    except httptools.HttpParserError as exc:
        raise Refusal(400, f"malformed request head: {exc}") from None
    if not collected.complete:
        raise Refusal(400, "malformed request head")
    version_11 = parser.get_http_version() == "1.1"
    return RequestHead(
        method=parser.get_method(),
        target=collected.target,
        fields=tuple(collected.fields),
        once=collected.once,
        keep_alive=version_11 and parser.should_keep_alive(),
        version_11=version_11,
    )


__all__ = ["Refusal", "RequestHead", "parse_head"]
