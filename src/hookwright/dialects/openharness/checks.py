"""What `hooks validate` checks in OpenHarness command hooks beyond their shape: a program
that cannot start.

OpenHarness runs `handler.command` with `sh -c` in `handler.cwd` (the workspace root by
default). When the folder is missing, when the program is a name not found on PATH or a path
that is not there (relative to that folder), or when a script the command names by a
relative path is not there, every call fails (the shell's exit 126 or 127, or the
interpreter's "can't open file") and the run goes on as if the hook were not there: an error
naming the file, the hook and the field, with the fix. A program the shell expands (``$X``,
backticks), a shell builtin or keyword, or a command that does not split into words is not
judged. Nothing runs.
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

from hookwright.config.loading import Diagnostic
from hookwright.core.script_paths import relative_scripts
from hookwright.core.validation import quoted_value
from hookwright.dialects.openharness.binding import redact_all
from hookwright.dialects.openharness.loader import valid_hook_files
from hookwright.dialects.openharness.schema import CommandHandler, HookFile
from hookwright.dialects.openharness.workspace import resolve_inside

#: Words a POSIX shell runs itself: not programs looked up on PATH.
_SHELL_OWN = frozenset(
    {
        *(".", ":", "[", "alias", "bg", "break", "case", "cd", "command", "continue", "echo"),
        *("eval", "exec", "exit", "export", "false", "fg", "for", "getopts", "hash", "if"),
        *("jobs", "kill", "printf", "pwd", "read", "readonly", "return", "set", "shift"),
        *("source", "test", "times", "trap", "true", "type", "ulimit", "umask", "unalias"),
        *("unset", "until", "wait", "while", "{", "(", "!"),
    }
)
#: Tokens that end the first simple command of a shell line.
_OPERATORS = frozenset({"|", "||", "&&", ";", "&"})
_UNRUNNABLE = "every call fails and the run goes on as if the hook were not there"


def check(root: Path, home: Path) -> list[Diagnostic]:
    """A diagnostic per OpenHarness command hook of the workspace `root` that cannot start."""
    problems: list[Diagnostic] = []
    for file, hook, secrets in valid_hook_files(root, home=home):
        if isinstance(hook.handler, CommandHandler):
            found = _command(file, hook, hook.handler, root.resolve())
            problems += [
                Diagnostic(d.file, d.path, redact_all(d.message, set(secrets))) for d in found
            ]
    return problems


def _command(file: str, hook: HookFile, handler: CommandHandler, root: Path) -> list[Diagnostic]:
    said = f"hook {hook.name!r}"
    cwd = resolve_inside(root, handler.cwd or ".")
    if cwd is None:  # reported by discovery
        return []
    if not cwd.is_dir():
        message = f"{said}: {cwd} is not a folder, so the command cannot run there; {_UNRUNNABLE}"
        return [Diagnostic(file, "handler.command", f"{message}; fix: create it or correct cwd")]
    words = _first_command(handler.command)
    found = _program_missing(words[0], cwd, handler.environment or {}) if words else None
    if words and found is None:
        alone = not any(operator in handler.command for operator in "|;&")
        found = _script_missing(words, cwd, alone)
    if found is None:
        return []
    why, effect, fix = found
    message = f"{said}: {why} (command {quoted_value(handler.command)}); {effect}; fix: {fix}"
    return [Diagnostic(file, "handler.command", message)]


def _script_missing(words: list[str], cwd: Path, alone: bool) -> tuple[str, str, str] | None:
    """Why a script the command names by a relative path is not there, what every call
    does then (`alone`: the command is that one program, whose exit status is the hook's),
    and the fix; None when each is there."""
    scripts = relative_scripts(words)
    if scripts[:1] == words[:1]:  # the program itself, checked already
        scripts = scripts[1:]
    missing = [script for script in scripts if not (cwd / script).exists()]
    if not missing:
        return None
    effect = _UNRUNNABLE
    if Path(words[0]).name.startswith("python") and alone:  # "can't open file": exit 2
        effect = "every call blocks: python exits 2 for a missing script (a block)"
    fix = "correct the path, or set cwd to the folder that holds it"
    return f"{missing[0]} is not in {cwd}, the folder the command runs in", effect, fix


def _first_command(command: str) -> list[str]:
    """The words of the command's first simple command, without leading assignments; none
    when it does not split or its program is not a file the shell looks up."""
    try:
        words = shlex.split(command)
    except ValueError:
        return []
    first: list[str] = []
    for word in words:
        if word in _OPERATORS:
            break
        if "<" in word or ">" in word:  # a redirection
            continue
        if first or "=" not in word.partition("/")[0]:
            first.append(word)
    if not first or first[0] in _SHELL_OWN or any(c in first[0] for c in "$`<>(){}*?[~"):
        return []
    return first


def _program_missing(
    program: str, cwd: Path, environment: dict[str, str]
) -> tuple[str, str, str] | None:
    """Why the program cannot start, what every call does then, and the fix; None when it is
    there."""
    if "/" not in program:
        search = environment.get("PATH", os.environ.get("PATH", os.defpath))
        if shutil.which(program, path=search) is not None:
            return None
        fix = f"install {program}, or name it by its path"
        return f"{program} is not found on PATH", _UNRUNNABLE, fix
    path = cwd / program
    if not path.exists():
        if os.path.isabs(program):
            return f"{program} does not exist", _UNRUNNABLE, "correct the path"
        fix = "correct the path, or set cwd to the folder that holds it"
        return f"{program} is not in {cwd}, the folder the command runs in", _UNRUNNABLE, fix
    if path.is_dir() or not os.access(path, os.X_OK):
        return f"{path} is not executable", _UNRUNNABLE, f"chmod +x {shlex.quote(str(path))}"
    return None
