"""`hookwright install|uninstall claude-code`, `hookwright hook claude-code` and `hookwright
daemon`: a project's hooks inside a real Claude Code (see docs/hosts.md)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from hookwright.bridges import claude_hook, claude_installed, codex_hook, codex_settings, git_ignore
from hookwright.bridges.claude_settings import (
    MODES,
    Mode,
    SettingsError,
    Target,
    install,
    target_for,
    uninstall,
)
from hookwright.cli.daemon import daemon_app
from hookwright.core.home import user_home
from hookwright.host.open import trusted_by_store

HOST = "claude-code"
install_app = typer.Typer(help="Make a host run the project's hooks.", no_args_is_help=True)
uninstall_app = typer.Typer(help="Take out what `install` added.", no_args_is_help=True)
hook_app = typer.Typer(help="Answer one hook event of a host (run by the host).")

ProjectOpt = Annotated[
    Path | None,
    typer.Option("--project", "-p", help="Install into this project.", file_okay=False),
]
UserOpt = Annotated[bool, typer.Option("--user", help="Install for every project (~/.claude).")]
ModeOpt = Annotated[
    str,
    typer.Option(
        "--mode",
        metavar="command|http",
        help="command: a command hook running the daemon's thin client (falls back to "
        "in-process); http: http hooks to the daemon on 127.0.0.1 with a token.",
    ),
]

VersionOpt = Annotated[
    str | None,
    typer.Option(
        "--claude-code-version",
        metavar="X.Y.Z",
        help="The Claude Code CLI the hooks are for (default: what `claude --version` on "
        "PATH prints). 2.1.295 and later get onFailure: block.",
    ),
]


def fail(message: str) -> typer.Exit:
    sys.stderr.write(f"hookwright: error: {' '.join(message.split())}\n")
    return typer.Exit(code=2)


def _target(project: Path | None, user: bool) -> Target:
    if (project is None) == (not user):
        raise fail("give exactly one of --project DIR or --user")
    if project is not None and not project.is_dir():
        raise fail(f"project directory {project} does not exist")
    return target_for(project, user_home())


def _mode(given: str) -> Mode:
    for mode in MODES:
        if given == mode:
            return mode
    raise fail(f"unknown --mode {given!r} (known: {', '.join(MODES)})")


@install_app.command(HOST)
def install_claude_code(
    project: ProjectOpt = None,
    user: UserOpt = False,
    mode: ModeOpt = "command",
    claude_code_version: VersionOpt = None,
) -> None:
    """Add hooks to Claude Code's settings so each of its events runs the project's
    OpenHarness, PicoClaw, skill and Python hooks (its own Claude Code hooks stay Claude
    Code's), answered by the per-user `hookwright daemon`."""
    target = _target(project, user)
    chosen = _mode(mode)
    cli = _cli_version(claude_code_version, target.project)
    try:
        changed = install(target, user_home(), chosen, cli.blocks_on_failure)
    except SettingsError as exc:
        raise fail(str(exc)) from None
    verb = "installed into" if changed else "already installed in"
    typer.echo(f"hookwright {verb} {target.settings}")
    typer.echo(_failure_line(cli, chosen))
    if chosen == "http" and target.project is not None:
        _warn_when_committable(target.settings)
    if target.project is not None:
        warn_when_untrusted(target.project, "Claude Code")


def _cli_version(given: str | None, project: Path | None) -> claude_installed.Found:
    if given is not None and claude_installed.parse_version(given) is None:
        raise fail(f"--claude-code-version {given!r} is not a version such as 2.1.332")
    return claude_installed.installed_version(given, os.environ, project)


def _failure_line(cli: claude_installed.Found, mode: Mode) -> str:
    """What the installed hooks do when the daemon (or the client) cannot answer."""
    since = ".".join(map(str, claude_installed.ON_FAILURE_SINCE))
    who = f"Claude Code {cli.shown} ({cli.source})"
    if cli.blocks_on_failure:
        return f"{who}: onFailure: block written; an action hookwright cannot answer is blocked"
    dead = "the daemon is down" if mode == "http" else "the client fails"
    return (
        f"{who}: no onFailure written (needs {since}+); when {dead}, Claude Code lets the "
        "action through (install again after upgrading Claude Code)"
    )


def answer_stdin(
    answer: Callable[[bytes, Path | None], bytes],
    project: Path | None,
    *,
    unreadable_exit: int,
    unreadable: str,
) -> None:
    """A host's hook command: `answer` the hook input on stdin and print its bytes, exiting
    as `claude_hook.run` says (the one body the in-process fallback shares)."""
    code = claude_hook.run(
        sys.stdin.buffer.read(),
        project,
        answer,
        unreadable_exit=unreadable_exit,
        unreadable=unreadable,
    )
    if code:
        raise typer.Exit(code=code)


def warn_when_untrusted(
    project: Path, host: str, exclude: frozenset[str] = claude_hook.EXCLUDED
) -> None:
    """An untrusted project's hooks do not run inside `host`: say so, what they are, and how
    to trust."""
    home = user_home()
    if trusted_by_store(project, home):
        return
    try:
        idle = claude_hook.not_running(project, home, exclude)
    except ValueError as exc:
        sys.stderr.write(f"hookwright: warning: cannot read the trust store: {exc}\n")
        return
    if not idle:
        return
    sys.stderr.write(
        f"hookwright: warning: {project} is not trusted: its hooks will not run inside {host} "
        f"until you run: hookwright trust {project}\n"
    )
    for line in idle:
        sys.stderr.write(f"hookwright:   not run: {line}\n")


def _warn_when_committable(settings: Path) -> None:
    """Say so when git would commit the settings file holding the token (worked out from the
    ignore files alone: no git, nothing the repository configures, runs)."""
    if git_ignore.committable(settings, user_home(), os.environ):
        sys.stderr.write(
            f"hookwright: warning: {settings} holds the daemon's token and git does "
            "not ignore it: add it to .gitignore\n"
        )


@uninstall_app.command(HOST)
def uninstall_claude_code(project: ProjectOpt = None, user: UserOpt = False) -> None:
    """Remove exactly the hooks `install claude-code` added."""
    target = _target(project, user)
    try:
        changed = uninstall(target, user_home())
    except SettingsError as exc:
        raise fail(str(exc)) from None
    verb = "removed from" if changed else "not installed in"
    typer.echo(f"hookwright {verb} {target.settings}")


@hook_app.command(HOST)
def hook_claude_code(
    project: Annotated[
        Path | None, typer.Option("--project", "-p", help="Project directory.", file_okay=False)
    ] = None,
) -> None:
    """Read one Claude Code hook input on stdin; print Claude Code's hook answer."""
    answer_stdin(claude_hook.answer, project, unreadable_exit=1, unreadable="error")


_CODEX_MANAGED = typer.Option(
    "--managed", help="Codex's managed layer (/etc/codex/hooks.json): no review needed."
)


@install_app.command("codex")
def install_codex(managed: Annotated[bool, _CODEX_MANAGED] = False) -> None:
    """Add hooks to the user's Codex `hooks.json` so each Codex event runs the project's
    Claude Code, OpenHarness, PicoClaw, skill and Python hooks (its Codex hooks stay Codex's)."""
    home = user_home()
    try:
        changed = codex_settings.install_codex(home, managed)
    except SettingsError as exc:
        raise fail(str(exc)) from None
    settings = codex_settings.target(home, managed).settings
    typer.echo(f"hookwright {'installed into' if changed else 'already installed in'} {settings}")
    for note in codex_settings.notes(home, managed):
        typer.echo(f"warning: {note}")
    if managed:
        return
    typer.echo(
        "Codex runs these hooks only once you review them: accept them in /hooks in Codex, "
        "or add to its config.toml:"
    )
    for line in codex_settings.review_lines(home):
        typer.echo(f"  {line}")


@uninstall_app.command("codex")
def uninstall_codex(managed: Annotated[bool, _CODEX_MANAGED] = False) -> None:
    """Remove exactly the hooks `install codex` added."""
    home = user_home()
    try:
        changed = codex_settings.uninstall_codex(home, managed)
    except SettingsError as exc:
        raise fail(str(exc)) from None
    settings = codex_settings.target(home, managed).settings
    typer.echo(f"hookwright {'removed from' if changed else 'not installed in'} {settings}")


@hook_app.command("codex")
def hook_codex(
    project: Annotated[
        Path | None, typer.Option("--project", "-p", help="Project directory.", file_okay=False)
    ] = None,
) -> None:
    """Read one Codex hook input on stdin; print Codex's hook answer."""
    answer_stdin(codex_hook.answer, project, unreadable_exit=1, unreadable="error")


def register(app: typer.Typer) -> None:
    from hookwright.cli import gemini_host

    gemini_host.register(install_app, uninstall_app, hook_app)
    app.add_typer(install_app, name="install")
    app.add_typer(uninstall_app, name="uninstall")
    app.add_typer(hook_app, name="hook")
    app.add_typer(daemon_app, name="daemon")
