"""`type: http` handlers: the envelope as a JSON request body, through the HTTP transport.

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

from hookwright.dialects.openharness.codec import Answer, Failed, Reading
from hookwright.dialects.openharness.notices import timeout_fix
from hookwright.engine.services import Services
from hookwright.transports.base import Envelope, Failure, Output, Reply

_SNIPPET = 200
_ANSWER_2XX = "answer 2xx with the unified output as JSON (or an empty body)"


class HttpChannel:
    __slots__ = ("headers", "method", "timeout", "url")

    def __init__(self, url: str, method: str, headers: dict[str, str], timeout: float) -> None:
        self.url = url
        self.method = method
        self.headers = headers
        self.timeout = timeout

    def envelope(self, payload: dict[str, Any], services: Services) -> Envelope:
        return Envelope(
            json=payload,
            url=self.url,
            method=self.method,
            headers=self.headers,
            timeout=self.timeout,
        )

    def payload_of(self, sent: Envelope) -> dict[str, Any]:
        payload: dict[str, Any] = sent.json
        return payload

    def read(self, reply: Reply) -> Reading:
        if isinstance(reply, Failure) and reply.timed_out:
            message = f"HTTP hook timed out after {self.timeout:g}s"
            return Failed(message, timed_out=True, fix=timeout_fix(self.timeout))
        if not isinstance(reply, Output):
            return Failed(f"HTTP hook {reply.reason}", fix="check handler.url and its server")
        status = reply.code
        if status is None or not 200 <= status < 300:
            snippet = reply.text.strip()[:_SNIPPET]
            detail = f": {snippet}" if snippet else ""
            return Failed(f"HTTP hook returned status {status}{detail}", fix=_ANSWER_2XX)
        return Answer(reply.text, empty_ok=True)
