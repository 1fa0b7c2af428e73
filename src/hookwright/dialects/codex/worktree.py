"""Where Codex reads the hooks of a project folder that lies in a linked git worktree.

Measured on Codex CLI 0.171.0, in a worktree made by ``git worktree add``: Codex runs the
hooks of the main checkout's ``.codex`` folders, each at the same place relative to the main
checkout, and not the worktree's (in ``wt/sub``, ``main/.codex`` and ``main/sub/.codex``
ran). Codex's loader finds the checkout (the nearest folder holding a ``.git``) and, when its
``.git`` is a file ``gitdir: <main>/.git/worktrees/<name>``, the main checkout; a folder of
the project at or below the checkout takes its hooks from the main checkout's folder at the
same place, and its ``config.toml`` from its own ``.codex``. A ``.git`` file naming anything
else is no worktree: the folder's own hooks are read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from hookwright.config.safeparse import ParseError, read_text

GITDIR: Final = "gitdir:"
#: A ``.git`` file is a line; anything longer is no worktree's.
_GIT_FILE_LIMIT: Final = 4096


@dataclass(frozen=True, slots=True)
class LinkedWorktree:
    """The worktree's checkout (the folder holding its ``.git`` file) and the main one."""

    checkout: Path
    main: Path

    def hooks_folder(self, codex: Path) -> Path:
        """The ``.codex`` folder whose hooks Codex runs for the project's `codex` folder."""
        try:
            place = codex.parent.relative_to(self.checkout)
        except ValueError:
            return codex
        return self.main / place / ".codex"


def linked_worktree(project: Path, limit: int) -> LinkedWorktree | None:
    """The linked worktree `project` lies in (its ``.git`` at most `limit` folders up)."""
    start = project.absolute()
    for folder in [start, *start.parents][: limit + 1]:
        dot_git = folder / ".git"
        if dot_git.exists():
            return None if dot_git.is_dir() else _main_of(folder, dot_git)
    return None


def _main_of(checkout: Path, dot_git: Path) -> LinkedWorktree | None:
    try:
        text = read_text(dot_git, limit=_GIT_FILE_LIMIT).strip()
    except ParseError:
        return None
    if not text.startswith(GITDIR) or not text[len(GITDIR) :].strip():
        return None
    git_dir = (checkout / text[len(GITDIR) :].strip()).resolve()
    if git_dir.parent.name != "worktrees":
        return None
    main = git_dir.parent.parent.parent
    return None if main == checkout.resolve() else LinkedWorktree(checkout, main)
