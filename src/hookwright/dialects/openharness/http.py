"""`type: http` handlers: the envelope as a JSON request body.

`method` defaults to POST. A 2xx response's body is the unified output (empty = no effect);
a non-2xx status, a network error or a timeout (default 30 s) is logged and the run goes on.
HTTP never blocks by status code, only through the JSON.

`GET` sends no body (and no Content-Type): the real project always attached the body, which
Node's fetch rejects on GET, so a GET hook there could never succeed. A GET hook therefore
does not see the envelope; it suits endpoints that answer the same for every call (a kill
switch, a maintenance window). Every method goes through the shared transport: the same
destination guard, and the body is streamed and cut off at the 10 MB cap with an error.
"""

from __future__ import annotations

from typing import Any

from hookwright.dialects.openharness.binding import HookBinding
from hookwright.dialects.openharness.reply import Failure, Output, Reply
from hookwright.engine.services import Services
from hookwright.transports.http import get, post_json

_SNIPPET = 200


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
            outcome = await get(self.url, headers=self.headers, timeout=self.timeout)
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
        return Output(outcome.text, empty_ok=True)
