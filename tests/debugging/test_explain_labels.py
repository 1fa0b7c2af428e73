"""`hooks test --explain` names each hook as the terminal's hook lines and the summary do: its
system and file, its event in its author's words, and "ran, no decision" for a hook that ran
and changed nothing; through the real command."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_hookwright

GUARDS = """
from hookwright import add_context


def quiet(inp):
    return None


def note(inp):
    return add_context("checked")
"""

OPENHARNESS_HOOK = """
name: tail-note
events: [after_tool_dispatch]
matcher: "Bash"
handler:
  type: command
  command: python3 -c "import sys; sys.stdin.read(); print('{}')"
"""


def write_project(project: Path) -> Path:
    (project / ".hookwright").mkdir(parents=True)
    (project / ".hookwright" / "guards.py").write_text(GUARDS)
    (project / ".hookwright" / "hooks.yaml").write_text(
        "hooks:\n"
        "  - {name: quiet, event: PostToolUse, call: 'guards:quiet'}\n"
        "  - {name: note, event: PostToolUse, call: 'guards:note'}\n"
    )
    (project / ".openharness" / "hooks").mkdir(parents=True)
    (project / ".openharness" / "hooks" / "tail-note.yaml").write_text(OPENHARNESS_HOOK)
    return project


def test_explain_uses_every_views_labels(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(tmp_path / "proj")
    call = {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": "x"}
    args = ("hooks", "test", "PostToolUse", "-i", "-", "-p", str(project), "--explain")
    proc = run_hookwright(*args, stdin=json.dumps(call), home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    quiet = "  run  quiet (Python, .hookwright/hooks.yaml) [not trusted]: no matcher: runs on every"
    assert f"{quiet} PostToolUse" in lines
    oh = "after_tool_dispatch (PostToolUse) tail-note"
    oh += " (OpenHarness, .openharness/hooks/tail-note.yaml)"
    assert f"  run  {oh} [not trusted]: matcher 'Bash' matches tool_name 'Bash'" in lines
    results = lines[lines.index("results:") + 1 : -1]
    assert sorted(results) == sorted(
        [
            "  quiet (Python, .hookwright/hooks.yaml): ran, no decision",
            "  note (Python, .hookwright/hooks.yaml): context",
            f"  {oh}: ran, no decision, exit 0",
        ]
    )
    assert not any("native" in line or "no effect" in line for line in lines)
