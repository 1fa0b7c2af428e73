"""A PicoClaw `modify`, through the real command (`hookwright run` with the scripted model, as
a subprocess): the hook's line says `modify (rewrite input)` on before_tool and `modify
(rewrite output)` on after_tool, and once done the run summary and the audit viewer say what
it rewrote; the tool really ran the rewritten command and the model really read the rewritten
output."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_hookwright
from hook_programs import write_picoclaw_modify

#: The model calls `touch made` (rewritten to `touch made-by-hook`), then `echo hi` (whose
#: output is rewritten); its third turn is only reached if it read the rewritten output.
SCRIPT = {
    "model": "s",
    "turns": [
        {"tool_calls": [{"name": "Bash", "arguments": {"command": "touch made"}}]},
        {"tool_calls": [{"name": "Bash", "arguments": {"command": "echo hi"}}]},
        {"match": "hook-rewrote-this", "content": "read it"},
    ],
}
LINE = "⚑ {} ({}) rewriter (PicoClaw, .picoclaw/config.json): modify ({})"


def test_a_picoclaw_modify_reads_modify_and_rewrites_what_runs_and_what_the_model_reads(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    write_picoclaw_modify(project)
    model = tmp_path / "model.json"
    model.write_text(json.dumps(SCRIPT))
    ran = run_hookwright("run", "go", "-p", str(project), "--trust", "--model",
                         f"scripted:{model}", "--summary", "--permission-mode",
                         "bypassPermissions", home=isolated_home, cwd=project,
                         env={"COLUMNS": "300"})  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert LINE.format("before_tool", "PreToolUse", "rewrite input") in lines, ran.stdout
    assert LINE.format("after_tool", "PostToolUse", "rewrite output") in lines, ran.stdout
    assert "  ↳ ran Bash(touch made-by-hook)" in lines, ran.stdout
    assert (project / "made-by-hook").exists() and not (project / "made").exists()
    assert "  ⎿ hook-rewrote-this" in lines and "  ⎿ hi" not in lines, ran.stdout
    assert "read it" in ran.stdout  # the model's third turn matched the rewritten output
    [row] = [line for line in lines if line.lstrip().startswith("rewriter ")]
    assert "rewrote Bash touch made → touch made-by-hook" in row, ran.stdout
    assert "rewrote the Bash result" in row, ran.stdout
    audit = run_hookwright("audit", home=isolated_home).stdout
    said = "rewriter (PicoClaw, .picoclaw/config.json): "
    assert f"{said}rewrote Bash touch made → touch made-by-hook" in audit, audit
    assert f"{said}rewrote the Bash result" in audit, audit
    counted = run_hookwright("audit", "--summary", home=isolated_home).stdout.splitlines()
    rows = {tuple(line.split()[1:]) for line in counted[1:]}
    expected = {
        ("rewriter", "modify", "(rewrite", "input)", "1"),
        ("rewriter", "modify", "(rewrite", "output)", "1"),
    }
    assert expected <= rows, counted
