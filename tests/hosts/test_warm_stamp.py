"""What makes the daemon reload a project: the hook files it stamps, and what it leaves out;
a file swapped for one of the same size and mtime, or a retargeted link, is reloaded by the
real daemon."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.hosts.project import hook_input, make_project, run_installed

from cli_runner import run_cli
from hookwright.bridges.hook_watch import stamp
from hookwright.config.trust import TrustStore


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
    [(path, print_)] = [entry for entry in before if entry[0].endswith("rules.py")]
    assert path == str(project / ".hookwright" / "rules.py")
    assert print_ is not None and print_[1:] == (str(tmp_path / "gone.py"), None)
    (home / ".hookwright").mkdir(parents=True)
    (home / ".hookwright" / "hooks.yaml").write_text("hooks: []\n")
    assert stamp(project, home) != before


def _same_size_and_mtime(path: Path, text: str, *, in_place: bool) -> None:
    """Put `text` (as long as what `path` holds) at `path` and set its mtime back."""
    old = path.stat()
    assert len(text.encode()) == old.st_size
    if in_place:
        with open(path, "r+") as fh:
            fh.write(text)
    else:
        swap = path.with_name(path.name + ".new")
        swap.write_text(text)
        os.replace(swap, path)
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))
    new = path.stat()
    assert (new.st_size, new.st_mtime_ns) == (old.st_size, old.st_mtime_ns)


def test_a_swap_keeping_size_and_mtime_changes_the_stamp(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "h"
    (project / ".hookwright").mkdir(parents=True)
    hooks = project / ".hookwright" / "hooks.yaml"
    hooks.write_text("hooks: [a]\n")
    first = stamp(project, home)
    _same_size_and_mtime(hooks, "hooks: [b]\n", in_place=False)
    second = stamp(project, home)
    assert second != first
    _same_size_and_mtime(hooks, "hooks: [c]\n", in_place=True)
    assert stamp(project, home) != second


def test_a_retargeted_link_changes_the_stamp_even_to_an_identical_file(tmp_path: Path) -> None:
    """The new target is a hard link of the old one (the same inode, the same stat): only
    the link itself changed."""
    project, home = tmp_path / "p", tmp_path / "h"
    (project / ".hookwright").mkdir(parents=True)
    (tmp_path / "one.py").write_text("x = 1\n")
    os.link(tmp_path / "one.py", tmp_path / "two.py")
    rules = project / ".hookwright" / "rules.py"
    rules.symlink_to(tmp_path / "one.py")
    before, link = stamp(project, home), os.lstat(rules)
    rules.unlink()
    rules.symlink_to(tmp_path / "two.py")
    os.utime(rules, ns=(link.st_atime_ns, link.st_mtime_ns), follow_symlinks=False)
    assert os.stat(rules) == os.stat(tmp_path / "one.py")
    assert stamp(project, home) != before


def _installed(project: Path) -> dict[str, Any]:
    """The project trusted and its Claude Code hooks installed (the command client)."""
    TrustStore(Path.home()).trust(project)
    args = ["install", "claude-code", "--project", str(project)]
    done = run_cli(args, dict(os.environ), timeout=60)
    assert done.returncode == 0, done.stderr
    hooks = json.loads((project / ".claude" / "settings.local.json").read_text())["hooks"]
    return {event: groups[0]["hooks"][0] for event, groups in hooks.items()}


def _ask(hooks: dict[str, Any], project: Path, event: str, **fields: Any) -> Any:
    done = run_installed(hooks[event]["command"], hook_input(project, event, **fields), project)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout).get("hookSpecificOutput")


def _context(hooks: dict[str, Any], project: Path) -> str:
    answer = _ask(hooks, project, "UserPromptSubmit", prompt="hi")
    return str(answer["additionalContext"])


@pytest.mark.parametrize("in_place", [False, True], ids=["renamed", "rewritten"])
def test_the_daemon_runs_a_swapped_python_hook(
    tmp_path: Path, in_place: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python's bytecode cache, trusted on size and mtime, is not what runs either."""
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    project = make_project(tmp_path / "proj")
    hooks = _installed(project)
    rules = project / ".hookwright" / "rules.py"
    compile_all = [sys.executable, "-m", "compileall", "-q", str(rules.parent)]
    subprocess.run(compile_all, check=True, timeout=60)
    assert _context(hooks, project) == "HOUSE-RULES: answer in one line."
    _same_size_and_mtime(
        rules, rules.read_text().replace("one line.", "ONE LINE!"), in_place=in_place
    )
    assert _context(hooks, project) == "HOUSE-RULES: answer in ONE LINE!"


def test_the_daemon_follows_a_retargeted_hook_link(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    rules = project / ".hookwright" / "rules.py"
    (tmp_path / "lib").mkdir()
    first, second = tmp_path / "lib" / "first.py", tmp_path / "lib" / "second.py"
    first.write_text(rules.read_text())
    second.write_text(rules.read_text().replace("one line.", "TWO LINES"))
    rules.unlink()
    rules.symlink_to(first)
    hooks = _installed(project)
    assert _context(hooks, project) == "HOUSE-RULES: answer in one line."
    link = os.lstat(rules)
    os.utime(second, ns=(first.stat().st_atime_ns, first.stat().st_mtime_ns))
    rules.unlink()
    rules.symlink_to(second)
    os.utime(rules, ns=(link.st_atime_ns, link.st_mtime_ns), follow_symlinks=False)
    assert _context(hooks, project) == "HOUSE-RULES: answer in TWO LINES"


def test_the_daemon_reloads_a_swapped_hook_declaration(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    hooks = _installed(project)
    rm = {"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}, "tool_use_id": "t1"}
    assert _ask(hooks, project, "PreToolUse", **rm)["permissionDecision"] == "deny"
    declaration = project / ".openharness" / "hooks" / "block-rm.yaml"
    text = declaration.read_text().replace('matcher: "Bash"', 'matcher: "Bask"')
    _same_size_and_mtime(declaration, text, in_place=False)
    assert _ask(hooks, project, "PreToolUse", **rm) is None
