"""What tells that a file changed, for every check that reloads on a change (the daemon's
projects, its trust store, the warm runner's cached commands).

A file's fingerprint is what `lstat` says of the name (device, inode, mode, size, mtime and
ctime in nanoseconds) and, for a symbolic link, the link's own text and what `stat` says of
its target. Size and mtime alone miss a file swapped for another of the same size whose mtime
was set back (`os.utime`, `touch -d`, `cp -p`): the swap changes the inode or the ctime, which
no unprivileged process can set. Retargeting a link changes its text (and the link's own
inode), even when the new target's stat matches the old one's.

Limit: a file rewritten in place twice within one tick of the file system's clock, keeping
its size, has the same fingerprint after both writes (Linux stamps files with a coarse clock,
a few milliseconds, except for files whose times were just read on kernels with fine-grained
stamps, 6.13 and later).
"""

from __future__ import annotations

import os
import stat

#: Device, inode, mode, size, mtime and ctime (ns) of one `stat` answer.
Identity = tuple[int, int, int, int, int, int]
#: A file's identity; for a link also its text and its target's identity (None when dangling).
Fingerprint = tuple[Identity] | tuple[Identity, str | None, Identity | None]


def _identity(info: os.stat_result) -> Identity:
    return (
        info.st_dev,
        info.st_ino,
        info.st_mode,
        info.st_size,
        info.st_mtime_ns,
        info.st_ctime_ns,
    )


def fingerprint(path: str | os.PathLike[str]) -> Fingerprint | None:
    """The fingerprint of what is at `path` now; None when nothing is (or it cannot be
    looked at). Two fingerprints are equal only if nothing the checks rely on changed."""
    try:
        own = os.lstat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISLNK(own.st_mode):
        return (_identity(own),)
    try:
        text: str | None = os.readlink(path)
    except OSError:
        text = None
    try:
        target: Identity | None = _identity(os.stat(path))
    except (OSError, ValueError):
        target = None
    return (_identity(own), text, target)


__all__ = ["Fingerprint", "Identity", "fingerprint"]
