"""A PicoClaw hook whose call fails, through `hooks test --explain`: the failure is said once,
on the hook's result line (no log line repeating it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_hookwright

#: Answers every request with a line that is not JSON: each call times out.
CHATTY = """import sys
for line in sys.stdin:
    print("hello there", flush=True)
"""

TIMED_OUT = (
    "chatty",
    CHATTY,
    {"timeout_ms": 500},
    "  before_tool (PreToolUse) chatty (PicoClaw, .picoclaw/config.json): timeout — ",
    "timed out after",
)
#: No script at the path the command names: the process exits before it answers, and the
#: failure names the path its `dir` resolves to and the fix.
CANNOT_START = (
    "gone",
    None,
    {},
    "/proj/.picoclaw/gone.py is not there; fix in .picoclaw/config.json hooks.processes.gone: "
    'create it, or correct "dir" or the path in command\n',
    "hook.hello failed: process exited with code 2; ",
)


@pytest.mark.parametrize(
    ("name", "script", "fields", "line", "once"),
    [TIMED_OUT, CANNOT_START],
    ids=["a timed-out call", "a process that cannot start"],
)
def test_a_failed_call_is_said_once_on_the_hook_line(
    tmp_path: Path,
    isolated_home: Path,
    name: str,
    script: str | None,
    fields: dict[str, Any],
    line: str,
    once: str,
) -> None:
    project = tmp_path / "proj"
    (project / ".picoclaw").mkdir(parents=True)
    if script is not None:
        (project / ".picoclaw" / f"{name}.py").write_text(script)
    process = {"enabled": True, "command": ["python3", f".picoclaw/{name}.py"], "dir": ".",
               "intercept": ["before_tool"], **fields}  # fmt: skip
    config = {"hooks": {"enabled": True, "processes": {name: process}}}
    (project / ".picoclaw" / "config.json").write_text(json.dumps(config))
    stdin = json.dumps({"tool": "Bash", "arguments": {"command": "ls"}})
    proc = run_hookwright("hooks", "test", "before_tool", "--input", "-", "-p", str(project),
                          "--explain", stdin=stdin, home=isolated_home)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert line in proc.stderr, proc.stderr
    assert proc.stderr.count(once) == 1, proc.stderr
