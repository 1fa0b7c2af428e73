"""A misspelled key in an OpenHarness hook file skips the file's hook: `hooks validate`,
`hooks list` and every command that opens the project say so in one line naming the file, the
hook, the key and the key it resembles, through the real command line."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from cli_runner import hookwright_rows, run_hookwright

hookwright = functools.partial(run_hookwright, timeout=60)

GUARD = """\
name: guard
events: [before_tool_dispatch]
matchr: Bash
handler:
  type: command
  command: touch {marker}
  timout: 5
"""


def project_with_typos(root: Path, marker: Path) -> Path:
    hooks = root / ".openharness" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "guard.yaml").write_text(GUARD.format(marker=marker))
    return root


def typo_lines(file: Path) -> list[str]:
    return [
        f"error: {file}: handler.timout: unknown field (did you mean 'timeout_seconds'?) "
        "with value 5; hook 'guard' is not loaded",
        f"error: {file}: matchr: unknown field (did you mean 'matcher'?) with value \"Bash\"; "
        "hook 'guard' is not loaded",
    ]


def test_validate_names_file_hook_key_and_the_key_meant(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = project_with_typos(tmp_path / "p", tmp_path / "ran")
    proc = hookwright("hooks", "validate", "-p", str(project), home=isolated_home)
    assert proc.returncode == 1, proc.stdout
    found = [line.strip() for line in proc.stdout.splitlines()]
    assert "error .openharness/hooks/guard.yaml (OpenHarness): 1 hook failed" in found
    file = project.resolve() / ".openharness" / "hooks" / "guard.yaml"
    per_file = [line.replace(f"{file}: ", "") for line in typo_lines(file)]
    assert [line for line in found if line.startswith("error: ")] == per_file


def test_list_and_a_run_report_the_hook_as_not_run_with_the_typo(
    tmp_path: Path, isolated_home: Path
) -> None:
    marker = tmp_path / "ran"
    project = project_with_typos(tmp_path / "p", marker)
    hookwright("trust", str(project), home=isolated_home)
    file = project.resolve() / ".openharness" / "hooks" / "guard.yaml"
    listed = hookwright("hooks", "list", "--json", "-p", str(project), home=isolated_home)
    assert listed.stderr.splitlines()[:2] == typo_lines(file)
    [row] = hookwright_rows(listed.stdout)
    assert (row["name"], row["not_run"]) == ("guard", "not_bound")
    assert row["note"].endswith("; " + typo_lines(file)[0].split(f"{file}: ", 1)[1])
    call = json.dumps({"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}})
    tested = hookwright(
        "hooks", "test", "PreToolUse", "-i", "-", "-p", str(project), stdin=call, home=isolated_home
    )
    assert tested.stderr.splitlines()[:2] == typo_lines(file)
    assert not marker.exists()
