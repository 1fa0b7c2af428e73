"""A PicoClaw process whose `dir` is set and whose script is not in it, or whose `dir` is not a
folder, is said in one line by `hooks validate`, `hooks list` and the run: the file, the hook,
the resolved path that is missing and the fix; the run goes on (fails open), or, under a
policy that fails PicoClaw closed, the call it guards is blocked. Through the real command."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from cli_runner import run_hookwright
from hook_programs import PICOCLAW_GATE

TOUCH = {"name": "Bash", "arguments": {"command": "touch ran.txt"}}


def _project(root: Path, dir_: str) -> tuple[Path, Path]:
    config = root / ".picoclaw" / "config.json"
    config.parent.mkdir(parents=True)
    process = {"command": [sys.executable, "gate.py"], "dir": dir_, "intercept": ["before_tool"]}
    config.write_text(json.dumps({"hooks": {"processes": {"gate": process}}}))
    (root / "script.json").write_text(
        json.dumps({"turns": [{"tool_calls": [TOUCH]}, {"content": "done"}]})
    )
    return root, config


def _run(project: Path, home: Path) -> Any:
    return run_hookwright(
        "run", "go", "-p", str(project), "--trust",
        "--model", f"scripted:{project / 'script.json'}",
        "--permission-mode", "bypassPermissions", home=home, cwd=project,
    )  # fmt: skip


def test_a_script_not_in_its_dir_is_said_by_validate_list_and_the_run(
    tmp_path: Path, isolated_home: Path
) -> None:
    project, config = _project(tmp_path / "proj", "hooks")
    (project / "hooks").mkdir()
    missing = project / "hooks" / "gate.py"
    fix = 'create it, or correct "dir" or the path in command'
    checked = run_hookwright("hooks", "validate", "-p", str(project), home=isolated_home)
    assert checked.returncode == 1, checked.stdout
    assert (
        f"        error: hooks.processes.gate.command: process 'gate': {missing} is not there "
        f'(command ["{sys.executable}", "gate.py"], dir "hooks"); every call fails and the run '
        f"goes on as if the hook were not there; fix: {fix}"
    ) in checked.stdout.splitlines(), checked.stdout
    run_hookwright("trust", str(project), home=isolated_home)
    listed = run_hookwright("hooks", "list", "-p", str(project), "--event", "PreToolUse",
                            home=isolated_home)  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    assert (  # the entry's second line, wrapped under its own text at the terminal's width
        "as before_tool — .picoclaw/config.json:hooks.processes.gate — fails when it runs: "
        f"missing command: {missing}; {fix}"
    ) in " ".join(listed.stdout.split()), listed.stdout
    ran = _run(project, isolated_home)
    assert ran.returncode == 0, ran.stderr
    assert (
        f"warning: {config}:hooks.processes.gate: hook 'gate' (PicoClaw) fails when it runs: "
        f"missing command: {missing}; {fix}"
    ) in ran.stderr.splitlines(), ran.stderr
    [start] = [line for line in ran.stderr.splitlines() if line.startswith("error: PicoClaw")]
    assert start.endswith(
        f"; {missing} is not there; fix in .picoclaw/config.json hooks.processes.gate: {fix}"
    ), start
    assert (project / "ran.txt").exists()  # fails open: the call went on
    (project / "ran.txt").unlink()
    missing.write_text(PICOCLAW_GATE.replace("'rm' in", "'touch' in"))
    fixed = _run(project, isolated_home)
    assert "gate.py" not in fixed.stderr, fixed.stderr
    assert not (project / "ran.txt").exists()  # the gate, found in its dir, denied the call


def test_a_script_in_the_project_but_not_in_its_dir_names_the_dir_to_set(
    tmp_path: Path, isolated_home: Path
) -> None:
    project, _ = _project(tmp_path / "proj", "hooks")
    (project / "hooks").mkdir()
    (project / "gate.py").write_text(PICOCLAW_GATE)
    checked = run_hookwright("hooks", "validate", "-p", str(project), home=isolated_home)
    assert (
        f"        error: hooks.processes.gate.dir: process 'gate': {project}/hooks/gate.py is not "
        f'there (command ["{sys.executable}", "gate.py"], dir "hooks"); every call fails and the '
        f'run goes on as if the hook were not there; fix: set "dir" to {project}, which holds it'
    ) in checked.stdout.splitlines(), checked.stdout


def test_a_dir_that_is_not_a_folder_blocks_under_a_fail_closed_policy(
    tmp_path: Path, isolated_home: Path
) -> None:
    project, config = _project(tmp_path / "proj", "nowhere")
    (project / "gate.py").write_text(PICOCLAW_GATE)
    policy = project / ".hookwright" / "policy.yaml"
    policy.parent.mkdir()
    policy.write_text("rules:\n  - fail: closed\n    dialects: [picoclaw]\n")
    folder = project / "nowhere"
    checked = run_hookwright("hooks", "validate", "-p", str(project), home=isolated_home)
    assert (
        f"error: hooks.processes.gate.dir: process 'gate': {folder} (\"dir\") is not a folder"
    ) in checked.stdout, checked.stdout
    ran = _run(project, isolated_home)
    assert ran.returncode == 0, ran.stderr
    assert (
        f"warning: {config}:hooks.processes.gate: hook 'gate' (PicoClaw) fails when it runs: "
        f'missing command: {folder}; create it, or correct "dir"'
    ) in ran.stderr.splitlines(), ran.stderr
    assert not (project / "ran.txt").exists()  # fails closed: the call was blocked
    [line] = [line for line in ran.stdout.splitlines() if line.startswith("⚑ before_tool")]
    assert "failed: hook gate: process is down" in line, line
    assert "[denied by hook]" in ran.stdout, ran.stdout
