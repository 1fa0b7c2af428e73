"""`type: http` handlers: the envelope as a JSON request body.

`method` defaults to POST. A 2xx response's body is the unified output (empty = no effect);
a non-2xx status, a network error or a timeout (default 30 s) is logged and the run goes on.
HTTP never blocks by status code, only through the JSON.

`GET` sends no body (and no Content-Type): the real project always attached the body, which
Node's fetch rejects on GET, so a GET hook there could never succeed. A GET hook therefore
does not see the envelope; it suits endpoints that answer the same for every call (a kill
switch, a maintenance window). The shared transport's `post_json` always sends a body, so GET
goes through :func:`get_json` here, behind the same destination guard.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

import httpx

from hookwright.dialects.openharness.binding import HookBinding
from hookwright.dialects.openharness.reply import Failure, Output, Reply
from hookwright.services import Services
from hookwright.transports.http import (
    MAX_BODY,
    HttpOutcome,
    check_destination,
    clean_header_value,
    post_json,
)

_SNIPPET = 200


async def get_json(url: str, *, headers: Mapping[str, str], timeout: float) -> HttpOutcome:
    """A body-less GET with `post_json`'s guard and limits (no redirects, no env proxies)."""
    started = time.monotonic()
    clean = {clean_header_value(k): clean_header_value(v) for k, v in headers.items()}
    try:
        async with asyncio.timeout(timeout):
            refused = await asyncio.to_thread(check_destination, url)
            if refused is not None:
                return HttpOutcome(None, "", f"destination refused: {refused}", False)
            async with httpx.AsyncClient(
                follow_redirects=False, trust_env=False, timeout=None
            ) as client:
                response = await client.get(url, headers=clean)
    except TimeoutError:
        return HttpOutcome(None, "", f"timed out after {timeout:g}s", True)
    except httpx.HTTPError as exc:
        return HttpOutcome(None, "", f"request failed: {type(exc).__name__}: {exc}", False)
    body = response.content
    return HttpOutcome(
        status=response.status_code,
        text=body[:MAX_BODY].decode(response.encoding or "utf-8", errors="replace"),
        error=None,
        timed_out=False,
        truncated=len(body) > MAX_BODY,
        duration_ms=(time.monotonic() - started) * 1000.0,
    )


class HttpTransport:
    __slots__ = ("headers", "method", "timeout", "url")

    def __init__(self, url: str, method: str, headers: dict[str, str], timeout: float) -> None:
        self.url = url
        self.method = method
        self.headers = headers
        self.timeout = timeout

    async def __call__(
        self, envelope: dict[str, Any], binding: HookBinding, services: Services
    ) -> Reply:
        if self.method == "GET":
            outcome = await get_json(self.url, headers=self.headers, timeout=self.timeout)
        else:
            outcome = await post_json(
                self.url, envelope, method=self.method, headers=self.headers, timeout=self.timeout
            )
        if outcome.timed_out:
            return Failure(f"HTTP hook timed out after {self.timeout:g}s", timed_out=True)
        if outcome.error is not None:
            return Failure(f"HTTP hook {outcome.error}")
        if not outcome.ok:
            snippet = outcome.text.strip()[:_SNIPPET]
            detail = f": {snippet}" if snippet else ""
            return Failure(f"HTTP hook returned status {outcome.status}{detail}")
        if outcome.truncated:
            return Failure("HTTP hook response body is too large")
        return Output(outcome.text, empty_ok=True)
