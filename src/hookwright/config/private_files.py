"""Every file hookwright writes on a user's behalf: private from its first byte, never written
through a link.

A whole file (settings, backups, the trust store, the daemon's token and pid, permission
rules, long hook output) is written by `replacing` / `write_private`: a temporary file is
created exclusively in the target's folder (``O_CREAT|O_EXCL|O_NOFOLLOW``, 0600), written,
flushed to disk and renamed onto the target, so a link planted at the target or at any
temporary name is replaced or refused, never followed, and no reader sees a half-written or
world-readable file. Appends (the audit trail) and files a hook fills itself open the name
with ``O_NOFOLLOW`` and accept only a regular file.

Folders hookwright creates are made 0700 and must be real folders: a link that appears in
place of one is an error. An existing folder (the user's choice, ``/tmp`` for an audit path
given by the operator) is left as it is.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO

FILE_MODE = 0o600
DIR_MODE = 0o700
#: The end of every temporary name (``.NAME.RANDOM.hookwright-tmp``, next to the target).
TEMP_SUFFIX = ".hookwright-tmp"
#: Attempts at a fresh temporary name before giving up (each collision is a name taken).
_TEMP_ATTEMPTS = 100
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def private_dir(directory: Path) -> None:
    """Create `directory` and any missing parent, each 0700; a name that turns out to be
    taken by anything but a real folder (a link placed there meanwhile) is an error."""
    missing: list[Path] = []
    current = directory
    while not os.path.lexists(current) and current != current.parent:
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, DIR_MODE)
        except FileExistsError:
            _require_real_dir(folder)
            continue
        _make_private_dir(folder)


def is_private_dir(folder: Path) -> bool:
    """Whether `folder` is a real folder (not a link) of this user closed to everyone else."""
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    owned = info.st_uid == os.getuid() and not stat.S_IMODE(info.st_mode) & 0o077
    return stat.S_ISDIR(info.st_mode) and owned


def owned_folder(path: Path) -> bool:
    """Whether `path` is a folder (through a link or not) this user owns: a home folder a
    cache may be kept in (another user's, as under `sudo` keeping ``HOME``, gets nothing)."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()


def write_entry(folder: Path, name: str, data: bytes, max_entries: int) -> None:
    """`data` written privately as the entry `name` of the cache `folder` (made private when
    missing, emptied first once it holds `max_entries` entries); a folder or an entry that
    cannot be written is left as it is, and the next process computes the value again."""
    with contextlib.suppress(OSError, ValueError):
        private_dir(folder)
        if not is_private_dir(folder):
            return
        entries = os.listdir(folder)
        if len(entries) >= max_entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    os.unlink(folder / entry)
        write_private(folder / name, data)


def read_private(path: Path, max_bytes: int) -> bytes | None:
    """The bytes of `path` when it is a regular file of this user, closed to others and of at
    most `max_bytes` (opened without following a link); None otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as entry:
        info = os.fstat(fd)
        regular = stat.S_ISREG(info.st_mode) and info.st_size <= max_bytes
        if not regular or info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o077:
            return None
        return entry.read(max_bytes + 1)


def _require_real_dir(folder: Path) -> None:
    if not stat.S_ISDIR(os.lstat(folder).st_mode):
        raise FileExistsError(errno.EEXIST, "exists and is not a folder", str(folder))


def _make_private_dir(folder: Path) -> None:
    """0700 exactly, whatever the umask, on the folder just made (not on what a link names)."""
    if stat.S_IMODE(os.lstat(folder).st_mode) == DIR_MODE:
        return
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW | _CLOEXEC)
    try:
        os.fchmod(fd, DIR_MODE)
    finally:
        os.close(fd)


def temp_path(target: Path) -> Path:
    """A fresh temporary name next to `target` (unpredictable; still opened exclusively)."""
    return target.with_name(f".{target.name}.{os.urandom(8).hex()}{TEMP_SUFFIX}")


def _create_temp(target: Path) -> tuple[int, Path]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    for _ in range(_TEMP_ATTEMPTS):
        temp = temp_path(target)
        try:
            return os.open(temp, flags, FILE_MODE), temp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(target.parent))


@contextlib.contextmanager
def replacing(target: Path, mode: int = FILE_MODE) -> Iterator[IO[bytes]]:
    """Write `target` whole: yields a binary file on a new temporary file (0600 however the
    umask is set); when the block ends it is flushed to disk, given `mode` and renamed onto
    `target` (a link at `target` is replaced, not followed). When the block raises, the
    temporary file goes and `target` is untouched."""
    private_dir(target.parent)
    fd, temp = _create_temp(target)
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "wb", closefd=False) as out:
            yield out
        os.fsync(fd)
        os.fchmod(fd, mode)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    os.close(fd)
    try:
        os.replace(temp, target)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _sync_dir(target.parent)


def _sync_dir(folder: Path) -> None:
    """Make the rename itself durable (best effort: not every file system allows it)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_private(target: Path, data: bytes, mode: int = FILE_MODE) -> None:
    """Write `data` as the whole of `target` (see `replacing`)."""
    with replacing(target, mode) as out:
        out.write(data)


@contextlib.contextmanager
def open_private(path: Path) -> Iterator[IO[str]]:
    """`replacing` for text (UTF-8; characters that cannot be encoded are replaced)."""
    with replacing(path) as out, _text(out) as text:
        yield text


@contextlib.contextmanager
def _text(out: IO[bytes]) -> Iterator[IO[str]]:
    with os.fdopen(os.dup(out.fileno()), "w", encoding="utf-8", errors="replace") as text:
        yield text


def _open_existing_or_new(path: Path, flags: int) -> int:
    """`path` opened (created 0600 when missing) without following a link at its name and
    without blocking on a FIFO; anything but a regular file is refused. The file is made 0600."""
    private_dir(path.parent)
    fd = os.open(path, flags | os.O_CREAT | os.O_NONBLOCK | _NOFOLLOW | _CLOEXEC, FILE_MODE)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        os.fchmod(fd, FILE_MODE)
        os.set_blocking(fd, True)
    except OSError:
        os.close(fd)
        raise
    return fd


def open_append(path: Path, *, readable: bool = False) -> int:
    """A descriptor appending to `path` (created 0600, in a folder created 0700 when missing),
    for a writer that keeps its file open (a transcript); a link at `path` is an error, never
    followed. `readable`: it can read the file too (the audit reads its last line)."""
    access = os.O_RDWR if readable else os.O_WRONLY
    return _open_existing_or_new(path, access | os.O_APPEND)


@contextlib.contextmanager
def appending_text(path: Path) -> Iterator[IO[str]]:
    """`open_append` for text (UTF-8; characters that cannot be encoded are replaced): a log
    kept open while a process writes to it."""
    with os.fdopen(open_append(path), "a", encoding="utf-8", errors="replace") as text:
        yield text


def append_private(path: Path, chunks: Iterable[bytes]) -> None:
    """Append `chunks` to `path` (created 0600, in a folder created 0700 when missing), with
    no text layer in between; a link at `path` is an error, never followed."""
    fd = open_append(path)
    try:
        for chunk in chunks:
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def touch_private(path: Path) -> None:
    """Create `path` empty (or keep its content) with mode 0600, for a hook to fill; a link
    at `path` is an error, never followed."""
    os.close(_open_existing_or_new(path, os.O_WRONLY))
