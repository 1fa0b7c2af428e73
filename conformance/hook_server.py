"""The endpoint every `http` hook of a conformance case posts to, on 127.0.0.1.

``POST /<label>`` does what `hook.py` does for a command hook: it appends the raw body (the
hook's input) and the label to the run's `hooks.jsonl`, then answers as the label's action in
the run's `actions.json` says: `stdout` is the body, `exit` the HTTP status (0 is 200), after
`delay` seconds. `serve(root)` points the server at one run's folder.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

from conformance.loopback import LoopbackHandler, LoopbackServer


class HookServer(LoopbackServer):
    """Context manager; `base_url` + ``/<label>`` is a hook's URL."""

    daemon_threads = True

    def __init__(self) -> None:
        self.root: Path | None = None
        super().__init__(_Handler)

    @property
    def base_url(self) -> str:
        return self.origin

    def serve(self, root: Path) -> None:
        self.root = root


class _Handler(LoopbackHandler[HookServer]):
    def do_POST(self) -> None:
        root = self.owner.root
        label = self.path.strip("/")
        raw = self.read_body()
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
        with contextlib.suppress(OSError):  # the hook's caller gave up waiting
            self.send_bytes(status, body)
