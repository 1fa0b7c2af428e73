"""What makes the daemon reload a project: the hook files it stamps, and what it leaves out."""

from __future__ import annotations

import os
from pathlib import Path

from hookwright.bridges.projects import stamp


def test_stamp_changes_with_a_hook_file_only(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "h"
    hooks = project / ".openharness" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "a.yaml").write_text("name: a\n")
    (project / ".hookwright").mkdir()
    (project / ".hookwright" / "__pycache__").mkdir()
    before = stamp(project, home)
    (project / ".hookwright" / "imported").write_text("data a hook wrote")
    (project / ".hookwright" / "__pycache__" / "rules.cpython.pyc").write_text("x")
    assert stamp(project, home) == before
    (hooks / "a.yaml").write_text("name: ab\n")
    assert stamp(project, home) != before


def test_stamp_sees_user_files_and_survives_a_dangling_link(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "h"
    (project / ".hookwright").mkdir(parents=True)
    os.symlink(tmp_path / "gone.py", project / ".hookwright" / "rules.py")
    before = stamp(project, home)
    assert (str(project / ".hookwright" / "rules.py"), -1, -1) in before
    (home / ".hookwright").mkdir(parents=True)
    (home / ".hookwright" / "hooks.yaml").write_text("hooks: []\n")
    assert stamp(project, home) != before
