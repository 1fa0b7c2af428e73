"""Rough spots a second newcomer walk found, through the real commands: an OpenHarness hook's
timeout in the same form whether its folder is trusted or not."""

from __future__ import annotations

import shutil
from pathlib import Path

from cli_runner import run_hookwright

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo"


def _openharness_project(root: Path) -> Path:
    shutil.copytree(DEMO / ".openharness", root / ".openharness")
    return root


def test_an_openharness_timeout_reads_the_same_trusted_or_not(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _openharness_project(tmp_path / "proj")
    listed = {}
    for trusted in (False, True):
        if trusted:
            assert run_hookwright("trust", str(project), home=isolated_home).returncode == 0
        proc = run_hookwright("hooks", "list", "-p", str(project), home=isolated_home)
        assert proc.returncode == 0, proc.stderr
        [row] = [line for line in proc.stdout.splitlines() if "note-dry-runs  Bash" in line]
        listed[trusted] = row
    assert "OpenHarness · project · chain · 10s +2s · fails open" in listed[False], listed
    assert "OpenHarness · project · chain · 10s +2s · fails open" in listed[True], listed
    assert "12s" not in listed[False] + listed[True]
