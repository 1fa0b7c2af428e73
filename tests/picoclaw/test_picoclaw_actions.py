"""PicoClaw's `write_file` and `exec` meet a project's `FileWrite(...)` rule through the real
`hookwright picoclaw-process`: the PicoClaw side of the protocol is hookwright's PicoClaw
dialect, as in test_picoclaw_process.py; the rule's hook is a Claude Code command hook."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from picoclaw_support import Pico, before_tool

from hookwright.config.trust import TrustStore
from hookwright.core.results import Decision
from hookwright.dialects.picoclaw import registered_processes, start_processes

DENY = """\
import json, sys
json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
    "permissionDecision": "deny", "permissionDecisionReason": "guarded folder"}}))
"""


def guarded_project(root: Path, etc: Path) -> Path:
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "deny.py").write_text(DENY)
    hook = {
        "type": "command",
        "if": f"FileWrite({etc}/**)",
        "command": f"{sys.executable} .claude/deny.py",
    }
    settings = {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [hook]}]}}
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    return root


@pytest.mark.parametrize("protocol", ["seed", "current"])
async def test_file_write_rule_denies_write_file_and_exec(
    pico: Pico, tmp_path: Path, protocol: str
) -> None:
    etc = tmp_path / "etc"
    project = guarded_project(tmp_path / "guarded", etc)
    TrustStore(pico.home).trust(project)
    command = [sys.executable, "-m", "hookwright", "picoclaw-process", "--project", str(project)]
    entry = {
        "command": command,
        "env": {"HOOKWRIGHT_AUDIT_LOG": str(tmp_path / "audit")},
        "intercept": ["before_tool"],
        "timeout_ms": 60_000,
    }
    pico.load({"protocol": protocol, "processes": {"hookwright": entry}})
    for process in registered_processes(pico.engine):
        process.rpc.hello_timeout = 60.0
    assert await start_processes(pico.engine) == [None]

    for tool, arguments in (
        ("write_file", {"path": f"{etc}/x", "content": "hacked"}),
        ("edit_file", {"path": f"{etc}/x", "old_text": "a", "new_text": "b"}),
        ("exec", {"command": f"echo hacked | tee {etc}/x"}),
        ("exec", {"command": "tee x", "working_dir": str(etc)}),
    ):
        verdict = await pico.engine.dispatch(before_tool(tool, **arguments))
        assert verdict.decision is Decision.deny, (tool, arguments)
        assert verdict.reason == "Tool execution denied by hook: guarded folder"
    allowed = await pico.engine.dispatch(
        before_tool("write_file", path=str(tmp_path / "other"), content="ok")
    )
    assert allowed.decision is not Decision.deny
