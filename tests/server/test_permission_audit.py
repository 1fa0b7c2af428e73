"""`hookwright serve`: a person's Allow on the page is audited as given on the page."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from hookwright.runtime.models.scripted import ScriptedModel

from .conftest import ServerFactory
from .test_server import call, client


def permission_records(audit: Path) -> list[dict[str, Any]]:
    """The audit's Permission records, waiting for the audit's writer thread to write one."""
    deadline = time.monotonic() + 10
    while True:
        lines = audit.read_text().splitlines() if audit.exists() else []
        found = [r for r in map(json.loads, lines) if r["event"] == "Permission"]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def test_an_allow_on_the_page_is_audited_as_given_there(
    serve: ServerFactory, project: Path, isolated_home: Path
) -> None:
    touch = call("Bash", command="touch made.txt")
    model = ScriptedModel.from_turns([{"tool_calls": [touch]}, {"content": "Made."}])
    server = serve(model=lambda: model, trust=True)
    with client(server) as ws:
        ws.send({"type": "chat", "history": [], "message": "make it", "permission_prompts": True})
        frame = ws.recv()
        while frame["type"] != "permission_request":
            frame = ws.recv()
        ws.send({"type": "permission", "id": frame["id"], "allow": True})
        assert ws.until_end()[-1]["type"] == "done"
    assert (project / "made.txt").exists()
    [record] = permission_records(isolated_home / ".hookwright" / "audit.jsonl")
    assert (record["decision"], record["reason"]) == ("allow", "allowed by user")
    assert record["tool_input"] == {"command": "touch made.txt"}
    assert record["permission"] == {
        "by": "person",
        "name": "user",
        "mode": "default",
        "file": None,
        "channel": "page",
    }
