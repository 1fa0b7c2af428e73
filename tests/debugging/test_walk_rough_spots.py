"""What a first hook of each kind showed a newcomer, through the real commands: a skill
hook's `tool_filter` in `hooks list` (as its matcher and in its note; the word "skill" once),
the `--debug` trace naming a skill hook once and whether its filter took the call, and the
audit viewer saying "ran, no decision" as every other view does."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from cli_runner import run_hookwright, run_scripted


def _project(root: Path) -> Path:
    hooks = root / "skills" / "review" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "after-edit.md").write_text("Re-read the file you changed.\n")
    entry = {"name": "after-edit", "file": "after-edit.md", "timing": "after_tool_call",
             "role": "system", "persistent": False, "tool_filter": ["Write", "Edit"]}  # fmt: skip
    (hooks / "hooks.json").write_text(json.dumps({"hooks": [entry]}))
    (root / ".hookwright").mkdir()
    (root / ".hookwright" / "guards.py").write_text("def quiet(inp):\n    return None\n")
    (root / ".hookwright" / "hooks.yaml").write_text(
        "hooks:\n  - {name: quiet, event: PreToolUse, call: 'guards:quiet'}\n"
    )
    write = {"name": "Write", "arguments": {"file_path": "a.py", "content": "print(1)\n"}}
    turns = [{"content": "writing", "tool_calls": [write]}, {"content": "done"}]
    (root / "script.yaml").write_text(yaml.safe_dump({"model": "s", "turns": turns}))
    return root


def test_hooks_list_shows_a_skill_hooks_tool_filter_and_says_skill_once(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _project(tmp_path / "proj")
    proc = run_hookwright("hooks", "list", "-p", str(project), "--skill", "review",
                          home=isolated_home, env={"COLUMNS": "400"})  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    [row, note] = [line for i, line in enumerate(proc.stdout.splitlines())
                   if "after-edit" in line or "after-edit.md" in line]  # fmt: skip
    assert "review/after-edit  Write, Edit  skill · parallel · fails open" in row, row
    assert "skill · skill" not in proc.stdout
    assert note.strip().startswith("as after_tool_call — skills/review/hooks/after-edit.md"), note
    assert note.endswith("skill prompt hook; tool_filter: Write, Edit"), note
    assert note.count("after_tool_call") == 1, note


def test_the_trace_names_a_skill_hook_once_and_the_audit_viewer_says_ran_no_decision(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _project(tmp_path / "proj")
    proc = run_scripted(project, "script.yaml", "--skill", "review", home=isolated_home,
                        env={"HOOKWRIGHT_DEBUG": "1"})  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    trace = proc.stderr
    match = "match:   run  review/after-edit (skill): tool_filter Write, Edit matches tool 'Write'"
    assert match in trace, trace
    assert (
        "result: after_tool_call (PostToolBatch) review/after-edit (skill): ok, prompt" in trace
    ), trace
    assert "(skill, skill)" not in trace
    lines = (isolated_home / ".hookwright" / "audit.jsonl").read_text().splitlines()
    session = json.loads(lines[-1])["session_id"]
    shown = run_hookwright("audit", "--session", session, home=isolated_home).stdout
    assert "PreToolUse quiet (Python, .hookwright/hooks.yaml): ran, no decision\n" in shown, shown
    assert "no effect" not in shown


RAISES = """def no_secrets(inp):
    return inp.tool_input["contnet"]
"""


def test_the_audit_viewer_says_where_a_python_hook_raised(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _project(tmp_path / "proj")
    (project / ".hookwright" / "guards.py").write_text(RAISES)
    (project / ".hookwright" / "hooks.yaml").write_text(
        "hooks:\n  - {name: no-secrets, event: PreToolUse, call: 'guards:no_secrets'}\n"
    )
    proc = run_scripted(project, "script.yaml", home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    lines = (isolated_home / ".hookwright" / "audit.jsonl").read_text().splitlines()
    session = json.loads(lines[-1])["session_id"]
    shown = run_hookwright("audit", "--session", session, home=isolated_home).stdout
    line = "no-secrets (Python, .hookwright/hooks.yaml): error: KeyError: 'contnet'"
    assert f"{line} at .hookwright/guards.py:2\n" in shown, shown
