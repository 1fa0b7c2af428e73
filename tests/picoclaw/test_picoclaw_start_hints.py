"""A PicoClaw process hook that cannot start says why, through `hookwright run` and `hooks
test`: a script named by a relative path that is not in the folder the process ran in (no
`dir`, started from another folder) names that folder, the config file, the hook and the `dir`
to set; a hook that writes other lines than JSON-RPC messages to stdout has the first of them,
their number and the fix in its failure, however many it writes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_hookwright
from hookwright.dialects.picoclaw.launch_hint import relative_scripts

#: Answers the handshake, denies every tool call.
GUARD = """import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    deny = {"action": "deny_tool", "reason": "guarded"}
    result = {} if message["method"] == "hook.hello" else deny
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""
#: Greets on stdout, then never answers.
GREETER = """import sys
for _ in range(3):
    print("Hello world", flush=True)
for line in sys.stdin:
    pass
"""
#: Floods stdout with long lines that are not JSON, then exits.
FLOOD = """import sys
line = "x" * 5000 + "\\n"
for _ in range(2000):
    sys.stdout.write(line)
sys.stdout.flush()
"""
TOUCH = {"name": "Bash", "arguments": {"command": "touch ran.txt"}}


def _project(root: Path, processes: dict[str, Any], scripts: dict[str, str]) -> Path:
    (root / ".picoclaw").mkdir(parents=True, exist_ok=True)
    (root / ".picoclaw" / "config.json").write_text(json.dumps({"hooks": {"processes": processes}}))
    for name, text in scripts.items():
        (root / name).write_text(text)
    (root / "script.json").write_text(
        json.dumps({"turns": [{"tool_calls": [TOUCH]}, {"content": "done"}]})
    )
    return root


def _run(project: Path, home: Path, cwd: Path) -> Any:
    return run_hookwright(
        "run", "go", "--project", str(project), "--trust",
        "--model", f"scripted:{project / 'script.json'}",
        "--permission-mode", "bypassPermissions", home=home, cwd=cwd,
    )  # fmt: skip


def _guard(**extra: Any) -> dict[str, Any]:
    return {"command": [sys.executable, "guard.py"], "intercept": ["before_tool"], **extra}


def test_a_script_not_in_the_folder_the_hook_ran_in_names_the_folder_and_the_dir_to_set(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _project(tmp_path / "proj", {"guard": _guard()}, {"guard.py": GUARD})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ran = _run(project, isolated_home, elsewhere)
    assert ran.returncode == 0, ran.stderr
    hint = (
        f'guard.py is not in {elsewhere}, the folder the hook ran in (no "dir" set: the folder '
        'hookwright was started in); set "dir" in .picoclaw/config.json hooks.processes.guard '
        f"to {project}, which holds it"
    )
    [line] = [line for line in ran.stderr.splitlines() if line.startswith("error: PicoClaw")]
    assert line.startswith("error: PicoClaw hook process guard: cannot start: hook guard: "), line
    assert line.endswith(f"; {hint}"), line
    assert (project / "ran.txt").exists()  # the guard did not run: the call went on
    (project / "ran.txt").unlink()
    tested = run_hookwright(
        "hooks", "test", "PreToolUse", "-i", "-", "-p", str(project), home=isolated_home,
        stdin=json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}}), cwd=elsewhere,
    )  # fmt: skip
    [hook] = json.loads(tested.stdout)["hooks"]
    assert hook["status"] == "error" and hint in hook["error"], hook
    _project(project, {"guard": _guard(dir=str(project))}, {})
    ran = _run(project, isolated_home, elsewhere)
    assert ran.returncode == 0 and "cannot start" not in ran.stderr, ran.stderr
    assert not (project / "ran.txt").exists()  # with `dir` set the guard denied the call


