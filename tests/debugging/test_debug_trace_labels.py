"""The `--debug` trace names each hook's system as every other view does (Claude Code, Python,
OpenHarness, ...), never a dialect id; through the real command."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_hookwright

OPENHARNESS_HOOK = """
name: oh-quiet
events: [before_tool_dispatch]
handler:
  type: command
  command: python3 -c "import sys; sys.stdin.read()"
"""


def _project(project: Path) -> Path:
    (project / ".hookwright").mkdir(parents=True)
    (project / ".hookwright" / "guards.py").write_text("def quiet(inp):\n    return None\n")
    (project / ".hookwright" / "hooks.yaml").write_text(
        "hooks:\n  - {name: py-quiet, event: PreToolUse, call: 'guards:quiet'}\n"
    )
    command = {"type": "command", "command": "true"}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [command]}]}}
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    (project / ".openharness" / "hooks").mkdir(parents=True)
    (project / ".openharness" / "hooks" / "quiet.yaml").write_text(OPENHARNESS_HOOK)
    return project


def test_the_trace_names_every_system_as_users_do(tmp_path: Path, isolated_home: Path) -> None:
    project = _project(tmp_path / "proj")
    stdin = json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}})
    proc = run_hookwright("--debug", "hooks", "test", "PreToolUse", "--input", "-",
                          "-p", str(project), stdin=stdin, home=isolated_home)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    trace = [line for line in proc.stderr.splitlines() if line.startswith("[hookwright debug")]
    oh_event = "before_tool_dispatch (PreToolUse)"  # OpenHarness's own name first
    for name, system, event in (("py-quiet", "Python", "PreToolUse"),
                                ("command:true", "Claude Code", "PreToolUse"),
                                ("oh-quiet", "OpenHarness", oh_event)):  # fmt: skip
        assert any(f"match:   run  {name} ({system}, project):" in line for line in trace), trace
        assert any(f"result: {event} {name} ({system}, project): ok" in line
                   for line in trace), trace  # fmt: skip
    ids = ("(native,", "(claude_code,", "(openharness,", "no effect")
    assert not [line for line in trace if any(word in line for word in ids)], trace
