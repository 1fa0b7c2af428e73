"""An OpenHarness hook's `decision` other than "block" does what it does in the real engine,
which blocks on `decision === "block"` only: nothing (the call runs). hookwright says so once
in each view (the terminal of `hookwright run`, `hooks test` and its `--explain`, the audit
viewer), with the hook's file, the field and the fix, never only in a log line. A
run_completed hook asking to block is said the same way: those hooks only observe. Through the
real command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from cli_runner import run_hookwright

GUARD = """
name: guard
events: [before_tool_dispatch]
matcher: "Bash"
handler:
  type: command
  command: python3 guard.py
"""
AT_END = """
name: at-end
events: [run_completed]
handler:
  type: command
  command: python3 at_end.py
"""
ANSWER = """import json, sys
sys.stdin.read()
print(json.dumps({answer}))
"""
FILE = ".openharness/hooks/guard.yaml"
LABEL = f"guard (OpenHarness, {FILE})"
FIX = (
    'fix: answer "decision": "block" (or "continue": false) to block; leave "decision" out to '
    "let it go on (OpenHarness has no allow or deny decision)"
)


def _said(decision: str) -> str:
    return f'"decision": "{decision}" is not an OpenHarness decision (only "block" blocks)'


def _project(tmp_path: Path, decision: str) -> Path:
    project = tmp_path / "proj"
    (project / ".openharness" / "hooks").mkdir(parents=True)
    (project / FILE).write_text(GUARD)
    answer = {"decision": decision, "reason": "no shell here"}
    (project / "guard.py").write_text(ANSWER.format(answer=repr(answer)))
    call = {"name": "Bash", "arguments": {"command": "echo ran > ran.txt"}}
    turns = [{"content": "one", "tool_calls": [call]}, {"content": "done"}]
    (tmp_path / "script.yaml").write_text(yaml.safe_dump({"model": "s", "turns": turns}))
    return project


def _run(tmp_path: Path, project: Path, home: Path) -> str:
    model = f"scripted:{tmp_path / 'script.yaml'}"
    proc = run_hookwright("run", "go", "-p", str(project), "--trust", "--model", model,
                          "--permission-mode", "bypassPermissions", home=home)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout + proc.stderr


def _shown_in_audit(home: Path, hook: str) -> str:
    lines = (home / ".hookwright" / "audit.jsonl").read_text().splitlines()
    (record,) = [json.loads(line) for line in lines if f'"{hook}"' in line]
    shown = run_hookwright("audit", "--session", record["session_id"], home=home)
    assert shown.returncode == 0, shown.stderr
    return shown.stdout


@pytest.mark.parametrize("decision", ["deny", "approve"])
def test_the_call_runs_and_the_terminal_says_the_decision_was_ignored_once(
    tmp_path: Path, isolated_home: Path, decision: str
) -> None:
    project = _project(tmp_path, decision)
    both = _run(tmp_path, project, isolated_home)
    assert (project / "ran.txt").read_text() == "ran\n"  # as in OpenHarness: the call ran
    assert both.count(_said(decision)) == 1, both  # the hook's line, no log line beside it
    assert f"{LABEL}: decision ignored — {_said(decision)}\n  {FIX}\n" in both, both
    shown = _shown_in_audit(isolated_home, "guard")
    assert f"{FILE}): decision ignored: {_said(decision)}; {FIX}\n" in shown, shown


def test_hooks_test_says_it_once_with_the_field_and_fix(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _project(tmp_path, "deny")
    stdin = json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}})
    args = ("hooks", "test", "before_tool_dispatch", "--input", "-", "-p", str(project))
    plain = run_hookwright(*args, stdin=stdin, home=isolated_home)
    assert plain.returncode == 0, plain.stderr
    assert plain.stderr == "", plain.stderr  # the verdict is the report: no log line
    verdict = json.loads(plain.stdout)
    assert verdict["decision"] is None
    (hook,) = verdict["hooks"]
    assert (hook["status"], hook["error"]) == ("ok", _said("deny"))
    assert hook["fix"] == FIX.removeprefix("fix: ")
    explained = run_hookwright(*args, "--explain", stdin=stdin, home=isolated_home)
    assert explained.stderr.count(_said("deny")) == 1, explained.stderr
    line = f"  before_tool_dispatch (PreToolUse) {LABEL}: decision ignored, exit 0 — "
    assert f"{line}{_said('deny')}\n      {FIX}\n" in explained.stderr, explained.stderr


def test_a_run_completed_hook_asking_to_block_is_said_to_only_observe(
    tmp_path: Path, isolated_home: Path
) -> None:
    """Reported as every decision the real engine ignores (spec §5: it does not act on a
    run_completed hook's answer), in `run`, `hooks test`, `--explain`, `--debug` and the
    audit: `decision ignored`, with the field and the fix."""
    project = _project(tmp_path, "block")
    (project / FILE).unlink()
    (project / ".openharness" / "hooks" / "at-end.yaml").write_text(AT_END)
    answer = {"decision": "block", "reason": "not finished"}
    (project / "at_end.py").write_text(ANSWER.format(answer=repr(answer)))
    both = _run(tmp_path, project, isolated_home)
    said = '"decision": "block" is not applied: run_completed hooks only observe'
    fix = (
        "fix: block from a before_* hook (before_tool_dispatch, before_model_call); OpenHarness "
        "does not act on a run_completed or run_failed hook's answer"
    )
    label = "at-end (OpenHarness, .openharness/hooks/at-end.yaml)"
    assert f"{label}: decision ignored — {said}\n  {fix}\n" in both, both
    assert both.count(said) == 1 and "note —" not in both, both
    assert "turn ended" not in both, both  # the run completed
    shown = _shown_in_audit(isolated_home, "at-end")
    assert f"{label}: decision ignored: {said}; {fix}\n" in shown, shown
    args = ("hooks", "test", "run_completed", "--input", "-", "-p", str(project))
    tested = run_hookwright(*args, stdin="{}", home=isolated_home)
    (hook,) = json.loads(tested.stdout)["hooks"]
    assert (hook["status"], hook["error"]) == ("ok", said)
    assert hook["fix"] == fix.removeprefix("fix: ")
    explained = run_hookwright(*args, "--explain", stdin="{}", home=isolated_home)
    assert f"{label}: decision ignored, exit 0 — {said}\n      {fix}\n" in explained.stderr
    debug = run_hookwright("--debug", *args, stdin="{}", home=isolated_home)
    [result] = [
        line for line in debug.stderr.splitlines() if "result: run_completed (Stop) at-end" in line
    ]
    assert "ok, decision ignored, " in result and f"error: {said};" in result, result