def test_the_start_hint_is_said_once_and_later_calls_refer_to_it_briefly(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _project(tmp_path / "proj", {"guard": _guard()}, {"guard.py": GUARD})
    calls = [{"tool_calls": [TOUCH]}, {"tool_calls": [TOUCH]}, {"content": "done"}]
    (project / "script.json").write_text(json.dumps({"turns": calls}))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ran = _run(project, isolated_home, elsewhere)
    assert ran.returncode == 0, ran.stderr
    shown = ran.stdout + ran.stderr
    assert shown.count('the folder the hook ran in (no "dir" set') == 1, shown
    # each later call's line (a respawn after the backoff too) refers to it briefly, whole
    later = [line for line in ran.stdout.splitlines() if "guard.py" in line]
    assert later, ran.stdout
    brief = 'guard.py is not in the folder the hook ran in: set "dir" (said at the first failure)'
    assert all(brief in line and "…" not in line for line in later), later
    assert all(line.count("hook guard:") == 1 for line in later), later  # named once


def test_a_script_found_where_the_hook_runs_gets_no_hint(
    tmp_path: Path, isolated_home: Path
) -> None:
    """From the project folder the same config works: the hook denies the call."""
    project = _project(tmp_path / "proj", {"guard": _guard()}, {"guard.py": GUARD})
    ran = _run(project, isolated_home, project)
    assert ran.returncode == 0 and "cannot start" not in ran.stderr, ran.stderr
    assert not (project / "ran.txt").exists()


def test_stdout_lines_that_are_not_json_rpc_are_shown_with_the_failure_bounded(
    tmp_path: Path, isolated_home: Path
) -> None:
    processes = {
        "greeter": {"command": [sys.executable, "greeter.py"], "intercept": ["before_tool"]},
        "flood": {"command": [sys.executable, "flood.py"], "intercept": ["before_tool"]},
    }
    project = _project(tmp_path / "proj", processes, {"greeter.py": GREETER, "flood.py": FLOOD})
    ran = _run(project, isolated_home, project)
    assert ran.returncode == 0, ran.stderr
    fix = "fix: write only JSON-RPC messages to stdout, one a line, and anything else to stderr"
    lines = [line for line in ran.stderr.splitlines() if line.startswith("error: PicoClaw")]
    [greeter] = [line for line in lines if "process greeter" in line]
    assert greeter.endswith(
        "no hook.hello answer within 5s; stdout was not JSON-RPC: 'Hello world' (3 lines); " + fix
    ), greeter
    [flood] = [line for line in lines if "process flood" in line]
    assert "hook.hello failed: process exited with code 0; stdout was not JSON-RPC: 'xxx" in flood
    assert flood.endswith(f"…' (2000 lines); {fix}"), flood
    assert len(flood) < 400, flood  # three lines of 80 bytes at most, shown once each
    # the terminal's hook line of each call says it too
    [called] = [line for line in ran.stdout.splitlines() if "PreToolUse) greeter" in line]
    assert "stdout was not JSON-RPC: 'Hello world' (3 lines)" in called, called


def test_a_dir_that_does_not_hold_the_script_is_corrected(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _project(tmp_path / "proj", {"guard": _guard(dir="hooks")}, {"guard.py": GUARD})
    (project / "hooks").mkdir()
    tested = run_hookwright(
        "hooks", "test", "PreToolUse", "-i", "-", "-p", str(project), home=isolated_home,
        stdin=json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
    )  # fmt: skip
    [hook] = json.loads(tested.stdout)["hooks"]
    assert hook["error"].endswith(
        f"; {project / 'hooks' / 'guard.py'} is not there; fix in .picoclaw/config.json "
        f'hooks.processes.guard: set "dir" to {project}, which holds it'
    ), hook


@pytest.mark.parametrize(
    ("command", "scripts"),
    [
        (["python3", "hook.py"], ["hook.py"]),
        (["python3", "-u", "hooks/gate.py", "--verbose"], ["hooks/gate.py"]),
        (["./hook.sh"], ["./hook.sh"]),
        (["node", "-e", "run.js"], []),  # code, not a path
        (["python3", "-m", "pkg.hook"], []),
        (["python3", "/abs/hook.py"], []),
        (["hookwright-guard", "config"], []),  # a program found on PATH, no script
    ],
)
def test_the_relative_scripts_of_a_command(command: list[str], scripts: list[str]) -> None:
    assert relative_scripts(command) == scripts
