"""A person's answer to a permission prompt is audited with where it was given: here the
terminal of an interactive `hookwright run` in a real pseudo-terminal (the page and an
adapter's callback have their own tests beside `hookwright serve` and the adapters)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from terminal import Terminal

SCRIPT = (
    "turns:\n"
    "  - tool_calls: [{name: Bash, arguments: {command: 'echo made > out.txt'}}]\n"
    "  - content: all done\n"
)


def permission_records(audit: Path, count: int) -> list[dict[str, Any]]:
    """The audit's Permission records, once `count` of them are written (the audit writes
    from a thread of its own; the process has exited, so this waits only for the file)."""
    deadline = time.monotonic() + 10
    while True:
        lines = audit.read_text().splitlines() if audit.exists() else []
        records = [json.loads(line) for line in lines]
        found = [record for record in records if record["event"] == "Permission"]
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def test_an_answer_in_the_terminal_is_audited_as_given_there(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "repo"
    (project / ".hookwright").mkdir(parents=True)
    (project / ".hookwright" / "script.yaml").write_text(SCRIPT)
    audit = isolated_home / ".hookwright" / "audit.jsonl"
    for answer in ("y", "n"):
        args = ["run", "make out.txt", "--project", str(project), "--trust"]
        term = Terminal(args, isolated_home, tmp_path)
        term.expect("Allow?")
        term.send(answer)
        term.expect("all done")
        assert term.close() == 0
    allowed, denied = permission_records(audit, 2)
    assert (allowed["decision"], denied["decision"]) == ("allow", "deny")
    for record, verb in ((allowed, "allowed"), (denied, "denied")):
        assert record["reason"] == f"{verb} by user"
        assert record["tool_input"] == {"command": "echo made > out.txt"}
        assert record["permission"] == {
            "by": "person",
            "name": "user",
            "mode": "default",
            "file": None,
            "channel": "terminal",
        }
    assert (project / "out.txt").read_text() == "made\n"
