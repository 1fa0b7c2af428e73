"""A project's hooks as the `hooks` commands load them: the folder and config files checked,
every dialect's hooks discovered and bound, each problem printed as one line.

Free of typer and rich (see `hookwright.cli.quick`); the engine is imported when hooks are
bound, so reading a project's folder costs no more than its config files do."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from hookwright.loading import LoadContext, LoadResult, discover
from hookwright.trust import TrustPolicy

if TYPE_CHECKING:
    from hookwright.engine import HookEngine


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


def load(
    project: Path, configs: list[Path] | None, policy: TrustPolicy | None = None
) -> tuple[HookEngine, LoadResult]:
    """Discover the project's hooks and bind those `policy` trusts (default: the trust store).
    `LoadResult.declared_by` is keyed by the engine's registered specs."""
    from hookwright.engine import HookEngine

    ctx = context(project, configs)
    result = discover(ctx).bind(policy or trust_store())
    engine = HookEngine()
    declared_by = result.declared_by
    result.declared_by = {}
    for spec in result.specs:
        registered = engine.register(spec)
        if id(spec) in declared_by:
            result.declared_by[id(registered)] = declared_by[id(spec)]
    for diagnostic in result.diagnostics:
        say_err(str(diagnostic))
    return engine, result
