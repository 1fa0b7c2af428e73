"""`hookwright hooks list` shows each row whole: a note longer than the width (Gemini CLI's "not
trusted" and its fix) wraps under the row's text instead of being cut, at 80 columns and when
piped; through the real command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_hookwright

FIX = "trust the folder in Gemini CLI to run them"


def _gemini_project(tmp_path: Path, home: Path) -> Path:
    """A Gemini CLI project hookwright trusts and Gemini CLI does not: its row's note is long."""
    project = tmp_path / "project"
    (project / ".gemini").mkdir(parents=True)
    hook = {"type": "command", "command": "echo {}", "name": "guard"}
    settings = {"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [hook]}]}}
    (project / ".gemini" / "settings.json").write_text(json.dumps(settings))
    trusted = run_hookwright("trust", str(project), home=home)
    assert trusted.returncode == 0, trusted.stderr
    return project


@pytest.mark.parametrize("columns", ["80", ""], ids=["80-columns", "piped"])
def test_a_long_note_is_wrapped_whole_never_cut(
    tmp_path: Path, isolated_home: Path, columns: str
) -> None:
    project = _gemini_project(tmp_path, isolated_home)
    listed = run_hookwright("hooks", "list", "-p", str(project), home=isolated_home,
                            env={"COLUMNS": columns})  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert "…" not in listed.stdout, listed.stdout
    if columns:
        assert max(map(len, lines)) <= 80, listed.stdout
        # each wrapped line goes on under the row's text, five columns in
        row = lines.index(next(line for line in lines if "guard  run_shell_command" in line))
        assert all(line.startswith("     ") and line[5] != " " for line in lines[row + 1 :])
    # the whole note, its words in order, ends the row: joined again, it is the note
    joined = " ".join(line.strip() for line in lines)
    assert "Gemini CLI does not trust" in joined, listed.stdout
    assert "`gemini -p` refuses to run there (exit 55)" in joined, listed.stdout
    assert joined.endswith(FIX), listed.stdout
