"""The HTTP transport against a real server on 127.0.0.1, and the SSRF guard."""

from __future__ import annotations

import ipaddress
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from bounds import GENEROUS_BOUND, SLOW
from hookwright.transports.http import (
    MAX_BODY,
    DestinationRefused,
    check_destination,
    check_url,
    clean_header_value,
    get,
    post_json,
)


@dataclass
class Seen:
    requests: list[dict[str, Any]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    streamed: int = 0


class _Server(ThreadingHTTPServer):
    daemon_threads = False
    block_on_close = True
    seen: Seen


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _reply(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        self.server.seen.requests.append(
            {
                "path": self.path,
                "headers": dict(self.headers.items()),
                "body": json.loads(body) if body else None,
            }
        )
        if self.path == "/json":
            reply = {"hookSpecificOutput": {"hookEventName": "PreToolUse"}, "echo": body.decode()}
            self._reply(200, json.dumps(reply).encode(), {"Content-Type": "application/json"})
        elif self.path == "/empty":
            self._reply(200, b"")
        elif self.path == "/error":
            self._reply(500, b"boom")
        elif self.path == "/redirect":
            self._reply(302, b"", {"Location": "/json"})
        elif self.path == "/slow":
            self.server.seen.release.wait(SLOW)
            self._reply(200, b"{}")
        elif self.path == "/endless":
            self._endless()
        else:
            self._reply(404, b"not found")

    def do_GET(self) -> None:
        self.server.seen.requests.append({"path": self.path, "headers": dict(self.headers.items())})
        if self.path == "/endless":
            self._endless()
        else:
            self._reply(200, b'{"ok": true}', {"Content-Type": "application/json"})

    def _endless(self) -> None:
        """Stream without a length until the client goes away (or a minute passes)."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        chunk = b"{" * 65536
        deadline = time.monotonic() + 60
        try:
            while time.monotonic() < deadline and not self.server.seen.release.is_set():
                self.wfile.write(chunk)
                self.server.seen.streamed += len(chunk)
        except OSError:
            pass


@pytest.fixture
def server() -> Iterator[tuple[str, Seen]]:
    httpd = _Server(("127.0.0.1", 0), _Handler)
    httpd.seen = Seen()
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", httpd.seen
    finally:
        httpd.seen.release.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(GENEROUS_BOUND)
        assert not thread.is_alive()


async def test_2xx_json(server: tuple[str, Seen]) -> None:
    base, seen = server
    outcome = await post_json(f"{base}/json", {"tool_name": "Bash"}, timeout=10)
    assert outcome.status == 200 and outcome.ok and outcome.error is None
    reply = json.loads(outcome.text)
    assert json.loads(reply["echo"]) == {"tool_name": "Bash"}
    assert seen.requests[0]["headers"]["Content-Type"] == "application/json"


async def test_empty_body(server: tuple[str, Seen]) -> None:
    base, _ = server
    outcome = await post_json(f"{base}/empty", {}, timeout=10)
    assert (outcome.status, outcome.text, outcome.error) == (200, "", None)


async def test_non_2xx_is_returned_not_raised(server: tuple[str, Seen]) -> None:
    base, _ = server
    outcome = await post_json(f"{base}/error", {}, timeout=10)
    assert (outcome.status, outcome.text, outcome.ok) == (500, "boom", False)


async def test_redirect_is_not_followed(server: tuple[str, Seen]) -> None:
    base, seen = server
    outcome = await post_json(f"{base}/redirect", {}, timeout=10)
    assert outcome.status == 302
    assert outcome.headers["location"] == "/json"
    assert [r["path"] for r in seen.requests] == ["/redirect"]


async def test_timeout(server: tuple[str, Seen]) -> None:
    base, _ = server
    started = time.monotonic()
    outcome = await post_json(f"{base}/slow", {}, timeout=0.3)
    assert outcome.timed_out and outcome.status is None
    assert outcome.error == "timed out after 0.3s"
    assert time.monotonic() - started < GENEROUS_BOUND


async def test_connection_refused() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    outcome = await post_json(f"http://127.0.0.1:{port}/", {}, timeout=10)
    assert outcome.status is None and not outcome.timed_out
    assert outcome.error is not None and outcome.error.startswith("request failed: ConnectError")


@pytest.mark.parametrize("url", ["http://10.0.0.1/hook", "https://192.168.1.1:8443/x"])
async def test_private_address_is_refused_before_connecting(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_client(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a client was created for a refused destination")

    monkeypatch.setattr(httpx.AsyncClient, "__init__", no_client)
    outcome = await post_json(url, {}, timeout=10)
    assert outcome.status is None
    assert outcome.error is not None and outcome.error.startswith("destination refused:")
    assert "blocked network" in outcome.error


async def test_header_values_are_stripped(server: tuple[str, Seen]) -> None:
    base, seen = server
    headers = {"X-Token": "abc\r\nX-Injected: 1\x00", "Authorization": "Bearer t"}
    outcome = await post_json(f"{base}/json", {}, headers=headers, timeout=10)
    assert outcome.status == 200
    received = seen.requests[0]["headers"]
    assert received["X-Token"] == "abcX-Injected: 1"
    assert "X-Injected" not in received
    assert received["Authorization"] == "Bearer t"


async def test_put_method(server: tuple[str, Seen]) -> None:
    base, _ = server
    outcome = await post_json(f"{base}/json", {}, method="PUT", timeout=10)
    assert outcome.status == 501


def test_clean_header_value() -> None:
    assert clean_header_value("a\rb\nc\0d") == "abcd"


@pytest.mark.parametrize(
    ("url", "refused"),
    [
        ("http://127.0.0.1:8080/x", False),
        ("http://127.9.9.9/x", False),
        ("http://[::1]:9/x", False),
        ("http://localhost:9/x", False),
        ("https://8.8.8.8/x", False),
        ("http://172.32.0.1/x", False),
        ("http://10.1.2.3/x", True),
        ("http://172.16.0.1/x", True),
        ("http://172.31.255.255/x", True),
        ("http://192.168.0.10/x", True),
        ("http://169.254.169.254/latest/meta-data", True),
        ("http://100.100.100.200/x", True),
        ("http://0.0.0.0:80/x", True),
        ("http://224.0.0.1/x", True),
        ("http://[fc00::1]/x", True),
        ("http://[fd12:3456::1]/x", True),
        ("http://[fe80::1]/x", True),
        ("http://[::]/x", True),
        ("http://[ff02::1]/x", True),
        ("http://[::ffff:10.0.0.1]/x", True),
        ("http://[::ffff:127.0.0.1]:9/x", False),
        ("http://[::169.254.169.254]/x", True),
        ("http://[::ffff:169.254.169.254]/x", True),
        ("http://[::ffff:a9fe:a9fe]/x", True),
        ("http://[::127.0.0.1]/x", True),
        ("http://[::8.8.8.8]/x", False),
        ("http://[64:ff9b::169.254.169.254]/x", True),
        ("http://[64:ff9b::a00:1]/x", True),
        ("http://[64:ff9b::7f00:1]/x", True),
        ("http://[64:ff9b::8.8.8.8]/x", False),
        ("http://[64:ff9b:1::1]/x", True),
        ("http://[2002:a9fe:a9fe::1]/x", True),
        ("http://[2002:c0a8:0101::]/x", True),
        ("http://[2002:7f00:1::]/x", True),
        ("http://[2002:808:808::1]/x", False),
        ("http://[2001:db8::1]/x", True),
        ("http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x", True),
        ("http://[100::1]/x", True),
        ("http://[fec0::1]/x", True),
        ("http://[3fff::1]/x", True),
        ("http://[2606:4700:4700::1111]/x", False),
        ("http://198.18.0.1/x", True),
        ("http://198.19.255.254/x", True),
        ("http://192.0.0.1/x", True),
        ("http://192.0.0.8/x", True),
        ("http://192.0.0.170/x", True),
        ("http://192.0.2.10/x", True),
        ("http://198.51.100.7/x", True),
        ("http://203.0.113.7/x", True),
        ("http://240.0.0.1/x", True),
        ("http://255.255.255.255/x", True),
        ("http://192.88.99.1/x", True),
        ("http://1.1.1.1/x", False),
        ("ftp://127.0.0.1/x", True),
        ("file:///etc/passwd", True),
        ("http:///nohost", True),
        ("http://127.0.0.1:99999/x", True),
    ],
)
def test_check_destination(url: str, refused: bool) -> None:
    reason = check_destination(url)
    assert (reason is not None) == refused, reason


@pytest.mark.parametrize(
    "url",
    [
        "http://[::169.254.169.254]/latest/meta-data",
        "http://[64:ff9b::a9fe:a9fe]/",
        "http://[2002:a9fe:a9fe::]/",
        "http://198.18.0.1/",
        "http://192.0.0.1/",
        "http://192.0.2.1/",
        "http://240.0.0.1/",
    ],
)
async def test_embedded_and_reserved_forms_are_refused_before_connecting(url: str) -> None:
    with pytest.raises(DestinationRefused):
        await check_url(url)
    outcome = await post_json(url, {}, timeout=10)
    assert outcome.status is None
    assert outcome.error is not None and outcome.error.startswith("destination refused:")


async def test_a_name_resolving_to_a_blocked_address_is_refused() -> None:
    async def resolver(host: str, port: int) -> list[Any]:
        return [ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("64:ff9b::a9fe:a9fe")]

    outcome = await get("http://hook.invalid/x", resolver=resolver, timeout=10)
    assert outcome.error is not None
    assert outcome.error.startswith("destination refused: hook.invalid: address 64:ff9b::a9fe:a9fe")


class FlippingResolver:
    """Answers loopback first and a private address on every later lookup (a rebinding DNS)."""

    def __init__(self) -> None:
        self.lookups: list[tuple[str, int]] = []

    async def __call__(self, host: str, port: int) -> list[Any]:
        self.lookups.append((host, port))
        answer = "127.0.0.1" if len(self.lookups) == 1 else "10.0.0.1"
        return [ipaddress.ip_address(answer)]


@pytest.mark.parametrize("method", ["POST", "GET"])
async def test_the_connection_goes_to_the_checked_address(
    server: tuple[str, Seen], monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    """`hook.invalid` never resolves in real DNS and the resolver flips after its first
    answer: only a connection pinned to the checked 127.0.0.1 reaches the server."""
    base, seen = server
    port = int(base.rsplit(":", 1)[1])
    resolver = FlippingResolver()
    monkeypatch.setattr("hookwright.transports.http.resolve_host", resolver)
    url = f"http://hook.invalid:{port}/json"
    if method == "GET":
        outcome = await get(url, timeout=10)
    else:
        outcome = await post_json(url, {"n": 1}, timeout=10)
    assert (outcome.status, outcome.error) == (200, None)
    assert resolver.lookups == [("hook.invalid", port)]
    [request] = seen.requests
    assert request["headers"]["Host"] == f"hook.invalid:{port}"


async def test_tls_names_the_original_host() -> None:
    """The pinned TLS connection sends the URL's host name as SNI (read from the ClientHello
    a plain TCP listener on 127.0.0.1 receives)."""
    received = bytearray()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.settimeout(10)
        port = listener.getsockname()[1]

        def accept() -> None:
            connection, _ = listener.accept()
            with connection:
                connection.settimeout(10)
                received.extend(connection.recv(16384))

        thread = threading.Thread(target=accept)
        thread.start()
        resolver = FlippingResolver()
        outcome = await post_json(
            f"https://hooks.example.test:{port}/x", {}, resolver=resolver, timeout=10
        )
        thread.join(10)
    assert not thread.is_alive()
    assert outcome.status is None and outcome.error is not None
    assert received[:1] == b"\x16"
    assert b"hooks.example.test" in received
    assert resolver.lookups == [("hooks.example.test", port)]


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_an_endless_body_stops_at_the_cap(server: tuple[str, Seen], method: str) -> None:
    base, seen = server
    started = time.monotonic()
    if method == "GET":
        outcome = await get(f"{base}/endless", timeout=60)
    else:
        outcome = await post_json(f"{base}/endless", {}, timeout=60)
    assert time.monotonic() - started < 30
    assert outcome.status == 200 and outcome.truncated
    assert outcome.error == f"response body exceeds {MAX_BODY} bytes"
    assert len(outcome.text) <= MAX_BODY
    seen.release.set()


async def test_a_small_cap_stops_early(server: tuple[str, Seen]) -> None:
    base, seen = server
    outcome = await get(f"{base}/endless", timeout=60, max_body=100_000)
    assert outcome.error == "response body exceeds 100000 bytes" and outcome.truncated
    assert len(outcome.text) <= 100_000
    seen.release.set()
