"""A failed OpenHarness hook, through the real command: one report per view (terminal,
`hooks test`, `--debug`, the audit), each naming the hook, its file and what fixes it."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from cli_runner import run_hookwright

HOOK = """
name: broken
events: [before_tool_dispatch]
matcher: "Bash"
handler:
  type: command
  command: python3 -c "import sys; sys.stdin.read(); sys.exit('it broke')"
"""
FILE = ".openharness/hooks/broken.yaml"
#: What an OpenHarness command hook's exit codes mean: the fix of any other exit code.
FIX = "fix: exit 0 (with a JSON answer, or none) to go on, or 2 to block (the reason on stderr)"


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / ".openharness" / "hooks").mkdir(parents=True)
    (project / FILE).write_text(HOOK)
    call = {"name": "Bash", "arguments": {"command": "echo hi"}}
    turns = [{"content": "one", "tool_calls": [call]}, {"content": "done"}]
    (tmp_path / "script.yaml").write_text(yaml.safe_dump({"model": "s", "turns": turns}))
    return project


def _run(tmp_path: Path, home: Path, *first: str) -> tuple[str, str]:
    project = _project(tmp_path)
    model = f"scripted:{tmp_path / 'script.yaml'}"
    proc = run_hookwright(*first, "run", "go", "-p", str(project), "--trust", "--model", model,
                          home=home)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr


def test_a_failed_openharness_hook_is_reported_once_with_its_fix(
    tmp_path: Path, isolated_home: Path
) -> None:
    both = "".join(_run(tmp_path, isolated_home))
    assert both.count("it broke") == 1, both  # no log line beside the hook's line
    line = f"broken (OpenHarness, {FILE}): error (hook_execution_failed)"
    assert f"{line} — Command hook exited with code 1: it broke\n  {FIX}\n" in both, both


def test_the_debug_trace_reports_it_once_with_its_file_and_fix(
    tmp_path: Path, isolated_home: Path
) -> None:
    _, trace = _run(tmp_path, isolated_home, "--debug")
    (line,) = [line for line in trace.splitlines() if "Command hook exited" in line]
    assert "result: before_tool_dispatch (PreToolUse) broken (OpenHarness, project): error" in line
    assert f"declared in: {(tmp_path / 'proj' / FILE).resolve()}:" in line
    assert line.endswith(f"; {FIX}"), line


def test_the_audit_keeps_the_fix_and_its_viewer_shows_it(
    tmp_path: Path, isolated_home: Path
) -> None:
    _run(tmp_path, isolated_home)
    lines = (isolated_home / ".hookwright" / "audit.jsonl").read_text().splitlines()
    (record,) = [json.loads(line) for line in lines if '"broken"' in line]
    assert record["error"] == "Command hook exited with code 1: it broke"
    assert record["fix"] == FIX.removeprefix("fix: ")
    shown = run_hookwright("audit", "--session", record["session_id"], home=isolated_home)
    assert f"{FILE}): error: Command hook exited with code 1: it broke; {FIX}" in shown.stdout
    assert run_hookwright("audit", "verify", home=isolated_home).returncode == 0


def test_hooks_test_says_it_once_with_the_fix(tmp_path: Path, isolated_home: Path) -> None:
    project = _project(tmp_path)
    stdin = json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}})
    args = ("hooks", "test", "before_tool_dispatch", "--input", "-", "-p", str(project))
    plain = run_hookwright(*args, stdin=stdin, home=isolated_home)
    assert plain.stderr == "", plain.stderr  # the JSON verdict is the report
    (hook,) = json.loads(plain.stdout)["hooks"]
    assert hook["error"] == "Command hook exited with code 1: it broke"
    assert hook["fix"] == FIX.removeprefix("fix: ")
    explained = run_hookwright(*args, "--explain", stdin=stdin, home=isolated_home)
    # the error quotes its stderr: said once
    assert explained.stderr.count("it broke") == 1, explained.stderr
    assert f"      {FIX}\n" in explained.stderr
