"""`run --summary` says why each hook that did not run did not, as the engine decided it on
each dispatch, through the real command: an `if` rule false on the calls, a matcher that
matched none of them (naming the tools seen), `once` after its one run, an event that never
fired; each hook that ran leaves a mark, so the test sees which did."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from cli.walk_kit import scripted_bash, summary_rows
from cli_runner import run_hookwright
from hookwright import Event, HookSpec, PythonHandler
from hookwright.cli.skip_tally import Skipped
from hookwright.cli.summary import MOST_SKIPS, RunSummary
from hookwright.core.matching import compile_matcher
from hookwright.engine.selection import Check

#: Leaves the hook's name in the marks file, so the test sees which hooks ran.
MARK = "#!/bin/sh\necho {name} >> {marks}\nexit 0\n"


def _hook(project: Path, name: str, marks: Path) -> dict[str, str]:
    script = project / ".claude" / f"{name}.sh"
    script.write_text(MARK.format(name=name, marks=marks))
    return {"type": "command", "command": f"sh .claude/{name}.sh"}


def _project(root: Path, marks: Path) -> Path:
    """Claude Code hooks: on Bash with `if: Bash(rm *)`, on Write, on SessionEnd's `clear`
    source (a run ends with `other`), on PreCompact (never fired), and a skill `deploy` whose
    frontmatter hook on Bash runs `once`."""
    project = root / "proj"
    (project / ".claude" / "skills" / "deploy").mkdir(parents=True)
    rm_only = {**_hook(project, "rmguard", marks), "if": "Bash(rm *)"}
    settings = {"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [rm_only]},
                       {"matcher": "Write", "hooks": [_hook(project, "writes", marks)]}],
        "SessionEnd": [{"matcher": "clear", "hooks": [_hook(project, "onclear", marks)]}],
        "PreCompact": [{"hooks": [_hook(project, "compact", marks)]}],
    }}  # fmt: skip
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    once = _hook(project, "firstbash", marks)
    (project / ".claude" / "skills" / "deploy" / "SKILL.md").write_text(
        "---\nname: deploy\ndescription: deploys\nhooks:\n  PreToolUse:\n    - matcher: Bash\n"
        f"      hooks:\n        - {{type: command, command: '{once['command']}', once: true}}\n"
        "---\n\nDeploy the app.\n"
    )
    return project


def test_the_summary_says_the_reason_the_engine_did_not_run_each_hook(
    tmp_path: Path, isolated_home: Path
) -> None:
    marks = tmp_path / "marks.txt"
    project = _project(tmp_path, marks)
    model = scripted_bash(tmp_path / "model.json", "echo one", "echo two", "ls")
    ran = run_hookwright("run", "/deploy", "-p", str(project), "--trust", "--model",
                         f"scripted:{model}", "--permission-mode", "bypassPermissions",
                         "--summary", home=isolated_home)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert marks.read_text() == "firstbash\n"  # the one hook that ran, once
    rows = summary_rows(ran.stdout)
    assert "did not run: its `if` 'Bash(rm *)' was false on Bash ×3" in rows["rmguard.sh"], rows
    assert "did not run: its matcher 'Write' matched no call (Bash ×3)" in rows["writes.sh"], rows
    assert (
        "did not run: its matcher 'clear' did not match SessionEnd (other)" in rows["onclear.sh"]
    ), rows
    assert "did not run: PreCompact never fired" in rows["compact.sh"], rows
    first = rows["firstbash.sh"]
    assert "PreToolUse: ran, no decision once; `once`: not run again on PreToolUse ×2" in first
    assert [name for name, row in rows.items() if "never fired" in row] == ["compact.sh"], rows


def test_what_a_matcher_saw_is_shown_printable_clipped_and_bounded() -> None:
    """Tool names are the model's: a flood of new ones keeps `MOST_SKIPS` reasons, and what is
    shown has no terminal escape and fits the column."""
    spec = HookSpec(
        name="writes",
        event=Event.PreToolUse,
        handler=PythonHandler(lambda inp: None),
        matcher=compile_matcher("Write", "claude"),
    )
    summary = RunSummary([spec])
    for n in range(MOST_SKIPS + 500):
        name = f"\x1b[31mT{n}" + "x" * 100
        summary._skip(spec, Skipped(Check.matcher, "PreToolUse", "Write", name))
    [line] = summary.lines()
    assert len(line.skipped) == MOST_SKIPS + 1  # the last one: the rest, counted
    assert sum(line.skipped.values()) == MOST_SKIPS + 500
    console = Console(width=300, file=io.StringIO(), force_terminal=True)
    summary.print(console, "s")
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    assert "\x1b[31m" not in shown and "?[31mT0xxx" in shown
    assert f"and {MOST_SKIPS + 497} more)" in shown, shown
