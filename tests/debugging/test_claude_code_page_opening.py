"""`docs/claude-code.md` opens with what a Claude Code user needs first: the commands that run
their settings.json hooks under hookwright (run here, word for word, on a project with one),
and where the compatibility table is; the loader's details come after."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from tests.debugging.walk_project import bash_guard_project, bash_script

from cli_runner import run_hookwright

PAGE = Path(__file__).resolve().parents[2] / "docs" / "claude-code.md"
HOOK = "import sys; sys.stdin.read(); sys.stderr.write('no rm here'); sys.exit(2)"


def _opening() -> str:
    text = PAGE.read_text()
    return text[: text.index("\n## Loading")]


def _commands(block: str) -> list[list[str]]:
    """Each `hookwright ...` line of a shell block, as argv, without its comment."""
    lines = block.replace("\\\n", " ").splitlines()
    return [shlex.split(line, comments=True) for line in lines if line.startswith("hookwright")]


def test_the_page_opens_with_the_two_commands_and_the_compatibility_table(
    tmp_path: Path, isolated_home: Path
) -> None:
    opening = _opening()
    assert "(#compatibility-table-row-by-row-against-the-spec)" in opening
    first_block = re.search(r"```sh\n(.*?)```", opening, re.S)
    assert first_block is not None
    listing, running = _commands(first_block.group(1))
    project = tmp_path / "proj"
    bash_guard_project(project, HOOK)
    script = bash_script(tmp_path / "script.yaml", "rm -rf build/")
    listed = run_hookwright(*listing[1:], home=isolated_home, cwd=project)
    assert "PreToolUse" in listed.stdout and ".claude/settings.json" in listed.stdout
    ran = run_hookwright(*running[1:], "--model", f"scripted:{script}", home=isolated_home,
                         cwd=project)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert "(Claude Code, .claude/settings.json): deny" in ran.stdout, ran.stdout
