"""Which command hooks are a plain Python script invocation the warm runner may take.

`plain_invocation` reads a command the way the shell (or, in exec form, the kernel) would run
it and answers an `Invocation` only when nothing but "start this Python on this script with
these arguments" can happen: simple words (no expansions, redirections, globs, assignments,
comments), an interpreter word named ``python``/``python3``/``python3.N`` followed directly by
a script (no interpreter options), or an executable script whose first line is exactly
``#!/usr/bin/env pythonX`` or ``#!/abs/path/pythonX``. The script must be a regular file of
Python source (not a zip application, compiled bytecode or a file with NUL bytes). Anything
else is None: the hook is spawned as it always was.

The interpreter found must be a native executable, or a version manager's shim: a script of
pyenv or asdf that picks an installed Python from the environment and version files, then
execs it. A shim's pick is learnt by running it (the warm runner's probe) and kept only while
what it picks from stays the same (`Shim.state`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.util import MAGIC_NUMBER
from pathlib import Path

from hookwright.config.fingerprint import fingerprint

_PYTHON_NAME = re.compile(r"python(3(\.\d+)?)?")
_UNQUOTED = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:,+@%-=")
_IN_DOUBLE_QUOTES_NOT = frozenset('"$`\\!\n')
_BLANKS = " \t"
_ENV_SHEBANG = re.compile(rb"#!/usr/bin/env (python(3(\.\d+)?)?)\n")
_PATH_SHEBANG = re.compile(rb"#!(/[^\s]*/python(3(\.\d+)?)?)\n")
#: Shell start-up variables that make a shell read files or define functions.
SHELL_HOOKS = ("BASH_ENV", "ENV")
#: How a pyenv or asdf shim hands over to its manager (the line it execs).
_SHIM_EXEC = re.compile(rb"""(pyenv|asdf)["']? exec """)
_SHIM_HEAD = 4096
#: The environment a shim's manager reads, and the files naming a version that it looks for
#: in the working folder and each folder above it.
_SHIM_VARIABLES = ("PYENV_", "ASDF_")
_VERSION_FILES = (".python-version", ".tool-versions")


@dataclass(frozen=True, slots=True)
class Shim:
    """A pyenv or asdf shim standing for the interpreter."""

    manager: str

    def state(self, env: Mapping[str, str], cwd: str) -> tuple[object, ...]:
        """What the shim picks the interpreter from: its manager's variables, HOME, and the
        fingerprint of every version file it may read (the working folder's, each parent's,
        pyenv's global `version` file, asdf's in HOME)."""
        variables = tuple(
            (name, value) for name, value in env.items() if name.startswith(_SHIM_VARIABLES)
        )
        home = env.get("HOME", "")
        folders = [cwd, *(str(parent) for parent in Path(cwd).parents)]
        start = env.get("PYENV_DIR")
        if start:
            folders += [start, *(str(parent) for parent in Path(start).parents)]
        files = [os.path.join(folder, name) for folder in folders for name in _VERSION_FILES]
        root = env.get("PYENV_ROOT") or os.path.join(home, ".pyenv")
        files += [os.path.join(root, "version"), os.path.join(home, ".tool-versions")]
        custom = env.get("ASDF_DEFAULT_TOOL_VERSIONS_FILENAME")
        if custom:
            files += [os.path.join(folder, custom) for folder in folders]
        return variables, home, tuple(fingerprint(file) for file in files)


