"""Claude Code's words for a Read or an Edit of a file that does not exist, with its
``Did you mean X?`` hint (measured with 2.1.240 and 2.1.332; the rules are those of its file
tools)::

    File does not exist. Note: your current working directory is <cwd>. Did you mean notes.txt?

Two hints, the first that applies:

- the path lies beside the working directory, under its parent folder (the project's folder
  left out of it: ``<parent>/src/app.py`` for ``<cwd>/src/app.py``), and the same relative
  path under the working directory exists: the hint is that path, in full;
- the path's folder holds another entry with the same stem (the name without its extension;
  compared case-sensitively, any extension or none, folders included): the hint is that
  entry's name alone, the first in the folder's listing order. 2.1.332 takes only an entry
  whose extension is plain (a dot and 1 to 32 letters, digits or ``_+~#-``), 2.1.240 any
  (`ClaudeCodeProfile.plain_hint_extensions`).

A typo, another case or a file in another folder gets no hint.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path
from typing import Final

#: The characters of a plain extension beside letters and digits.
EXTENSION_MARKS: Final = frozenset("_+~#-")


def missing_file_message(path: Path, cwd: Path, *, plain_extensions: bool) -> str:
    """Claude Code's message for a missing `path` (absolute, `..` folded) read or edited from
    `cwd`, with its hint when one applies."""
    message = f"File does not exist. Note: your current working directory is {cwd}."
    hint = _beside_project(path, cwd) or _same_stem(path, plain_extensions)
    return f"{message} Did you mean {hint}?" if hint else message


def _beside_project(path: Path, cwd: Path) -> str | None:
    """`path` moved under `cwd` when it lies under `cwd`'s parent but outside `cwd` and the
    moved path exists."""
    here = str(cwd)
    parent = os.path.dirname(here)
    try:
        real = os.path.join(os.path.realpath(path.parent, strict=True), path.name)
    except OSError:
        real = str(path)
    prefix = parent if parent == os.sep else parent + os.sep
    if not real.startswith(prefix) or real.startswith(here + os.sep) or real == here:
        return None
    moved = os.path.join(here, os.path.relpath(real, parent))
    return moved if os.path.exists(moved) else None


def _same_stem(path: Path, plain_extensions: bool) -> str | None:
    """The first other entry of `path`'s folder with `path`'s stem."""
    stem = _stem(path.name)
    try:
        with os.scandir(path.parent) as entries:
            for entry in entries:
                name = entry.name
                if plain_extensions and not _plain(_extension(name)):
                    continue
                if _stem(name) == stem and name != path.name:
                    return name
    except OSError:
        return None
    return None


def _extension(name: str) -> str:
    """The extension as Node's `path.extname` gives it (a dot that starts the name starts
    none)."""
    dot = name.rfind(".")
    return "" if dot <= 0 or name == ".." else name[dot:]


def _stem(name: str) -> str:
    extension = _extension(name)
    return name[: len(name) - len(extension)] if extension else name


def _plain(extension: str) -> bool:
    """Whether `extension` is none, or a dot and 1 to 32 letters, digits or `_+~#-`."""
    if not extension:
        return True
    body = unicodedata.normalize("NFC", extension)[1:]
    return 0 < len(body) <= 32 and all(
        char in EXTENSION_MARKS or unicodedata.category(char)[0] in "LN" for char in body
    )
