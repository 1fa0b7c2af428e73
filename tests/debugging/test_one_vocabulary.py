"""`hooks validate` and the not-run warnings name each system as `hooks list`, `hooks test`,
the terminal, the page and the summary do (the shared labels), never by a dialect's id."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cli_runner import run_hookwright

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo"
#: The demo's file of each system, the system as every view names it, and its hook count.
SYSTEMS = {
    ".claude/settings.json": ("Claude Code", 1),
    ".picoclaw/config.json": ("PicoClaw", 1),
    ".hookwright/hooks.yaml": ("Python", 2),
    ".openharness/hooks/note-dry-runs.yaml": ("OpenHarness", 1),
    "skills/careful/hooks/hooks.json": ("skill", 1),
}
IDS = ("claude_code", "picoclaw", "native", "openharness")


def test_hooks_validate_names_each_system_as_hooks_list_does(isolated_home: Path) -> None:
    checked = run_hookwright("hooks", "validate", "-p", str(DEMO), home=isolated_home)
    assert checked.returncode == 0, checked.stderr
    for file, (system, count) in SYSTEMS.items():
        hooks = "1 hook" if count == 1 else f"{count} hooks"
        line = f"  ok    {file} ({system}): {hooks} checked (folder not trusted: code not loaded)"
        if system == "skill":  # a skill's hooks are prompts: no code, they only do not run
            line = f"  ok    {file} ({system}): {hooks} checked (folder not trusted: will not run)"
        assert f"{line}\n" in checked.stdout, checked.stdout
    assert not any(f"({dialect})" in checked.stdout for dialect in IDS), checked.stdout
    listed = run_hookwright("hooks", "list", "-p", str(DEMO), home=isolated_home)
    for system, _ in SYSTEMS.values():
        assert f"  {system} · " in listed.stdout, listed.stdout
    as_json = run_hookwright("hooks", "validate", "-p", str(DEMO), "--json", home=isolated_home)
    files = {entry["file"]: entry for entry in json.loads(as_json.stdout)["files"]}
    assert {entry["system"] for entry in files.values()} == {s for s, _ in SYSTEMS.values()}


def test_a_hook_that_will_not_run_is_named_by_its_system(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    shutil.copytree(DEMO / ".openharness", project / ".openharness")
    (project / ".openharness" / "hooks" / "bad.yaml").write_text(
        "name: guard\nevents: [before_tool_dispatch]\n"
        "handler: {type: command, command: 'true', timout: 5}\n"
    )
    (tmp_path / "script.yaml").write_text("model: t\nturns:\n  - content: done\n")
    model = f"scripted:{tmp_path / 'script.yaml'}"
    proc = run_hookwright("run", "hi", "-p", str(project), "--trust", "--model", model,
                          home=isolated_home)  # fmt: skip
    said = "hook 'guard' (OpenHarness) not run: handler.timout: unknown field"
    assert said in proc.stderr, proc.stderr
    assert proc.stderr.count("handler.timout") == 1, proc.stderr  # the load error said once
    assert "(openharness)" not in proc.stdout + proc.stderr