def shim_of(path: str) -> Shim | None:
    """The pyenv or asdf shim `path` is, or None (a script of anything else)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(_SHIM_HEAD)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    found = _SHIM_EXEC.search(head)
    return Shim(found.group(1).decode()) if found is not None else None


@dataclass(frozen=True, slots=True)
class Word:
    """One shell word: its text after quote removal and as written."""

    value: str
    raw: str


@dataclass(frozen=True, slots=True)
class Invocation:
    """A Python script run: `launcher` starts the interpreter (the words before the script,
    as written, for a probe to reuse), `interpreter` is the executable found for it, `script`
    is the script as the interpreter receives it (``sys.argv[0]``)."""

    launcher: tuple[Word, ...]
    interpreter: str
    script: str
    args: tuple[str, ...]
    #: The script is run through its shebang line (so the shell's ``_`` names the script).
    shebang: bool
    #: `interpreter` is a version manager's shim: the probe learns the Python it runs.
    shim: Shim | None = None


def shell_words(command: str) -> list[Word] | None:
    """The words of a command made only of plain and simply quoted words, or None."""
    words: list[Word] = []
    i, n = 0, len(command)
    while i < n:
        if command[i] in _BLANKS:
            i += 1
            continue
        start, value = i, []
        while i < n and command[i] not in _BLANKS:
            char = command[i]
            if char in "'\"":
                end = command.find(char, i + 1)
                if end == -1:
                    return None
                inner = command[i + 1 : end]
                if char == '"' and any(c in _IN_DOUBLE_QUOTES_NOT for c in inner):
                    return None
                value.append(inner)
                i = end + 1
            elif char in _UNQUOTED:
                value.append(char)
                i += 1
            else:
                return None
        words.append(Word("".join(value), command[start:i]))
    if not words or "=" in words[0].raw:
        return None
    return words


def find_executable(name: str, env: Mapping[str, str]) -> str | None:
    """Where a PATH search finds `name` (an absolute path as the search joins it), or None
    when the search is not certain (a relative or empty PATH entry comes first)."""
    for entry in env.get("PATH", os.defpath).split(":"):
        if not entry.startswith("/"):
            return None
        candidate = os.path.join(entry, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def is_native(path: str) -> bool:
    try:
        with open(os.path.realpath(path), "rb") as fh:
            return fh.read(4) == b"\x7fELF"
    except OSError:
        return False


def _is_source(path: Path) -> bool:
    """A regular file of Python source: not bytecode, not a zip application, no NUL."""
    try:
        if not path.is_file() or path.suffix in (".pyc", ".pyo"):
            return False
        data = path.read_bytes()
    except OSError:
        return False
    if b"\0" in data or data[:2] == MAGIC_NUMBER[:2]:
        return False
    import zipfile

    return not zipfile.is_zipfile(path)


@dataclass(frozen=True, slots=True)
class _Found:
    path: str
    shim: Shim | None


def _interpreter(word: str, env: Mapping[str, str]) -> _Found | None:
    """The interpreter (or shim) a bare ``pythonX`` name or an absolute ``.../pythonX`` path
    runs."""
    if not _PYTHON_NAME.fullmatch(os.path.basename(word)):
        return None
    if "/" in word and not word.startswith("/"):
        return None
    found = word if word.startswith("/") else find_executable(word, env)
    if found is None:
        return None
    if is_native(found):
        return _Found(found, None)
    shim = shim_of(found)
    return _Found(found, shim) if shim is not None else None


def _shebang_launcher(
    script: Path, env: Mapping[str, str]
) -> tuple[tuple[Word, ...], _Found] | None:
    try:
        with script.open("rb") as fh:
            first = fh.readline(256)
    except OSError:
        return None
    env_form = _ENV_SHEBANG.fullmatch(first)
    if env_form is not None:
        name = env_form.group(1).decode()
        found = _interpreter(name, env)
        words = (Word("/usr/bin/env", "/usr/bin/env"), Word(name, name))
        return (words, found) if found is not None else None
    path_form = _PATH_SHEBANG.fullmatch(first)
    if path_form is not None:
        path = path_form.group(1).decode()
        found = _interpreter(path, env)
        return ((Word(path, path),), found) if found is not None else None
    return None


def _interpreter_run(words: list[Word], env: Mapping[str, str], cwd: str) -> Invocation | None:
    found = _interpreter(words[0].value, env)
    if found is None or len(words) < 2:
        return None
    script = words[1].value
    if not script or script.startswith("-") or not _is_source(Path(cwd, script)):
        return None
    rest = tuple(word.value for word in words[2:])
    return Invocation((words[0],), found.path, script, rest, shebang=False, shim=found.shim)


def _shebang_run(words: list[Word], env: Mapping[str, str], cwd: str) -> Invocation | None:
    script = words[0].value
    path = Path(cwd, script)
    if not os.access(path, os.X_OK) or not _is_source(path):
        return None
    launcher = _shebang_launcher(path, env)
    if launcher is None:
        return None
    rest = tuple(word.value for word in words[1:])
    found = launcher[1]
    return Invocation(launcher[0], found.path, script, rest, shebang=True, shim=found.shim)


def plain_invocation(
    words: list[Word], *, env: Mapping[str, str], cwd: str, shell: bool
) -> Invocation | None:
    """The Python script run `words` are, or None (see the module docstring)."""
    if any(name.startswith("BASH_FUNC_") for name in env):
        return None
    if shell and any(name in env for name in SHELL_HOOKS):
        return None
    first = words[0].value
    if _PYTHON_NAME.fullmatch(os.path.basename(first)):
        return _interpreter_run(words, env, cwd)
    if "/" in first:
        return _shebang_run(words, env, cwd)
    return None
