"""`hookwright serve` on a folder not trusted tells the page once per folder, as `run` tells the
terminal: one warning notice with the count of hooks held back, which, and the command that
trusts the folder; through the real command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from websockets.sync.client import connect
from websockets.typing import Origin

from .serve_process import WAIT, ServeProcess

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo"


def _notices(server: ServeProcess) -> list[str]:
    with connect(server.ws_url, origin=Origin(server.origin), open_timeout=WAIT) as ws:
        ws.send(json.dumps({"type": "chat", "history": [], "message": "hi"}))
        frames: list[dict[str, Any]] = []
        while not frames or frames[-1]["type"] not in ("done", "error"):
            frames.append(json.loads(ws.recv(timeout=WAIT)))
    return [frame["text"] for frame in frames if frame["type"] == "notice"]


def test_serve_says_an_untrusted_folder_once_with_the_count_and_the_trust_command(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    shutil.copytree(DEMO, project, ignore=shutil.ignore_patterns("skills"))
    script = tmp_path / "model.json"
    script.write_text(json.dumps({"model": "s", "turns": [{"content": "ok"}]}))
    server = ServeProcess(project, isolated_home, "--model", f"scripted:{script}")
    try:
        notices = _notices(server)
    finally:
        server.stop()
    held_back = [text for text in notices if "not run" in text]
    assert held_back == [
        f"warning: {project}: 5 hooks not run: untrusted; trust the folder with: hookwright "
        f"trust {project}, or run again with --trust (no_destructive_rm.py (Claude Code), "
        "redact-secrets (PicoClaw), force-dry-run (Python), project-facts (Python), and 1 more)"
    ], notices
