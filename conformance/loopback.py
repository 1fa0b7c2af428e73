"""The one life of a conformance suite's fake server: an HTTP server on 127.0.0.1, on a port
the system picks, answering from its own thread while the `with` block is open.

The fake model APIs (`fake_api`, `fake_responses`, `fake_gemini`) and the http hooks'
endpoint (`hook_server`) differ only in what they answer: each is a `LoopbackServer` given its
`LoopbackHandler` subclass. On exit the server stops accepting, closes its socket and (unless
`daemon_threads`) waits for the requests in flight, so a run leaves no thread and no port.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, ClassVar, Generic, Self, TypeVar

OwnerT = TypeVar("OwnerT", bound="LoopbackServer")


class LoopbackServer:
    """Context manager: serves `handler` on 127.0.0.1 while open; `origin` is its address."""

    #: True: leave requests in flight on exit (a hook endpoint whose caller may have gone).
    daemon_threads: ClassVar[bool] = False

    def __init__(self, handler: type[LoopbackHandler[Any]]) -> None:
        self._httpd = _HTTPServer(("127.0.0.1", 0), handler, self)
        self._httpd.daemon_threads = self.daemon_threads
        # Polled every 50 ms, not the standard 0.5 s: closing waits for the loop's next check.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:<port>``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"


class _HTTPServer(ThreadingHTTPServer):
    block_on_close = True

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[LoopbackHandler[Any]],
        owner: LoopbackServer,
    ) -> None:
        super().__init__(address, handler)
        self.owner = owner


class LoopbackHandler(BaseHTTPRequestHandler, Generic[OwnerT]):
    """One request to a `LoopbackServer`; `owner` is that server (the script, the records)."""

    server: _HTTPServer
    timeout = 30

    @property
    def owner(self) -> OwnerT:
        owner: OwnerT = self.server.owner  # type: ignore[assignment]
        return owner

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a suite's output is its report, not an access log."""

    def read_body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def read_json_object(self) -> dict[str, Any]:
        """The request body as a JSON object; {} for an empty, unparsable or non-object body."""
        raw = self.read_body()
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            return {}
        return body if isinstance(body, dict) else {}

    def send_bytes(self, status: int, data: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_json(self, status: int, payload: Any) -> None:
        self.send_bytes(status, json.dumps(payload).encode())
