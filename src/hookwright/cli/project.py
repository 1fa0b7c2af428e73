"""A project's hooks as the `hooks` commands load them: the folder and config files checked,
every dialect's hooks discovered and bound, each problem printed as one line.

Free of typer and rich (see `hookwright.cli.quick`); the engine is imported when hooks are
bound, so reading a project's folder costs no more than its config files do."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from hookwright.config.loading import LoadContext, LoadResult
from hookwright.config.trust import TrustPolicy
from hookwright.dialects import discover

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


def context(project: Path, configs: list[Path] | None) -> LoadContext:
    project = project.resolve()
    if not project.is_dir():
        raise CliError(f"project directory {project} does not exist")
    files = [Path(c) for c in configs or []]
    for file in files:
        if not file.is_file():
            raise CliError(f"config file {file} does not exist")
    return LoadContext(project_dir=project, home=Path.home(), config_files=files)


def trust_store() -> TrustPolicy:
    try:
        return TrustPolicy.load(Path.home())
    except ValueError as exc:
        raise CliError(str(exc)) from None


def bound(
    project: Path, configs: list[Path] | None, policy: TrustPolicy | None = None
) -> LoadResult:
    """Discover the project's hooks and bind those `policy` trusts (default: the trust store).

    Binding runs hook code (modules imported, factories called) and the hooks may run next, so
    when there are hooks hookwright first becomes the subreaper of what they detach (see
    `transports.adoption`; the full command line has turned it on already)."""
    discovery = discover(context(project, configs))
    if discovery.hooks:
        from hookwright.transports.adoption import enable_subreaper

        enable_subreaper()
    return discovery.bind(policy or trust_store())


def engine_for(result: LoadResult) -> HookEngine:
    """An engine with `result`'s specs registered; `result.declared_by` is re-keyed by the
    registered specs."""
    from hookwright.engine.kernel import HookEngine

    engine = HookEngine()
    declared_by = result.declared_by
    result.declared_by = {}
    for spec in result.specs:
        registered = engine.register(spec)
        if id(spec) in declared_by:
            result.declared_by[id(registered)] = declared_by[id(spec)]
    return engine


def say_diagnostics(result: LoadResult) -> None:
    for diagnostic in result.diagnostics:
        say_err(str(diagnostic))


def load(
    project: Path, configs: list[Path] | None, policy: TrustPolicy | None = None
) -> tuple[HookEngine, LoadResult]:
    """`bound`, registered on a new engine, each problem printed."""
    result = bound(project, configs, policy)
    engine = engine_for(result)
    say_diagnostics(result)
    return engine, result
