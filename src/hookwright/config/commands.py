"""Whether a command hook's program is there: checked when a project is opened, nothing run.

Only a first word that is a path (it has a `/`) is checked, after the variables the command
will see are put in (`$CLAUDE_PROJECT_DIR`, `${HOME}`, ...); a bare name (`python3`,
`node`) is looked up by the shell when the hook runs, and a word with a variable the check
does not know, or a command the shell cannot split, is left to the run.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal, TypeAlias

CommandProblem: TypeAlias = "Literal['missing_command', 'not_executable']"


@dataclass(frozen=True, slots=True)
class ProgramProblem:
    """A hook's program that cannot start, as its dialect found it when the hook was read
    (a PicoClaw process's program or script, resolved against its `dir`): the problem, the
    resolved `path` that is missing, and `fix`, what makes it run, naming the field."""

    problem: CommandProblem
    path: str
    fix: str


#: A ``$NAME`` or ``${NAME}`` (compiled by `re` at its first use: most answers never check
#: a command).
_VARIABLE = r"\$(?:\{(\w+)\}|(\w+))"


def command_problem(
    command: str, *, cwd: Path, variables: Mapping[str, str]
) -> tuple[CommandProblem, str] | None:
    """Why the program `command` starts with cannot run, and its path; None when it can, or
    when the check cannot tell."""
    import shlex  # here: only a hook's command is checked

    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words:
        return None
    first = _expanded(words[0], variables)
    if first is None or "/" not in first:
        return None
    path = Path(first).expanduser()
    if not path.is_absolute():
        path = cwd / path
    try:
        exists = path.exists()
        runnable = path.is_file() and os.access(path, os.X_OK)
    except (OSError, ValueError):
        return None
    if not exists:
        return "missing_command", str(path)
    if not runnable:
        return "not_executable", str(path)
    return None


def _expanded(word: str, variables: Mapping[str, str]) -> str | None:
    """`word` with its variables put in; None when one of them is not known here."""
    unknown = False

    def value(match: re.Match[str]) -> str:
        nonlocal unknown
        name = match.group(1) or match.group(2)
        if name not in variables:
            unknown = True
            return ""
        return variables[name]

    expanded = re.sub(_VARIABLE, value, word)
    return None if unknown else expanded
