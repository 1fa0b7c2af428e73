"""What a shell command's action derivation carries while it walks a script: the words of a
command, what its standard input is, and the scope (folders, depth, actions found)."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, NamedTuple

from hookwright.core.actions import Action, FileDelete, FileRead, FileWrite, ProcExec

__all__ = ["MAX_DEPTH", "Scope", "Stdin", "Word"]

#: How deep `bash -c "bash -c '...'"` is followed before the rest is opaque.
MAX_DEPTH: Final = 6
_SKIPPED_TARGETS: Final = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})


class Word(NamedTuple):
    """One shell word: its unquoted text, or its source text when it holds an expansion."""

    text: str
    dynamic: bool = False


@dataclass(frozen=True, slots=True)
class Stdin:
    """What a command reads on its standard input, as far as the script says: a heredoc's or
    here-string's text, or a pipe."""

    script: str | None = None
    piped: bool = False


NO_STDIN: Final = Stdin()

ScriptReader = Callable[[str, "Scope"], None]
CommandReader = Callable[[list[Word], "Scope", Stdin], None]


@dataclass(slots=True)
class Scope:
    """One derivation: where relative paths point, how deep the nested scripts go, the actions
    found so far, and how to read a nested script or command."""

    cwd: str
    home: str
    read_script: ScriptReader
    read_command: CommandReader
    depth: int = 0
    cwds: list[str] = field(default_factory=list)
    unknown_cwd: bool = False
    out: list[Action] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.cwds = [self.cwd]

    def paths(self, word: Word) -> list[tuple[str, bool]]:
        """(path, dynamic) for every place `word` may name."""
        text = word.text
        if word.dynamic:
            return [(text, True)]
        if text == "~" or text.startswith("~/"):
            text = self.home + text[1:]
        if text.startswith("/"):
            return [(normal_path(text), False)]
        found = [(normal_path(posixpath.join(cwd, text)), False) for cwd in self.cwds]
        if self.unknown_cwd:
            found.append((text, True))
        return found

    def file(self, kind: type[FileRead | FileWrite | FileDelete], word: Word) -> None:
        """Record `kind` on the path(s) `word` names (not on a device such as /dev/null)."""
        if word.text in _SKIPPED_TARGETS or (not word.text and not word.dynamic):
            return
        for path, dynamic in self.paths(word):
            self.out.append(kind(path, dynamic))

    def change_dir(self, target: Word | None) -> None:
        """A `cd`: later relative paths may point under `target` too."""
        if target is None:
            self.cwds.append(self.home)
        elif target.dynamic or target.text == "-":
            self.unknown_cwd = True
        else:
            for path, _ in self.paths(target):
                if path not in self.cwds:
                    self.cwds.append(path)

    def nested(self, script: str) -> None:
        """Read a script run by a program of the command (`bash -c`, `eval`, a heredoc)."""
        if self.depth >= MAX_DEPTH:
            self.out.append(ProcExec((script,), opaque=True))
            return
        self.depth += 1
        try:
            self.read_script(script, self)
        finally:
            self.depth -= 1


def normal_path(path: str) -> str:
    """`path` (absolute) without `.`, `..` and repeated slashes."""
    return "/" + posixpath.normpath(path).lstrip("/")
