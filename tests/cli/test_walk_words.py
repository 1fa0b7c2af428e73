"""One vocabulary, through the real command: a PicoClaw hook's decision reads in PicoClaw's own
word for its method (a before_tool `deny_tool`, an approve_tool `"approved": false`) in the
terminal, `--explain`, the summary and the audit viewer, as an OpenHarness block reads `block`;
a skill prompt hook's line names its timing next to the canonical event, the skill and the file."""

from __future__ import annotations

import json
from pathlib import Path

from cli.walk_kit import scripted_bash
from cli_runner import run_hookwright
from hook_programs import write_picoclaw_gate


def _picoclaw_gate(project: Path) -> None:
    write_picoclaw_gate(project)


def test_a_picoclaw_denial_reads_deny_tool_or_not_approved_in_every_view(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    _picoclaw_gate(project)
    model = scripted_bash(tmp_path / "model.json", "rm -rf build", "touch made")
    ran = run_hookwright("run", "go", "-p", str(project), "--trust", "--model",
                         f"scripted:{model}", "--summary", home=isolated_home, cwd=project,
                         env={"COLUMNS": "300"})  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert "gate (PicoClaw, .picoclaw/config.json): deny_tool (deny) — " in ran.stdout, ran.stdout
    assert "approver (PicoClaw, .picoclaw/config.json): not approved (deny) — " in ran.stdout, (
        ran.stdout
    )
    assert not (project / "made").exists()
    [gate_row] = [line for line in ran.stdout.splitlines() if line.lstrip().startswith("gate ")]
    assert "deny_tool (denied) Bash rm -rf build" in gate_row, ran.stdout
    [approver_row] = [
        line for line in ran.stdout.splitlines() if line.lstrip().startswith("approver ")
    ]
    assert "not approved (denied) Bash touch made" in approver_row, ran.stdout
    audit = run_hookwright("audit", home=isolated_home).stdout
    assert "deny_tool (denied) Bash rm -rf build" in audit, audit
    assert "not approved (denied) Bash touch made" in audit, audit
    counted = run_hookwright("audit", "--summary", home=isolated_home).stdout.splitlines()
    rows = {tuple(line.split()[1:]) for line in counted[1:]}
    said = {("gate", "deny_tool", "(deny)", "1"), ("approver", "not", "approved", "(deny)", "1")}
    assert said <= rows, counted
    call = {"tool": "Bash", "arguments": {"command": "rm -rf build"}}
    explained = run_hookwright("hooks", "test", "before_tool", "-p", str(project), "--explain",
                               "-i", "-", stdin=json.dumps(call), home=isolated_home,
                               cwd=project)  # fmt: skip
    assert "deny_tool (deny)" in explained.stdout + explained.stderr, explained.stderr
    traced = run_hookwright("--debug", "hooks", "test", "before_tool", "-p", str(project),
                            "-i", "-", stdin=json.dumps(call), home=isolated_home,
                            cwd=project)  # fmt: skip
    assert "ok, deny_tool (deny)" in traced.stdout + traced.stderr, traced.stderr


def test_a_skill_prompt_line_names_the_timing_the_canonical_event_the_skill_and_the_file(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    hooks = project / "skills" / "tidy" / "hooks"
    hooks.mkdir(parents=True)
    hook = {"name": "at-batch", "file": "batch.md", "timing": "after_tool_call",
            "role": "user", "persistent": True}  # fmt: skip
    (hooks / "hooks.json").write_text(json.dumps({"hooks": [hook]}))
    (hooks / "batch.md").write_text("Check what the tool did.")
    model = scripted_bash(tmp_path / "model.json", "echo hi")
    ran = run_hookwright("run", "go", "-p", str(project), "--trust", "--skill", "tidy",
                         "--model", f"scripted:{model}", "--permission-mode",
                         "bypassPermissions", home=isolated_home, cwd=project)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert (
        "✚ after_tool_call (PostToolBatch) at-batch (skill tidy, skills/tidy/hooks/batch.md): "
        "user prompt, kept: Check what the tool did."
    ) in ran.stdout.splitlines(), ran.stdout
