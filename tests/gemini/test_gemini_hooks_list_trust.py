"""`hookwright hooks list` of a Gemini CLI project in a folder Gemini does not trust: each
"not trusted" is said once (Gemini's, by the file's warning or the hook's off reason;
hookwright's, by the row's status and the listing's last line); through the real command."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_runner import run_hookwright

GEMINI_REFUSES = "Gemini CLI does not trust"


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / ".gemini").mkdir(parents=True)
    hook = {"type": "command", "command": "echo {}", "name": "guard"}
    settings = {"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [hook]}]}}
    (project / ".gemini" / "settings.json").write_text(json.dumps(settings))
    return project


def test_a_folder_neither_trusts_says_each_refusal_once(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _project(tmp_path)
    listed = run_hookwright("hooks", "list", "-p", str(project), home=isolated_home)
    assert listed.returncode == 0, listed.stderr
    both = listed.stdout + listed.stderr
    assert both.count(GEMINI_REFUSES) == 1, both  # the file's warning
    assert "not trusted by Gemini CLI" not in both, both
    row = (
        "as BeforeTool — .gemini/settings.json:hooks.BeforeTool[0].hooks[0] — not trusted: "
        "will not run\n"
    )
    assert row in listed.stdout, listed.stdout
    assert listed.stdout.count("not trusted") == 2, listed.stdout  # the row, the last line


def test_a_folder_hookwright_trusts_says_gemini_refusal_once_on_the_row(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _project(tmp_path)
    trusted = run_hookwright("trust", str(project), home=isolated_home)
    assert trusted.returncode == 0, trusted.stderr
    wide = {"COLUMNS": "400"}  # the whole row, not cut at the terminal's width
    listed = run_hookwright("hooks", "list", "-p", str(project), home=isolated_home, env=wide)
    assert listed.returncode == 0, listed.stderr
    both = listed.stdout + listed.stderr
    assert both.count(GEMINI_REFUSES) == 1, both
    assert "not trusted by Gemini CLI" not in both, both
    assert "trust the folder in Gemini CLI to run them\n" in listed.stdout
    assert "as BeforeTool — " in listed.stdout and "Gemini BeforeTool" not in listed.stdout
