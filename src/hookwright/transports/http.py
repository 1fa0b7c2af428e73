"""One JSON request to a hook endpoint, with an SSRF guard and a pinned connection.

The guard (:func:`check_url`) refuses non-http(s) URLs and any host that resolves to an
address a hook may not reach (:func:`blocked_reason`): private, shared (CGNAT), link-local,
unspecified, multicast, reserved, documentation, benchmarking and every other special-purpose
range (the networks named in `BLOCKED_NETWORKS`, and whatever else `ipaddress` does not call
globally reachable), including IPv4 addresses embedded in IPv6 (``::a.b.c.d``, NAT64
``64:ff9b::/96``, 6to4 ``2002::/16``). Loopback (``127.0.0.0/8``, ``::1`` and its
``::ffff:`` mapped form) is allowed so a hook server on the same machine works; loopback
embedded in a translated form is not (it is the translator's loopback, not this machine's).

The connection then goes to the addresses that were checked, never to a second DNS answer
(`PinnedTransport` in `http_client`, imported on the first request: httpx is slow to
import): the URL's host still names the Host header, TLS SNI and the
certificate check. Resolution runs on a small thread pool of its own, so neither the event
loop's default executor nor the hook worker pool can starve it. Proxies from the environment
are ignored (``trust_env=False``) so the guard always applies, and redirects are never
followed: a 3xx is returned as is.

Bodies are streamed for every method and reading stops at `max_body` bytes, with an error.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from hookwright.monitor import debug
from hookwright.transports.base import BaseTransport, Envelope, Failure, Output, Reply
from hookwright.transports.workers import WorkerPool

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: Resolves a host name to the addresses a connection may use (port for the lookup).
Resolver = Callable[[str, int], Awaitable[list[IPAddress]]]

#: Networks a hook request may never reach, named in refusals (loopback is deliberately
#: absent). Any other address `ipaddress` does not call globally reachable is refused too.
BLOCKED_NETWORKS: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = tuple(
    ipaddress.ip_network(net)
    for net in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.88.99.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",
        "240.0.0.0/4",
        "::/128",
        "64:ff9b:1::/48",
        "100::/64",
        "2001::/23",
        "2001:db8::/32",
        "3fff::/20",
        "fc00::/7",
        "fe80::/10",
        "fec0::/10",
        "ff00::/8",
    )
)

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")

#: Response bodies longer than this are refused (reading stops there).
MAX_BODY = 10_000_000

_DNS_POOL = WorkerPool(4, name="hookwright-dns", idle_seconds=10.0)


class DestinationRefused(ValueError):
    """A URL the guard refuses; the message says why."""


@dataclass(frozen=True, slots=True)
class Destination:
    """A checked URL: its host and port and the addresses a connection may go to."""

    host: str
    port: int
    addresses: tuple[IPAddress, ...]


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
    if isinstance(address, ipaddress.IPv6Address):
        mapped = address.ipv4_mapped
        if mapped is not None:
            reason = blocked_reason(mapped)
            return None if reason is None else f"{address} maps {reason}"
        if address.is_loopback:
            return None
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            form, ipv4 = embedded
            reason = "it is loopback" if ipv4.is_loopback else _special_purpose(ipv4)
            return None if reason is None else f"address {address} embeds {ipv4} ({form}): {reason}"
    elif address.is_loopback:
        return None
    return _special_purpose(address)


def _embedded_ipv4(address: ipaddress.IPv6Address) -> tuple[str, ipaddress.IPv4Address] | None:
    if address.sixtofour is not None:
        return "6to4", address.sixtofour
    low = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address in _NAT64:
        return "NAT64", low
    if address in _IPV4_COMPATIBLE:
        return "IPv4-compatible", low
    return None


def _special_purpose(address: IPAddress) -> str | None:
    for network in BLOCKED_NETWORKS:
        if address.version == network.version and address in network:
            return f"address {address} is in blocked network {network}"
    if not address.is_global or address.is_reserved or address.is_multicast:
        return f"address {address} is a special-purpose address, not globally reachable"
    return None


def _getaddrinfo(host: str, port: int) -> list[IPAddress]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses: list[IPAddress] = []
    for info in infos:
        raw = str(info[4][0]).split("%", 1)[0]
        address = ipaddress.ip_address(raw)
        if address not in addresses:
            addresses.append(address)
    return addresses


async def resolve_host(host: str, port: int) -> list[IPAddress]:
    """The system resolver, on the guard's own small thread pool."""
    return await _DNS_POOL.run(_getaddrinfo, host, port, name=f"resolve {host}")


def _parse(url: str) -> tuple[str, int, IPAddress | None]:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise DestinationRefused(f"invalid URL {url!r}: {exc}") from exc
    if parts.scheme not in ("http", "https"):
        raise DestinationRefused(
            f"scheme {parts.scheme or '(none)'!r} is not allowed, only http and https"
        )
    host = parts.hostname
    if not host:
        raise DestinationRefused(f"URL {url!r} has no host")
    try:
        literal: IPAddress | None = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        literal = None
    return host, port or (443 if parts.scheme == "https" else 80), literal


