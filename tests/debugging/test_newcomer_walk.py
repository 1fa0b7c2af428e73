"""What a new user meets first, through the real command: each thing said once."""

from __future__ import annotations

import json
from pathlib import Path

from tests.debugging.walk_project import bash_guard_project, bash_script

from cli_runner import run_hookwright

#: Its message is joined at run time, so the hook's label (its command, cut to a width that
#: depends on the interpreter's path) never holds the text counted.
HOOK = "import sys; sys.stdin.read(); print('bad', 'input', file=sys.stderr); sys.exit(1)"


def test_hooks_list_says_once_how_to_trust_the_folder(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "proj"
    (project / ".hookwright").mkdir(parents=True)
    (project / ".hookwright" / "hooks.yaml").write_text(
        "hooks:\n  - {name: facts, event: SessionStart, call: 'guards:facts'}\n"
    )
    proc = run_hookwright("hooks", "list", "-p", str(project), home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    both = proc.stdout + proc.stderr
    assert both.count(f"hookwright trust {project.resolve()}") == 1, both
    listed = run_hookwright("hooks", "list", "-p", str(project), "--json", home=isolated_home)
    assert f"hookwright trust {project.resolve()}" in listed.stderr  # stdout is JSON alone


def test_a_failed_hooks_one_line_stderr_is_shown_once(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "proj"
    bash_guard_project(project, HOOK)
    script = bash_script(tmp_path / "script.yaml", "echo hi")
    args = ("run", "go", "-p", str(project), "--trust", "--model", f"scripted:{script}")
    proc = run_hookwright(*args, home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    assert "Failed with non-blocking status code 1: bad input" in proc.stdout
    assert proc.stdout.count("bad input") == 1, proc.stdout


OPENHARNESS_HOOK = """
name: broken
events: [before_tool_dispatch]
matcher: "Bash"
handler:
  type: command
  command: python3 -c "import sys; sys.stdin.read(); sys.exit('it broke')"
"""


def test_a_failed_openharness_hook_is_one_terminal_line(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".openharness" / "hooks").mkdir(parents=True)
    (project / ".openharness" / "hooks" / "broken.yaml").write_text(OPENHARNESS_HOOK)
    script = bash_script(tmp_path / "script.yaml", "echo hi")
    args = ("run", "go", "-p", str(project), "--trust", "--model", f"scripted:{script}")
    proc = run_hookwright(*args, home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    line = "broken (OpenHarness, .openharness/hooks/broken.yaml): error (hook_execution_failed)"
    assert f"{line} — Command hook exited with code 1: it broke" in proc.stdout
    assert proc.stdout.count("it broke") == 1, proc.stdout  # no notice, no stderr tail again


def test_explain_says_which_selected_hooks_an_earlier_deny_kept_from_running(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    bash_guard_project(project, "import sys; sys.stdin.read(); sys.stderr.write('no'); sys.exit(2)")
    (project / ".openharness" / "hooks").mkdir(parents=True)
    (project / ".openharness" / "hooks" / "later.yaml").write_text(
        OPENHARNESS_HOOK.replace("broken", "later")
    )
    stdin = json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}})
    args = ("hooks", "test", "PreToolUse", "-i", "-", "-p", str(project), "--explain")
    proc = run_hookwright(*args, stdin=stdin, home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    assert "  run  before_tool_dispatch (PreToolUse) later (OpenHarness" in proc.stderr
    assert (
        "  before_tool_dispatch (PreToolUse) later (OpenHarness, .openharness/hooks/later.yaml):"
        " not run — an earlier hook's deny ended the dispatch"
    ) in proc.stderr, proc.stderr
