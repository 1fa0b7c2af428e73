"""An OpenHarness patch dropped for lack of its capability, through the real command: said
once in each view (the terminal of `hookwright run`, `hooks test` and its `--explain`, the
`--debug` trace, the audit viewer), each time with the hook's file and what fixes it."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from cli_runner import run_hookwright

HOOK = """
name: rewrite-ls
events: [before_tool_dispatch]
matcher: "Bash"
handler:
  type: command
  command: python3 rewrite.py
"""
#: The hook asks for a rewrite its file grants no capability for.
SCRIPT = """import json, sys
sys.stdin.read()
print(json.dumps({"hookSpecificOutput": {"patch": {"tool_input": {"command": "ls -la"}}}}))
"""
FILE = ".openharness/hooks/rewrite.yaml"
DROPPED = "tool_input ignored: needs capability rewrite_tool_request"
FIX = "fix: add rewrite_tool_request to the hook's capabilities"
LABEL = f"rewrite-ls (OpenHarness, {FILE})"


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / ".openharness" / "hooks").mkdir(parents=True)
    (project / FILE).write_text(HOOK)
    (project / "rewrite.py").write_text(SCRIPT)
    call = {"name": "Bash", "arguments": {"command": "echo hi"}}
    turns = [{"content": "one", "tool_calls": [call]}, {"content": "done"}]
    (tmp_path / "script.yaml").write_text(yaml.safe_dump({"model": "s", "turns": turns}))
    return project


def _run(tmp_path: Path, home: Path, *first: str) -> str:
    project = _project(tmp_path)
    model = f"scripted:{tmp_path / 'script.yaml'}"
    proc = run_hookwright(*first, "run", "go", "-p", str(project), "--trust", "--model", model,
                          home=home)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout + proc.stderr


def test_the_terminal_says_it_once_on_the_hook_line_with_the_fix(
    tmp_path: Path, isolated_home: Path
) -> None:
    both = _run(tmp_path, isolated_home)
    assert both.count(DROPPED) == 1, both  # no log line, no notice line beside the hook's line
    assert f"{LABEL}: patch dropped — {DROPPED}\n  {FIX}\n" in both, both


def test_the_debug_trace_says_it_once_with_the_system_file_and_fix(
    tmp_path: Path, isolated_home: Path
) -> None:
    both = _run(tmp_path, isolated_home, "--debug")
    assert both.count(DROPPED) == 2, both  # the trace's result line and the hook's line
    (line,) = [line for line in both.splitlines() if line.startswith("[hookwright debug")
               and DROPPED in line]  # fmt: skip
    said = "result: before_tool_dispatch (PreToolUse) rewrite-ls (OpenHarness, project)"
    assert f"{said}: ok, patch dropped" in line
    assert f"declared in: {(tmp_path / 'proj' / FILE).resolve()}:" in line
    assert line.endswith(f"; {FIX}"), line
    assert "openharness" not in line.replace(".openharness", "")  # no dialect id in the trace


def test_the_audit_viewer_shows_what_was_dropped_and_the_fix(
    tmp_path: Path, isolated_home: Path
) -> None:
    _run(tmp_path, isolated_home)
    lines = (isolated_home / ".hookwright" / "audit.jsonl").read_text().splitlines()
    (record,) = [json.loads(line) for line in lines if '"rewrite-ls"' in line]
    assert (record["effect"], record["error"]) == ("patch dropped", DROPPED)
    assert record["fix"] == FIX.removeprefix("fix: ")
    shown = run_hookwright("audit", "--session", record["session_id"], home=isolated_home)
    assert f"{FILE}): patch dropped: {DROPPED}; {FIX}" in shown.stdout, shown.stdout


def test_hooks_test_says_it_once_with_the_fix(tmp_path: Path, isolated_home: Path) -> None:
    project = _project(tmp_path)
    stdin = json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}})
    args = ("hooks", "test", "before_tool_dispatch", "--input", "-", "-p", str(project))
    plain = run_hookwright(*args, stdin=stdin, home=isolated_home)
    assert plain.stderr == "", plain.stderr  # the JSON verdict is the report, no log line
    (hook,) = json.loads(plain.stdout)["hooks"]
    assert (hook["status"], hook["error"]) == ("ok", DROPPED)
    assert hook["fix"] == FIX.removeprefix("fix: ")
    explained = run_hookwright(*args, "--explain", stdin=stdin, home=isolated_home)
    assert explained.stderr.count(DROPPED) == 1, explained.stderr
    line = f"  before_tool_dispatch (PreToolUse) {LABEL}: patch dropped, exit 0 — {DROPPED}\n"
    assert f"{line}      {FIX}\n" in explained.stderr, explained.stderr
