"""`hookwright replay` over audit records alone: the recorded decision is the strictest of the
hooks of one dispatch, PermissionRequest dispatches replay too, and with no SOURCES only the
project's records are read from the audit file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_runner import run_hookwright

GUARDS = """
from hookwright import deny


def deny_push(inp):
    if inp.tool_input.get("command", "").startswith("git push"):
        return deny("no push")
    return None


def deny_requests(inp):
    return deny("ask a person")
"""
HOOKS = """hooks:
  - name: no-push
    event: PreToolUse
    matcher: Bash
    call: guards:deny_push
  - name: no-permission
    event: PermissionRequest
    call: guards:deny_requests
"""


def candidate(root: Path) -> Path:
    folder = root / "candidate"
    (folder / ".hookwright").mkdir(parents=True)
    (folder / ".hookwright" / "hooks.yaml").write_text(HOOKS)
    (folder / ".hookwright" / "guards.py").write_text(GUARDS)
    return folder


def record(session: str, call: str, command: str, **fields: Any) -> dict[str, Any]:
    return {
        "ts": "2026-11-20T10:00:00.000000Z",
        "event": "PreToolUse",
        "hook": "old-hook",
        "decision": None,
        "session_id": session,
        "tool_name": "Bash",
        "tool_use_id": call,
        "tool_input": {"command": command},
        **fields,
    }


def write_audit(path: Path, project: Path, other: Path) -> None:
    records = [
        # one dispatch, two hooks: deny and allow merge to deny
        record("s1", "call_1", "git push", decision="deny", hook="old-push-guard"),
        record("s1", "call_1", "git push", decision="allow", hook="allower"),
        # a permission request a hook allowed: the candidate denies it
        record("s1", "call_2", "make", event="PermissionRequest", decision="allow", hook="ok"),
        # no hook decided; the candidate does not either
        record("s1", "call_3", "ls"),
        # another project's call: left out when no SOURCES are named
        record("s2", "call_1", "git push origin", project=str(other)),
        # a record `hooks test` wrote: never replayed
        record("s3", "call_1", "git push", test=True),
    ]
    for item in records[:4]:
        item["project"] = str(project)
    path.write_text("".join(json.dumps(item) + "\n" for item in records))


def test_audit_records_replay_per_dispatch(tmp_path: Path, isolated_home: Path) -> None:
    project, other = tmp_path / "project", tmp_path / "other"
    project.mkdir()
    audit = tmp_path / "audit.jsonl"
    write_audit(audit, project, other)
    folder = candidate(tmp_path)
    args = ("replay", "-p", str(project), "--policy", str(folder), "--trust", "--json")
    env = {"HOOKWRIGHT_AUDIT_LOG": str(audit)}
    done = run_hookwright(*args, home=isolated_home, env=env)
    assert done.returncode == 1, done.stderr
    document = json.loads(done.stdout)
    assert (document["replayed"], document["sessions"]) == (3, 1)
    [changed] = document["changed"]
    assert (changed["event"], changed["tool_name"], changed["input"]) == (
        "PermissionRequest",
        "Bash",
        "make",
    )
    assert (changed["old"], changed["new"], changed["hooks"]) == (
        "allow",
        "deny",
        ["no-permission"],
    )
    named = run_hookwright(*args, str(audit), home=isolated_home, env=env)
    document = json.loads(named.stdout)
    assert (document["replayed"], document["sessions"]) == (4, 2)
    other_call = next(c for c in document["changed"] if c["session_id"] == "s2")
    assert (other_call["old"], other_call["new"]) == ("none", "deny")
    assert other_call["where"] == f"{audit}:5"
