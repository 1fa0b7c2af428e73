"""The endpoint every `http` hook of a conformance case posts to, on 127.0.0.1.

``POST /<label>`` does what `hook.py` does for a command hook: it appends the raw body (the
hook's input) and the label to the run's `hooks.jsonl`, then answers as the label's action in
the run's `actions.json` says: `stdout` is the body, `exit` the HTTP status (0 is 200), after
`delay` seconds. `serve(root)` points the server at one run's folder.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any


class HookServer:
    """Context manager; `base_url` + ``/<label>`` is a hook's URL."""

    def __init__(self) -> None:
        self.root: Path | None = None
        self._httpd = _Server(("127.0.0.1", 0), _Handler, self)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> HookServer:
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
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def serve(self, root: Path) -> None:
        self.root = root


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self, address: tuple[str, int], handler: type[_Handler], hooks: HookServer
    ) -> None:
        super().__init__(address, handler)
        self.hooks = hooks


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        root = self.server.hooks.root
        label = self.path.strip("/")
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if root is None:
            self._answer(404, b"")
            return
        record = {"label": label, "stdin": raw.decode("utf-8", "replace"), "cwd": ""}
        with (root / "hooks.jsonl").open("a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")
        action = json.loads((root / "actions.json").read_text()).get(label, {})
        time.sleep(float(action.get("delay", 0)))
        status = int(action.get("exit", 0)) or 200
        self._answer(status, str(action.get("stdout", "")).encode())

    def _answer(self, status: int, body: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            pass
