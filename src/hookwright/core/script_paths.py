"""The scripts a command names by a relative path, as an interpreter or the system looks
them up in the folder the command runs in (`relative_scripts`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

#: The endings of a script an interpreter is given by its path.
SCRIPT_SUFFIXES = frozenset(
    {".py", ".js", ".mjs", ".cjs", ".ts", ".sh", ".bash", ".zsh", ".rb", ".pl", ".php", ".lua"}
)
#: Interpreter options whose next argument is code or a module, not a path.
_TAKES_CODE = frozenset({"-c", "-e", "-m", "--eval", "-p", "--print"})


def relative_scripts(command: Sequence[str]) -> list[str]:
    """The relative script paths of `command`: the program when it names a path
    (``./hook.sh``), and each argument that is a path ending as a script does."""
    found: list[str] = []
    skip = False
    for index, arg in enumerate(command):
        if skip or not arg or arg.startswith("-") or os.path.isabs(arg) or " " in arg:
            skip = arg in _TAKES_CODE
            continue
        program_path = index == 0 and "/" in arg
        if program_path or (index > 0 and Path(arg).suffix in SCRIPT_SUFFIXES):
            found.append(arg)
    return found
