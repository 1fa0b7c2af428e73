"""The httpx side of `transports.http`: a client pinned to a checked destination.

Imported on the first request, so loading hooks (and starting the CLI) does not pay for httpx.
"""

from __future__ import annotations

import functools
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

from hookwright.transports.http import Destination, HttpOutcome, _failure


class _PinnedBackend(httpcore.AsyncNetworkBackend):
    """Opens every TCP connection to the checked addresses of one destination, in order,
    whatever host httpcore names (one client per request, redirects never followed: the
    only host is the checked one)."""

    def __init__(self, destination: Destination) -> None:
        self._destination = destination
        self._backend = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        failure: httpcore.ConnectError | None = None
        for address in self._destination.addresses:
            try:
                return await self._backend.connect_tcp(
                    str(address),
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except httpcore.ConnectError as exc:
                failure = exc
        raise failure or httpcore.ConnectError(f"no checked address for {host}")

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("hook requests never use Unix sockets")

    async def sleep(self, seconds: float) -> None:
        await self._backend.sleep(seconds)


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    return httpx.create_ssl_context(trust_env=False)


class PinnedTransport(httpx.AsyncHTTPTransport):
    """httpx's transport, connecting only to a checked destination's addresses.

    httpcore opens TLS with the URL's host as ``server_hostname``, so SNI and certificate
    verification still name the original host; the Host header comes from the URL too. The
    connection pool is swapped for one with a pinned network backend (httpx's transport takes
    no backend of its own)."""

    def __init__(self, destination: Destination) -> None:
        super().__init__(verify=_ssl_context(), trust_env=False)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=_ssl_context(), network_backend=_PinnedBackend(destination)
        )


async def send(
    url: str,
    method: str,
    payload: bytes | None,
    headers: dict[str, str],
    max_body: int,
    destination: Destination,
) -> HttpOutcome:
    try:
        async with (
            httpx.AsyncClient(
                transport=PinnedTransport(destination),
                follow_redirects=False,
                trust_env=False,
                timeout=None,
            ) as client,
            client.stream(method, url, content=payload, headers=headers) as response,
        ):
            chunks: list[bytes] = []
            size = 0
            truncated = False
            async for chunk in response.aiter_bytes():
                if len(chunk) > max_body - size:
                    truncated = True
                    break
                chunks.append(chunk)
                size += len(chunk)
            return HttpOutcome(
                status=response.status_code,
                text=b"".join(chunks).decode(response.encoding or "utf-8", errors="replace"),
                error=f"response body exceeds {max_body} bytes" if truncated else None,
                timed_out=False,
                headers=dict(response.headers.items()),
                truncated=truncated,
            )
    except httpx.HTTPError as exc:
        return _failure(f"request failed: {type(exc).__name__}: {exc}")
    except (ValueError, LookupError) as exc:
        return _failure(f"invalid request: {exc}")