def _judge(host: str, port: int, addresses: Iterable[IPAddress], literal: bool) -> Destination:
    checked = tuple(addresses)
    if not checked:
        raise DestinationRefused(f"cannot resolve {host}: no address")
    for address in checked:
        reason = blocked_reason(address)
        if reason is not None:
            raise DestinationRefused(reason if literal else f"{host}: {reason}")
    return Destination(host, port, checked)


async def check_url(url: str, resolver: Resolver | None = None) -> Destination:
    """The checked destination of `url`; raises `DestinationRefused`. Every address the host
    resolves to must be allowed. `resolver` defaults to :func:`resolve_host`."""
    host, port, literal = _parse(url)
    if literal is not None:
        return _judge(host, port, [literal], True)
    try:
        addresses = await (resolver or resolve_host)(host, port)
    except (OSError, UnicodeError) as exc:
        raise DestinationRefused(f"cannot resolve {host}: {exc}") from exc
    return _judge(host, port, addresses, False)


def check_destination(url: str) -> str | None:
    """The reason a request to `url` is refused, or None when it is allowed (a blocking DNS
    lookup on the calling thread; requests use :func:`check_url`)."""
    try:
        host, port, literal = _parse(url)
        if literal is not None:
            _judge(host, port, [literal], True)
            return None
        try:
            addresses = _getaddrinfo(host, port)
        except (OSError, UnicodeError) as exc:
            return f"cannot resolve {host}: {exc}"
        _judge(host, port, addresses, False)
    except DestinationRefused as exc:
        return str(exc)
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
    resolver: Resolver | None = None,
) -> HttpOutcome:
    """Send `body` as JSON (bytes are sent as they are: JSON the caller encoded) and return
    the response; never raises for network trouble.

    `timeout` bounds the whole exchange (guard, connect, send, read).
    """
    try:
        payload = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
    except (TypeError, ValueError) as exc:
        return _failure(f"request body is not JSON-serializable: {exc}")
    request_headers = {"Content-Type": "application/json", **(headers or {})}
    return await _timed(url, method, payload, request_headers, timeout, max_body, resolver)


async def get(
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    timeout: float | None = None,
    max_body: int = MAX_BODY,
    resolver: Resolver | None = None,
) -> HttpOutcome:
    """A body-less GET (no Content-Type) with `post_json`'s guard, pinning, timeout and cap."""
    return await _timed(url, "GET", None, headers or {}, timeout, max_body, resolver)


def _failure(error: str, *, timed_out: bool = False) -> HttpOutcome:
    return HttpOutcome(status=None, text="", error=error, timed_out=timed_out)


async def _timed(
    url: str,
    method: str,
    payload: bytes | None,
    headers: Mapping[str, str],
    timeout: float | None,
    max_body: int,
    resolver: Resolver | None,
) -> HttpOutcome:
    started = time.monotonic()
    debug.trace("http", f"{method} {url}; body: {debug.short(payload) if payload else '(none)'}")
    clean = {"Accept-Encoding": "identity"}
    for name, value in headers.items():
        clean[clean_header_value(name)] = clean_header_value(value)
    try:
        async with asyncio.timeout(timeout):
            try:
                destination = await check_url(url, resolver)
            except DestinationRefused as exc:
                result = _failure(f"destination refused: {exc}")
            else:
                from hookwright.transports.http_client import send

                result = await send(url, method, payload, clean, max_body, destination)
    except TimeoutError:
        result = _failure(f"timed out after {timeout:g}s", timed_out=True)
    result.duration_ms = (time.monotonic() - started) * 1000.0
    if debug.state.on:
        what = f"status {result.status}" if result.error is None else result.error
        debug.trace("http", f"{method} {url}: {what}; body: {debug.short(result.text)}")
    return result


class HttpTransport(BaseTransport):
    """HTTP behind the transport interface: `envelope.method` (POST by default) to
    `envelope.url` with its headers, `body` (or `json`) as JSON; GET sends no body. Any status
    is `Output` (code = status); a refused destination, a network error or a timeout is a
    `Failure`."""

    def __init__(self, resolver: Resolver | None = None) -> None:
        self.resolver = resolver

    async def handle(self, envelope: Envelope) -> Reply:
        if envelope.url is None:
            return Failure("unstarted", "no URL")
        method = envelope.method or "POST"
        if method == "GET":
            outcome = await get(
                envelope.url,
                headers=envelope.headers,
                timeout=envelope.timeout,
                max_body=envelope.caps.max_output,
                resolver=self.resolver,
            )
        else:
            outcome = await post_json(
                envelope.url,
                envelope.body or envelope.json,
                method=method,
                headers=envelope.headers,
                timeout=envelope.timeout,
                max_body=envelope.caps.max_output,
                resolver=self.resolver,
            )
        duration = outcome.duration_ms
        if outcome.timed_out:
            return Failure("timeout", outcome.error or "timed out", duration_ms=duration)
        if outcome.error is not None:
            return Failure("error", outcome.error, code=outcome.status, duration_ms=duration)
        return Output(
            outcome.text,
            code=outcome.status,
            truncated=outcome.truncated,
            size=len(outcome.text),
            duration_ms=duration,
        )
