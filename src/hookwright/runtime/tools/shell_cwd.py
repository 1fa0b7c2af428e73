"""The Bash tool's persistent working directory, as Claude Code keeps it.

A command runs as `eval '<command>' && pwd -P >| <record>`: only a command that succeeds moves
the shell (a failing one, or one that ends with `exit`, leaves it where it was), and the
directory is read from a private file rather than from the command's output. Measured
against Claude Code 2.1.240:

* a directory inside the project is kept (as its physical path, symlinks resolved);
* a directory outside it is not: the shell goes back to the project and the tool result's
  `stderr` says `Shell cwd was reset to <project>`;
* a directory that was removed makes the next command run in the project;
* with `CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR` set, every command starts in the project.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from hookwright.runtime.tools.base import ToolContext

MAINTAIN_PROJECT_DIR: Final = "CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR"
_TRUTHY: Final = frozenset({"1", "true", "yes", "on"})


@dataclass(frozen=True, slots=True)
class Settled:
    """Where the shell is after a command: `cwd` None when it did not record one."""

    cwd: Path | None = None
    note: str = ""
    """Claude Code's `stderr` when the shell was sent back to the project."""


@contextlib.contextmanager
def cwd_record() -> Iterator[Path]:
    """A private empty file for one command's final directory, removed afterwards."""
    fd, name = tempfile.mkstemp(prefix="hookwright-cwd-")
    os.close(fd)
    path = Path(name)
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)


def tracked(command: str, record: Path) -> str:
    """The script that runs `command` and records the directory it ends in when it succeeds."""
    return f"eval {shlex.quote(command)} && pwd -P >| {shlex.quote(str(record))}"


def start_dir(ctx: ToolContext) -> Path | None:
    """Where the next command runs: the session's directory, or the project once that is
    gone; None when neither exists."""
    for candidate in (ctx.cwd, ctx.project_dir):
        if candidate is not None and candidate.is_dir():
            return candidate
    return None


def settle(record: Path, ran_in: Path, ctx: ToolContext, env: Mapping[str, str]) -> Settled:
    """The session's directory after a command that ran in `ran_in`."""
    raw = record.read_bytes().removesuffix(b"\n")
    if not raw:
        return Settled()
    physical = os.fsdecode(raw)
    project = ctx.project_dir
    if project is not None and env.get(MAINTAIN_PROJECT_DIR, "").lower() in _TRUTHY:
        return Settled(project)
    if physical == os.path.realpath(ran_in):
        return Settled(ran_in)
    if project is None:
        return Settled(Path(physical))
    inside = _inside(physical, os.path.realpath(project))
    if inside is None:
        return Settled(project, f"\nShell cwd was reset to {project}")
    return Settled(project / inside if inside else project)


def _inside(path: str, root: str) -> str | None:
    """`path` relative to `root` ("" for the root itself), or None when it lies outside."""
    if path == root:
        return ""
    prefix = root.rstrip("/") + "/"
    return path[len(prefix) :] if path.startswith(prefix) else None
