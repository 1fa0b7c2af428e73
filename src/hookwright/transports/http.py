"""One JSON request to a hook endpoint, with an SSRF guard.

The guard (:func:`check_destination`) refuses non-http(s) URLs and any host that resolves to a
private, shared (CGNAT), link-local, unspecified or multicast address; loopback is allowed so
a hook server on the same machine works. It runs before any connection is opened.

Known limits, by design: the address is checked at resolution time and httpx resolves again
when connecting, so a DNS answer that changes between the two (rebinding) is not caught; and
proxies from the environment are ignored (``trust_env=False``) so the guard always applies.

Redirects are never followed: a 3xx is returned as is.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: Networks a hook request may never reach (loopback is deliberately absent).
BLOCKED_NETWORKS: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = tuple(
    ipaddress.ip_network(net)
    for net in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "224.0.0.0/4",
        "255.255.255.255/32",
        "::/128",
        "fc00::/7",
        "fe80::/10",
        "ff00::/8",
    )
)

#: Response bodies longer than this are cut (and `truncated` set).
MAX_BODY = 10_000_000


@dataclass(slots=True)
class HttpOutcome:
    status: int | None
    text: str
    error: str | None
    timed_out: bool
    headers: dict[str, str] = field(default_factory=dict)
    truncated: bool = False
    duration_ms: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def blocked_reason(address: IPAddress) -> str | None:
    """Why `address` may not be contacted, or None when it may."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return blocked_reason(address.ipv4_mapped)
    if address.is_loopback:
        return None
    for network in BLOCKED_NETWORKS:
        if address.version == network.version and address in network:
            return f"address {address} is in blocked network {network}"
    return None


def _resolve(host: str, port: int) -> list[IPAddress]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses: list[IPAddress] = []
    for info in infos:
        raw = str(info[4][0]).split("%", 1)[0]
        addresses.append(ipaddress.ip_address(raw))
    return addresses


def check_destination(url: str) -> str | None:
    """The reason a request to `url` is refused, or None when it is allowed.

    Resolves the host (a blocking DNS lookup); every resolved address must be allowed.
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"invalid URL {url!r}: {exc}"
    if parts.scheme not in ("http", "https"):
        return f"scheme {parts.scheme or '(none)'!r} is not allowed, only http and https"
    host = parts.hostname
    if not host:
        return f"URL {url!r} has no host"
    try:
        literal: IPAddress | None = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        literal = None
    if literal is not None:
        addresses = [literal]
    else:
        try:
            addresses = _resolve(host, port or (443 if parts.scheme == "https" else 80))
        except (OSError, UnicodeError) as exc:
            return f"cannot resolve {host}: {exc}"
    for address in addresses:
        reason = blocked_reason(address)
        if reason is not None:
            return f"{host}: {reason}" if literal is None else reason
    return None


def clean_header_value(value: str) -> str:
    """Strip CR, LF and NUL so a value can never split or end a header."""
    return value.replace("\r", "").replace("\n", "").replace("\0", "")


async def post_json(
    url: str,
    body: Any,
    *,
    method: str = "POST",
    headers: Mapping[str, str] | None = None,
    timeout: float | None = None,
    max_body: int = MAX_BODY,
) -> HttpOutcome:
    """Send `body` as JSON (bytes are sent as they are: JSON the caller encoded) and return
    the response; never raises for network trouble.

    `timeout` bounds the whole exchange (guard, connect, send, read).
    """
    started = time.monotonic()
    result = await _exchange(url, body, method, headers or {}, timeout, max_body)
    result.duration_ms = (time.monotonic() - started) * 1000.0
    return result


def _failure(error: str, *, timed_out: bool = False) -> HttpOutcome:
    return HttpOutcome(status=None, text="", error=error, timed_out=timed_out)


async def _exchange(
    url: str,
    body: Any,
    method: str,
    headers: Mapping[str, str],
    timeout: float | None,
    max_body: int,
) -> HttpOutcome:
    request_headers = {"Content-Type": "application/json"}
    for name, value in headers.items():
        request_headers[clean_header_value(name)] = clean_header_value(value)
    try:
        payload = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
    except (TypeError, ValueError) as exc:
        return _failure(f"request body is not JSON-serializable: {exc}")
    try:
        async with asyncio.timeout(timeout):
            refused = await asyncio.to_thread(check_destination, url)
            if refused is not None:
                return _failure(f"destination refused: {refused}")
            return await _send(url, method, payload, request_headers, max_body)
    except TimeoutError:
        return _failure(f"timed out after {timeout:g}s", timed_out=True)


async def _send(
    url: str, method: str, payload: bytes, headers: dict[str, str], max_body: int
) -> HttpOutcome:
    try:
        async with (
            httpx.AsyncClient(follow_redirects=False, trust_env=False, timeout=None) as client,
            client.stream(method, url, content=payload, headers=headers) as response,
        ):
            chunks: list[bytes] = []
            size = 0
            truncated = False
            async for chunk in response.aiter_bytes():
                room = max_body - size
                if len(chunk) > room:
                    chunks.append(chunk[:room])
                    truncated = True
                    break
                chunks.append(chunk)
                size += len(chunk)
            return HttpOutcome(
                status=response.status_code,
                text=b"".join(chunks).decode(response.encoding or "utf-8", errors="replace"),
                error=None,
                timed_out=False,
                headers=dict(response.headers.items()),
                truncated=truncated,
            )
    except httpx.HTTPError as exc:
        return _failure(f"request failed: {type(exc).__name__}: {exc}")
    except (ValueError, LookupError) as exc:
        return _failure(f"invalid request: {exc}")
