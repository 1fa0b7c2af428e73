"""`hookwright picoclaw-process`: the program to list in PicoClaw's `hooks.processes`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from hookwright.bridges.picoclaw_process import serve


def picoclaw_process(
    project: Annotated[
        Path,
        typer.Option(
            "--project",
            "-p",
            help="The project whose hooks answer PicoClaw.",
            file_okay=False,
            metavar="DIR",
        ),
    ],
) -> None:
    """Serve PicoClaw's process-hook protocol (JSON-RPC over stdio) with the project's
    Claude Code, OpenHarness, skill and Python hooks (see docs/hosts.md)."""
    if not project.is_dir():
        sys.stderr.write(f"hookwright: error: project directory {project} does not exist\n")
        raise typer.Exit(code=2)
    raise typer.Exit(code=serve(project))
