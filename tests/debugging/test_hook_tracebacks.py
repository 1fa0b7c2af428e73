"""A Python hook's exception shows the frames of the author's file (file:line and the line's
text), not hookwright's, in `hooks test --explain`, `--debug`, the audit and the terminal of
`hookwright run`; a `call:` naming a missing function names the file and the name."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_hookwright
from hookwright.config.trust import TrustStore

GUARDS = """\
def helper(inp):
    return inp.tool_input['boom']

def check(inp):
    return helper(inp)
"""

HOOKS = """\
hooks:
  - {name: boom, event: PreToolUse, call: 'guards:check'}
"""

SCRIPT = """\
model: scripted
turns:
  - content: "listing"
    tool_calls:
      - name: Bash
        arguments: {command: "echo hi"}
  - content: "done"
"""

CALL = {"tool_name": "Bash", "tool_input": {"command": "ls"}}


def write_project(root: Path, hooks: str = HOOKS) -> Path:
    (root / ".hookwright").mkdir(parents=True)
    (root / ".hookwright" / "guards.py").write_text(GUARDS)
    (root / ".hookwright" / "hooks.yaml").write_text(hooks)
    return root


def assert_author_frames(text: str, guards: Path) -> None:
    assert f'File "{guards}", line 5, in check' in text
    assert "return helper(inp)" in text
    assert f'File "{guards}", line 2, in helper' in text
    assert "return inp.tool_input['boom']" in text
    assert "hookwright/engine" not in text
    assert "hookwright/core" not in text


def hooks_test(project: Path, home: Path, *extra: str) -> tuple[str, str]:
    proc = run_hookwright(
        *extra, "hooks", "test", "PreToolUse", "-i", "-", "-p", str(project),
        stdin=json.dumps(CALL), home=home,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr


def test_explain_shows_the_authors_frames(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(tmp_path / "proj")
    stdout, stderr = hooks_test_explain(project, isolated_home)
    guards = project / ".hookwright" / "guards.py"
    assert "boom (Python, .hookwright/hooks.yaml): error — KeyError: 'boom'" in stderr
    assert_author_frames(stderr, guards)
    [entry] = json.loads(stdout)["hooks"]
    assert_author_frames(entry["stderr_tail"], guards)


def hooks_test_explain(project: Path, home: Path) -> tuple[str, str]:
    proc = run_hookwright(
        "hooks", "test", "PreToolUse", "-i", "-", "-p", str(project), "--explain",
        stdin=json.dumps(CALL), home=home,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr


def test_debug_trace_and_audit_carry_the_authors_frames(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = write_project(tmp_path / "proj")
    _, stderr = hooks_test(project, isolated_home, "--debug")
    guards = project / ".hookwright" / "guards.py"
    [result] = [line for line in stderr.splitlines() if "result: PreToolUse boom" in line]
    assert_author_frames(result.replace("\\n", "\n"), guards)
    audit = isolated_home / ".hookwright" / "audit.jsonl"
    [record] = [json.loads(line) for line in audit.read_text().splitlines()]
    assert record["error"] == "KeyError: 'boom'"
    assert_author_frames(record["stderr_tail"], guards)


def test_run_terminal_shows_the_authors_frames(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(tmp_path / "proj")
    (project / "script.yaml").write_text(SCRIPT)
    TrustStore(isolated_home).trust(project)
    proc = run_hookwright(
        "run", "go", "--project", str(project), "--model", f"scripted:{project / 'script.yaml'}",
        "--permission-mode", "bypassPermissions",
        home=isolated_home,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    guards = project / ".hookwright" / "guards.py"
    assert "KeyError: 'boom'" in proc.stdout
    assert_author_frames(proc.stdout, guards)


def test_missing_function_names_the_file_and_the_name(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(
        tmp_path / "proj", "hooks:\n  - {name: gone, event: PreToolUse, call: 'guards:chekc'}\n"
    )
    _, stderr = hooks_test(project, isolated_home)
    hooks_file = project / ".hookwright" / "hooks.yaml"
    guards = project / ".hookwright" / "guards.py"
    assert (
        f"{hooks_file}: hooks[0].call: cannot import guards:chekc: {guards} has no 'chekc' "
        "(did you mean 'check'?)" in stderr
    )
    assert "_hookwright_user_" not in stderr


def test_module_that_fails_to_import_names_the_authors_line(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = write_project(tmp_path / "proj")
    guards = project / ".hookwright" / "guards.py"
    guards.write_text("SETTINGS = {}\nLIMIT = SETTINGS['limit']\n")
    _, stderr = hooks_test(project, isolated_home)
    assert (
        f"cannot import guards:check: KeyError: 'limit' "
        f"(at {guards}:2 in <module>: LIMIT = SETTINGS['limit'])" in stderr
    )
