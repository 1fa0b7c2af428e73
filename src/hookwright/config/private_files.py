"""Files that may hold hook output or environment: 0600, in folders hookwright creates 0700.

Only folders hookwright creates itself are set to 0700; an existing folder (the user's choice,
``/tmp`` for an audit path given by the operator) is left as it is.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import IO

FILE_MODE = 0o600
DIR_MODE = 0o700


def private_dir(directory: Path) -> None:
    """Create `directory` and any missing parent, each 0700."""
    missing: list[Path] = []
    current = directory
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(folder, DIR_MODE)


def _open_fd(path: Path, flags: int) -> int:
    fd = os.open(path, flags | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
    except OSError:
        os.close(fd)
        raise
    return fd


def open_private(path: Path, mode: str = "w") -> IO[str]:
    """Open `path` for text writing ("w" truncates, "a" appends), created or made 0600, in
    a folder created 0700 when missing."""
    private_dir(path.parent)
    flags = os.O_WRONLY | (os.O_APPEND if mode == "a" else os.O_TRUNC)
    return os.fdopen(_open_fd(path, flags), mode, encoding="utf-8", errors="replace")


def append_private(path: Path, chunks: Iterable[bytes]) -> None:
    """Append `chunks` to `path` (created 0600, in a folder created 0700 when missing), with
    no text layer in between."""
    private_dir(path.parent)
    fd = _open_fd(path, os.O_WRONLY | os.O_APPEND)
    try:
        for chunk in chunks:
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def touch_private(path: Path) -> None:
    """Create `path` empty (or keep its content) with mode 0600."""
    private_dir(path.parent)
    os.close(_open_fd(path, os.O_WRONLY))
