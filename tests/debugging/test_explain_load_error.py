"""`hooks test --explain` names the error a hook failed to load with on its `off` row (its
field and the fix), in the text and in `--json`, instead of the ways a hook can be left out;
through the real command."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_hookwright


def test_an_off_row_says_the_error_the_hook_failed_to_load_with(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".hookwright").mkdir(parents=True)
    (project / ".hookwright" / "guards.py").write_text("def deny_rm(inp):\n    return None\n")
    (project / ".hookwright" / "hooks.yaml").write_text(
        "hooks:\n  - {name: typo, event: PreToolUse, call: 'guards:deny_rn'}\n"
    )
    assert run_hookwright("trust", str(project), home=isolated_home).returncode == 0
    call = json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}})
    args = ("hooks", "test", "PreToolUse", "-i", "-", "-p", str(project), "--explain")
    text = run_hookwright(*args, stdin=call, home=isolated_home)
    assert text.returncode == 0, text.stderr
    said = (
        f"hooks[0].call: cannot import guards:deny_rn: {project}/.hookwright/guards.py has no "
        "'deny_rn' (did you mean 'deny_rm'?)"
    )
    line = f"  off  typo (Python, .hookwright/hooks.yaml): not loaded: {said}\n"
    assert line in text.stderr, text.stderr
    assert "disableAllHooks" not in text.stderr, text.stderr
    [off] = [c for c in json.loads(text.stdout)["candidates"] if c["check"] == "unloaded"]
    assert off["reason"] == f"not loaded: {said}", off
