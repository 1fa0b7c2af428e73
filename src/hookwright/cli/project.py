"""A project's hooks as the `hooks` commands open them: the folder and config files checked,
then opened where every host opens a project (`hookwright.host.open`), each problem printed
as one line.

Free of typer and rich (see `hookwright.cli.quick`); the engine is imported when hooks are
registered, so reading a project's folder costs no more than its config files do."""

from __future__ import annotations

import sys
from collections.abc import Collection, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from hookwright.config.loading import DiscoveredHook
from hookwright.config.trust import TrustPolicy
from hookwright.core.home import user_home
from hookwright.core.tool_names import REFERENCE_AGENT_TOOLS
from hookwright.dialects.claude_profiles import ClaudeCodeProfile, named_profile
from hookwright.host.open import (
    BoundHooks,
    ProjectRefused,
    ProjectScope,
    bind_hooks,
    discover_project,
)

if TYPE_CHECKING:
    from hookwright.engine.kernel import HookEngine


class CliError(Exception):
    """A user error: printed as one line, exit code 2."""


def say_err(line: str) -> None:
    sys.stderr.write(line.rstrip("\n") + "\n")


def error_line(message: str) -> int:
    """Print a user error as one `hookwright: error:` line; returns its exit code."""
    say_err(f"hookwright: error: {' '.join(message.split())}")
    return 2


def checked(project: Path, configs: list[Path] | None) -> tuple[Path, ProjectScope]:
    """The project folder (resolved) and the `--config` files, each checked to exist."""
    project = project.resolve()
    if not project.is_dir():
        raise CliError(f"project directory {project} does not exist")
    files = [Path(c) for c in configs or []]
    for file in files:
        if not file.is_file():
            raise CliError(f"config file {file} does not exist")
    return project, ProjectScope(config_files=files)


def claude_code_profile(version: str | None) -> ClaudeCodeProfile | None:
    """The profile of ``--claude-code-version`` (None when not given); a bad version is a
    `CliError`."""
    if version is None:
        return None
    try:
        return named_profile(version)
    except ValueError as exc:
        raise CliError(f"--claude-code-version: {exc}") from None


def trust_store() -> TrustPolicy:
    try:
        return TrustPolicy.load(user_home())
    except ValueError as exc:
        raise CliError(str(exc)) from None


def bound(
    project: Path,
    configs: list[Path] | None,
    policy: TrustPolicy | None = None,
    claude_code: ClaudeCodeProfile | None = None,
    skills: Sequence[str] | None = (),
) -> BoundHooks:
    """Discover the project's hooks and bind those `policy` trusts (default: the trust store),
    as the Claude Code version `claude_code` (None: the one the settings choose), with the
    prompt hooks of `skills` (None: every skill of `<project>/skills`, as `--skill` would
    enable them for the reference agent, whose tools their `tool_filter` must name).

    Binding runs hook code (modules imported, factories called) and the hooks may run next, so
    when there are hooks hookwright first becomes the subreaper of what they detach (see
    `transports.adoption`; the full command line has turned it on already)."""
    folder, scope = checked(project, configs)
    if skills:
        from hookwright.dialects.skills import unknown_skills

        problem = unknown_skills(folder, list(skills))
        if problem is not None:
            raise CliError(problem)
    scope = replace(scope, claude_code=claude_code, skills=skills, host_tools=REFERENCE_AGENT_TOOLS)
    policy = policy or trust_store()
    home = user_home()
    discovery = discover_project(folder, home, scope, policy)
    if discovery.hooks:
        from hookwright.transports.adoption import enable_subreaper

        enable_subreaper()
    try:
        return bind_hooks(discovery, policy, folder, home, scope)
    except ProjectRefused as exc:
        raise CliError(str(exc)) from None


def engine_for(hooks: BoundHooks) -> tuple[HookEngine, dict[int, DiscoveredHook]]:
    """An engine with `hooks` registered, and the hook each registered spec was declared by
    (keyed by its `id()`)."""
    from hookwright.engine.kernel import HookEngine

    engine = HookEngine()
    return engine, hooks.register(engine)


def say_diagnostics(
    hooks: BoundHooks, *, untrusted_said: bool = False, said_on_rows: Collection[str] = ()
) -> None:
    """Each problem, and each warning about hooks that will not run, on stderr: the lines an
    embedding host gets on `OpenedProject.diagnostics`; with `untrusted_said`, not the
    summary of the hooks the folder's trust keeps from running (the command says it); nor
    the lines `said_on_rows` (a load error the command says on its hook's row)."""
    leave_out = {*(hooks.opened.not_run_summary if untrusted_said else ()), *said_on_rows}
    for line in hooks.opened.diagnostics:
        if line not in leave_out:
            say_err(line)


def unreadable_files(hooks: BoundHooks) -> list[str]:
    """The config files that could not be read or parsed at all (an error about the whole
    file): whatever hooks they declare are unknown, so a listing of the rest is incomplete."""
    failed = (d.file for d in hooks.loaded.diagnostics if d.severity == "error" and not d.path)
    return list(dict.fromkeys(failed))


def load(
    project: Path,
    configs: list[Path] | None,
    policy: TrustPolicy | None = None,
    skills: Sequence[str] | None = (),
    *,
    untrusted_said: bool = False,
) -> tuple[HookEngine, BoundHooks]:
    """`bound`, registered on a new engine, each problem printed (`say_diagnostics`)."""
    hooks = bound(project, configs, policy, skills=skills)
    engine, _ = engine_for(hooks)
    say_diagnostics(hooks, untrusted_said=untrusted_said)
    return engine, hooks
