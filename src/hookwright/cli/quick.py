"""The command line's fast path: a plain `hookwright hooks test` or `hookwright hook
claude-code` without typer, click or rich, so a host or a script that runs it per event pays
for the engine and the hooks, not for the command framework.

`parse` accepts only what it is sure typer reads the same way: `hooks test EVENT` with
`--project`/`-p DIR`, `--input`/`-i FILE` and `--config`/`-c FILE` (repeatable), each option
and its value as two words. Anything else (`--help`, `--explain`, `--opt=value`, a value that
starts with `-`, an option given twice, a path typer's checks refuse, shell completion)
returns None, and the full command line runs instead. `parse_claude_hook` does the same for
`hook claude-code [--project DIR]`. `command` gives what either runs: the typer command's body
(`hooks_test.run`, `claude_hook.run`) with its exit codes for interrupts and closed pipes, its
modules imported before it runs (`hookwright.cli.main` imports them in `lean_imports`).
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from hookwright.cli.hooks_test import HooksTest

#: Set by a shell asking typer for completions: typer answers that, not this path.
_COMPLETION_ENV = "_HOOKWRIGHT_COMPLETE"
_OPTIONS = {
    "--project": "project",
    "-p": "project",
    "--input": "input",
    "-i": "input",
    "--config": "config",
    "-c": "config",
}


def parse(argv: Sequence[str]) -> HooksTest | None:
    """The arguments of a plain `hooks test` command line, else None."""
    if len(argv) < 3 or argv[0] != "hooks" or argv[1] != "test" or _COMPLETION_ENV in os.environ:
        return None
    values: dict[str, str] = {}
    configs: list[str] = []
    events: list[str] = []
    words = iter(argv[2:])
    for word in words:
        name = _OPTIONS.get(word)
        if name is None:
            if word.startswith("-"):
                return None
            events.append(word)
            continue
        value = next(words, "")
        if not value or (value.startswith("-") and (name, value) != ("input", "-")):
            return None
        if name == "config":
            configs.append(value)
        elif name in values:
            return None
        else:
            values[name] = value
    project = values.get("project", ".")
    if len(events) != 1 or not _typer_accepts(project, dir_only=True):
        return None
    if not all(_typer_accepts(config, dir_only=False) for config in configs):
        return None
    from hookwright.cli.hooks_test import HooksTest

    return HooksTest(
        event=events[0],
        input_file=values.get("input"),
        project=Path(project),
        configs=[Path(config) for config in configs] or None,
    )


class ClaudeHook(NamedTuple):
    """The arguments of a plain `hook claude-code` command line."""

    project: Path | None


def parse_claude_hook(argv: Sequence[str]) -> ClaudeHook | None:
    """`hook claude-code`, alone or with `--project`/`-p DIR` (two words, a directory typer
    accepts), else None."""
    if argv[:2] != ["hook", "claude-code"] or _COMPLETION_ENV in os.environ:
        return None
    rest = argv[2:]
    if not rest:
        return ClaudeHook(None)
    if len(rest) != 2 or rest[0] not in ("--project", "-p"):
        return None
    project = rest[1]
    if not project or project.startswith("-") or not _typer_accepts(project, dir_only=True):
        return None
    return ClaudeHook(Path(project))


def _typer_accepts(path: str, *, dir_only: bool) -> bool:
    """What typer's path check lets through: a missing path, or a readable one (not a file
    where a directory is wanted)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return True
    if dir_only and stat.S_ISREG(mode):
        return False
    return os.access(path, os.R_OK)


def command(argv: Sequence[str]) -> Callable[[], int] | None:
    """What a plain `hooks test` or `hook claude-code` command line runs (returning its exit
    code), every module it runs already imported, so that `hookwright.cli.main` imports them
    all inside `lean_imports` and runs the command after; None for any other command line."""
    hook = parse_claude_hook(argv)
    if hook is not None:
        return _claude_hook_command(hook)
    args = parse(argv)
    if args is None:
        return None
    from hookwright.cli.hooks_test import run as run_hooks_test

    # the typer command's handling of interrupts and closed pipes
    return lambda: _guarded(lambda: run_hooks_test(args))


def _claude_hook_command(args: ClaudeHook) -> Callable[[], int]:
    """`hook claude-code`, adopting what its hooks detach as the command line does."""
    from hookwright.bridges import claude_hook
    from hookwright.transports.adoption import enable_subreaper

    def run() -> int:
        enable_subreaper()
        return _guarded(lambda: claude_hook.run(sys.stdin.buffer.read(), args.project))

    return run


def _guarded(command: Callable[[], int]) -> int:
    """`command`'s exit code, or the typer command line's for an interrupt or a closed pipe."""
    try:
        return command()
    except KeyboardInterrupt:
        return 130
    except EOFError:
        sys.stderr.write("\n")
        sys.stderr.write("hookwright: interrupted\n")
        return 130
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        sys.stdout = _QuietFlush(sys.stdout)
        sys.stderr = _QuietFlush(sys.stderr)
        return 1


class _QuietFlush:
    """A stream whose flush ignores a closed pipe (as click leaves stdout after EPIPE)."""

    def __init__(self, wrapped: Any) -> None:
        self._wrapped = wrapped

    def flush(self) -> None:
        try:
            self._wrapped.flush()
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self._wrapped, name)
