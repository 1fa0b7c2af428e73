"""`hookwright hooks validate` on OpenHarness command hooks that can never start: a program not
found on PATH, a relative program or script not in the folder the command runs in, a `cwd`
that is not a folder. Each is an error naming the file, the hook and the field, with the
fix; the hook counts as failed in its file's line, and the command exits 1. Commands that can
start, shell builtins and programs the shell expands stay ok."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cli_runner import run_hookwright

UNRUNNABLE = "every call fails and the run goes on as if the hook were not there"


def _hook(root: Path, name: str, command: str, **handler: str) -> None:
    hooks = root / ".openharness" / "hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    spec = {"type": "command", "command": command, **handler}
    doc = {"name": name, "events": ["before_tool_dispatch"], "handler": spec}
    (hooks / f"{name}.yaml").write_text(json.dumps(doc))  # JSON is YAML


def _validate(project: Path, home: Path, *extra: str) -> tuple[int, list[str]]:
    done = run_hookwright("hooks", "validate", "-p", str(project), *extra, home=home)
    return done.returncode, done.stdout.splitlines()


def test_a_command_hook_whose_program_is_missing_is_an_error(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / "scripts").mkdir(parents=True)
    (project / "scripts" / "guard.py").write_text("import sys\n")
    _hook(project, "nopath", "no-such-program-hw --fix")
    _hook(project, "relative", "./scripts/guard.sh --strict")
    _hook(project, "script", f"{sys.executable} scripts/gaurd.py")
    _hook(project, "nocwd", "cat >/dev/null", cwd="build")
    _hook(project, "fine", f"cat >/dev/null; {sys.executable} scripts/guard.py")
    _hook(project, "builtin", 'exec "$HOOK_PROGRAM"')
    code, lines = _validate(project, isolated_home)
    assert code == 1, lines
    found = {name: lines[i + 1].strip() for i, line in enumerate(lines) for name in
             ("nopath", "relative", "script", "nocwd") if f"hooks/{name}.yaml" in line}  # fmt: skip
    assert "  error .openharness/hooks/nopath.yaml (OpenHarness): 1 hook failed" in lines
    assert found["nopath"] == (
        "error: handler.command: hook 'nopath': no-such-program-hw is not found on PATH (command "
        f'"no-such-program-hw --fix"); {UNRUNNABLE}; fix: install no-such-program-hw, or name '
        "it by its path"
    )
    assert found["relative"] == (
        f"error: handler.command: hook 'relative': ./scripts/guard.sh is not in {project}, the "
        f'folder the command runs in (command "./scripts/guard.sh --strict"); {UNRUNNABLE}; '
        "fix: correct the path, or set cwd to the folder that holds it"
    )
    assert found["script"].startswith(
        f"error: handler.command: hook 'script': scripts/gaurd.py is not in {project}, the "
        "folder the command runs in"
    )
    assert "every call blocks: python exits 2 for a missing script (a block)" in found["script"]
    assert found["nocwd"] == (
        f"error: handler.command: hook 'nocwd': {project / 'build'} is not a folder, so the "
        f"command cannot run there; {UNRUNNABLE}; fix: create it or correct cwd"
    )
    for ok in ("fine", "builtin"):
        assert any(line.startswith(f"  ok    .openharness/hooks/{ok}.yaml") for line in lines)
    assert lines[-1] == "4 errors, 0 warnings in 6 files"
    # trusted, the same: the program is still missing
    code, lines = _validate(project, isolated_home, "--trust")
    assert code == 1 and lines[-1] == "4 errors, 0 warnings in 6 files", lines


def test_counts_are_said_in_plain_words(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "proj"
    _hook(project, "nopath", "no-such-program-hw")
    code, lines = _validate(project, isolated_home)
    assert code == 1 and lines[-1] == "1 error, 0 warnings in 1 file", lines
    assert lines[-3] == (
        "1 hook of a folder that is not trusted was checked without loading its code (modules, "
        "factories); --trust loads them too"
    )
    assert not any("(s)" in line for line in lines), lines
