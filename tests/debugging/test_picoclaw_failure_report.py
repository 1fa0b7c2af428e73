"""A PicoClaw hook whose call fails, through `hooks test --explain`: the failure is said once,
on the hook's result line (no log line repeating it)."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_hookwright

#: Answers every request with a line that is not JSON: each call times out.
CHATTY = """import sys
for line in sys.stdin:
    print("hello there", flush=True)
"""


def test_a_timed_out_call_is_said_once(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "proj"
    (project / ".picoclaw").mkdir(parents=True)
    (project / ".picoclaw" / "chatty.py").write_text(CHATTY)
    process = {"enabled": True, "command": ["python3", ".picoclaw/chatty.py"], "dir": ".",
               "intercept": ["before_tool"], "timeout_ms": 500}  # fmt: skip
    config = {"hooks": {"enabled": True, "processes": {"chatty": process}}}
    (project / ".picoclaw" / "config.json").write_text(json.dumps(config))
    stdin = json.dumps({"tool": "Bash", "arguments": {"command": "ls"}})
    proc = run_hookwright("hooks", "test", "before_tool", "--input", "-", "-p", str(project),
                          "--explain", stdin=stdin, home=isolated_home)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    line = "  before_tool (PreToolUse) chatty (PicoClaw, .picoclaw/config.json): timeout — "
    assert line in proc.stderr, proc.stderr
    assert proc.stderr.count("timed out after") == 1, proc.stderr


def test_a_process_that_cannot_start_names_the_hook_once(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".picoclaw").mkdir(parents=True)
    process = {"enabled": True, "command": ["python3", ".picoclaw/gone.py"], "dir": ".",
               "intercept": ["before_tool"]}  # fmt: skip
    config = {"hooks": {"enabled": True, "processes": {"gone": process}}}
    (project / ".picoclaw" / "config.json").write_text(json.dumps(config))
    stdin = json.dumps({"tool": "Bash", "arguments": {"command": "ls"}})
    proc = run_hookwright("hooks", "test", "before_tool", "--input", "-", "-p", str(project),
                          "--explain", stdin=stdin, home=isolated_home)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    said = "error — hook gone: hook.hello failed: process exited with code 2\n"
    assert said in proc.stderr, proc.stderr
