"""`hookwright install|uninstall gemini` and `hookwright hook gemini`: a project's hooks
inside a real Gemini CLI (see docs/gemini.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from hookwright.bridges import gemini_hook, gemini_settings
from hookwright.bridges.claude_settings import SettingsError, Target
from hookwright.cli.hosts import answer_stdin, fail, warn_when_untrusted
from hookwright.core.home import user_home

HOST = "gemini"

ProjectOpt = Annotated[
    Path | None,
    typer.Option(
        "--project", "-p", help="Install into DIR/.gemini/settings.json.", file_okay=False
    ),
]
UserOpt = Annotated[
    bool, typer.Option("--user", help="Install for every project (~/.gemini/settings.json).")
]


def _target(project: Path | None, user: bool) -> Target:
    if (project is None) == (not user):
        raise fail("give exactly one of --project DIR or --user")
    if project is not None and not project.is_dir():
        raise fail(f"project directory {project} does not exist")
    return gemini_settings.target(project, user_home())


def install_gemini(project: ProjectOpt = None, user: UserOpt = False) -> None:
    """Add hooks to Gemini CLI's settings so each Gemini event runs the project's Claude
    Code, OpenHarness, PicoClaw, Codex, skill and Python hooks (its Gemini hooks stay
    Gemini's)."""
    target = _target(project, user)
    home = user_home()
    try:
        changed = gemini_settings.install_gemini(target, home)
    except SettingsError as exc:
        raise fail(str(exc)) from None
    verb = "installed into" if changed else "already installed in"
    typer.echo(f"hookwright {verb} {target.settings}")
    if target.project is None:
        return
    problem = gemini_settings.gemini_trust_problem(target.project, home)
    if problem is not None:
        sys.stderr.write(f"hookwright: warning: {problem}\n")
    warn_when_untrusted(target.project, "Gemini CLI", gemini_hook.EXCLUDED)


def uninstall_gemini(project: ProjectOpt = None, user: UserOpt = False) -> None:
    """Remove exactly the hooks `install gemini` added."""
    target = _target(project, user)
    try:
        changed = gemini_settings.uninstall_gemini(target, user_home())
    except SettingsError as exc:
        raise fail(str(exc)) from None
    verb = "removed from" if changed else "not installed in"
    typer.echo(f"hookwright {verb} {target.settings}")


def hook_gemini(
    project: Annotated[
        Path | None, typer.Option("--project", "-p", help="Project directory.", file_okay=False)
    ] = None,
) -> None:
    """Read one Gemini CLI hook input on stdin; print Gemini's hook answer. An input that
    cannot be read exits 2 (Gemini blocks the action); a hook that failed where nothing
    blocked exits 1 (Gemini warns and goes on)."""
    answer_stdin(
        gemini_hook.answer,
        project,
        unreadable_exit=2,
        unreadable="cannot judge this Gemini hook input",
    )


def register(install_app: typer.Typer, uninstall_app: typer.Typer, hook_app: typer.Typer) -> None:
    install_app.command(HOST)(install_gemini)
    uninstall_app.command(HOST)(uninstall_gemini)
    hook_app.command(HOST)(hook_gemini)
