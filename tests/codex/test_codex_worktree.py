"""A project in a linked git worktree: Codex CLI 0.171.0 runs the hooks of the main
checkout's `.codex` folders, not the worktree's (measured), and so does hookwright. Through
`python -m hookwright run` in `wt/sub` of a worktree made by `git worktree add`."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.cli_runner import run_hookwright
from tests.codex.project import command, script
from tests.codex.test_codex_nested import ran, run

from hookwright.config.loading import LoadContext
from hookwright.dialects.codex.layers import read_layers
from hookwright.dialects.codex.review import review_key, trusted_hash
from hookwright.dialects.codex.worktree import linked_worktree

GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.org",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.org",
}


def git(*args: str) -> None:
    subprocess.run(["git", *args], check=True, capture_output=True, env=GIT_ENV, timeout=60)


def worktree(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """(home, main checkout, worktree, log): a logging hook in `.codex` and `sub/.codex` of
    both checkouts (not committed), every one reviewed."""
    home, main, wt, log = tmp_path / "home", tmp_path / "main", tmp_path / "wt", tmp_path / "log"
    git("init", "-q", str(main))
    (main / "f").write_text("x")
    git("-C", str(main), "add", "f")
    git("-C", str(main), "commit", "-qm", "x")
    git("-C", str(main), "worktree", "add", "-q", str(wt))
    for folder, label in (
        (main, "main"),
        (main / "sub", "mainsub"),
        (wt, "wt"),
        (wt / "sub", "wtsub"),
    ):
        (folder / ".codex").mkdir(parents=True)
        hooks = {"UserPromptSubmit": command(f"echo {label} >> {log}")}
        (folder / ".codex" / "hooks.json").write_text(json.dumps({"hooks": hooks}))
    (home / ".codex").mkdir(parents=True)
    declared = [
        hook
        for project in (main / "sub", wt / "sub")
        for hook in read_layers(LoadContext(project, home), []).hooks
    ]
    reviews = [
        f'[hooks.state."{review_key(h)}"]\ntrusted_hash = "{trusted_hash(h)}"\n' for h in declared
    ]
    (home / ".codex" / "config.toml").write_text("".join(dict.fromkeys(reviews)))
    return home, main, wt, log


def test_a_worktree_runs_the_main_checkout_s_hooks(tmp_path: Path) -> None:
    home, main, wt, log = worktree(tmp_path)
    assert linked_worktree(wt / "sub", 64) is not None
    for folder in (main, wt):
        assert run_hookwright("trust", str(folder), home=home).returncode == 0
    run(home, wt / "sub", script(tmp_path / "s.json", [{"content": "ok"}]))
    assert ran(log) == ["main", "mainsub"]


def test_the_main_checkout_s_hooks_need_the_main_checkout_trusted(tmp_path: Path) -> None:
    """hookwright trusts the folder the hooks are read from: the worktree's trust is not
    enough for the main checkout's hooks."""
    home, main, wt, log = worktree(tmp_path)
    assert run_hookwright("trust", str(wt), home=home).returncode == 0
    said = run(home, wt / "sub", script(tmp_path / "s.json", [{"content": "ok"}]))
    assert ran(log) == []
    assert f"hookwright trust {main}" in said


def test_a_git_file_naming_no_worktree_keeps_the_folder_s_own_hooks(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / ".git").write_text("gitdir: /nowhere/modules/x\n")
    assert linked_worktree(tmp_path / "p", 64) is None
    (tmp_path / "p" / ".git").write_text("not a pointer")
    assert linked_worktree(tmp_path / "p", 64) is None
