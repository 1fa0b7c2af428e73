"""Telling that a project's hook files changed without looking at every one of them per event.

`stamp` is the exact answer: the path and `hookwright.config.fingerprint` of every hook file a
project's hooks can come from (a walk of its hook folders), and of the files Codex's hooks are
read under (``$CODEX_HOME``'s sign-in, cached cloud requirements and config, the managed
folder's requirements and config), and Gemini CLI's (the project's, the user's and the
system's settings, and the user's trusted folders). `HookWatch` makes it cheap to ask
again: it asks the kernel (inotify, through `inotify_simple`) to note every change to those
files, to the folders holding them and to the folders leading to them, *before* it takes the
stamp. The kernel queues a note within the very call that makes the change, so once the
modifying call returned, the next `changed()` (one `read` of the watch's descriptor) sees it:
an edit made before an event is sent is never missed, and no stale hook runs. Then the project
is stamped again and reloaded when the stamp differs.

A project is not watched (and is stamped on every event, as exact as before) where a note
could be missed: no inotify (another system, or the per-user watch limit reached), a link
whose target is a link or lies behind one (its retargeting would happen where nothing is
watched), or a dangling link (its target may appear anywhere). The project folder and the home
folder are checked by identity on each event too (a `stat` each), so a path that comes to name
another folder is noticed.

Limit: a file changed through a writable shared memory mapping raises no note (nor, until it
is written back, a change of mtime).
"""

from __future__ import annotations

import os
import select
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hookwright.config.fingerprint import Fingerprint, fingerprint
from hookwright.dialects.codex.cloud import CACHE_FILE
from hookwright.dialects.codex.config import codex_home
from hookwright.dialects.codex.signin import AUTH_FILE
from hookwright.dialects.gemini.trust import trusted_folders_file
from hookwright.dialects.managed_paths import (
    codex_managed_dir,
    gemini_system_settings,
    platform_of,
)

try:
    from inotify_simple import INotify, flags, parse_events
except ImportError:  # pragma: no cover - inotify_simple is installed on Linux only
    INotify = None

#: Bytes asked of the watch's descriptor per read: room for many notes (one is 16 bytes and
#: its name); what does not fit is read at the next event.
_NOTES_BYTES = 64 * 1024

#: Where a project's hooks are declared, under the project and under the home folder.
PROJECT_ROOTS = (
    ".hookwright",
    ".openharness",
    ".picoclaw/config.json",
    ".codex",
    ".gemini/settings.json",
)
HOME_ROOTS = (".hookwright/hooks.yaml", ".picoclaw/config.json", ".gemini/settings.json")
#: Codex's files in ``$CODEX_HOME`` (else ``~/.codex``) and in its managed folder: a sign-in
#: changed decides whether the workspace's cloud requirements apply.
CODEX_USER_FILES = (AUTH_FILE, CACHE_FILE, "config.toml", "hooks.json")
CODEX_MANAGED_FILES = ("requirements.toml", "config.toml", "managed_config.toml")
#: Files whose change reloads a project (others, such as a hook's own data files, do not).
HOOK_SUFFIXES = frozenset({".yaml", ".yml", ".json", ".py", ".md", ".toml"})
#: A folder with more files than this is not scanned further (the stamp stays cheap).
MAX_FILES = 2000
_SKIPPED_FOLDER = "__pycache__"

#: Each hook file's path and fingerprint (None for a name with nothing behind it).
Stamp = tuple[tuple[str, Fingerprint | None], ...]


def _files(root: Path) -> Iterator[str]:
    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if entry.name != _SKIPPED_FOLDER:
                yield from _files(Path(entry.path))
        elif os.path.splitext(entry.name)[1] in HOOK_SUFFIXES:
            yield entry.path


def _roots(project: Path, home: Path) -> list[tuple[Path, str]]:
    """Each root with the folder it is named from."""
    user = codex_home(home)
    platform = platform_of()
    managed = Path(codex_managed_dir(platform))
    gemini = [trusted_folders_file(home), Path(gemini_system_settings(platform))]
    return [
        *((project, r) for r in PROJECT_ROOTS),
        *((home, r) for r in HOME_ROOTS),
        *((user.parent, f"{user.name}/{r}") for r in CODEX_USER_FILES),
        *((managed.parent, f"{managed.name}/{r}") for r in CODEX_MANAGED_FILES),
        *(_from_grandparent(file) for file in gemini),
    ]


def _from_grandparent(file: Path) -> tuple[Path, str]:
    """`file` as a root named from the folder above its own, which is watched for the
    file's folder to appear (a folder that is not there yet, such as ``/etc/gemini-cli``,
    is then no reason to stamp the project on every event)."""
    folder = file.parent
    return (folder.parent, f"{folder.name}/{file.name}") if folder.name else (folder, file.name)


def stamp(project: Path, home: Path) -> Stamp:
    """Path and fingerprint of every hook file the project's hooks can come from."""
    found: list[tuple[str, Fingerprint | None]] = []
    for base, name in _roots(project, home):
        root = base / name
        paths = [str(root)] if root.suffix else _files(root)
        for path in paths:
            found.append((path, fingerprint(path)))
            if len(found) > MAX_FILES:
                return tuple(found)
    return tuple(sorted(found, key=lambda entry: entry[0]))


class Unwatchable(Exception):
    """A change to the project's hook files could happen where no watch would note it."""


def _identity(path: Path | str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


if INotify is not None:
    #: What is noted of a folder's entries (and of the folder itself).
    _ENTRIES = (
        flags.CREATE
        | flags.DELETE
        | flags.MOVED_FROM
        | flags.MOVED_TO
        | flags.ATTRIB
        | flags.DELETE_SELF
        | flags.MOVE_SELF
    )
    #: What is noted of a hook folder's files and of a hook file itself.
    _CONTENT = _ENTRIES | flags.MODIFY | flags.CLOSE_WRITE


@dataclass(frozen=True, slots=True)
class _Filter:
    """Which notes of one watch matter: those about the watched file or folder itself, and
    those about its entries named in `names`, about hook files and sub-folders (`hooks`), or
    about any entry (`everything`). One folder watched for several reasons merges them."""

    names: frozenset[str] = frozenset()
    hooks: bool = False
    everything: bool = False

    def matters(self, name: str, is_dir: bool) -> bool:
        if not name or self.everything or name in self.names:
            return True
        if not self.hooks:
            return False
        if is_dir:
            return name != _SKIPPED_FOLDER
        return os.path.splitext(name)[1] in HOOK_SUFFIXES

    def merged(self, other: _Filter) -> _Filter:
        return _Filter(
            self.names | other.names, self.hooks or other.hooks, self.everything or other.everything
        )


def _plain_link(path: str) -> None:
    """Raise `Unwatchable` for a link a watch cannot follow: dangling, or whose target is
    reached through another link."""
    text = os.readlink(path)
    direct = os.path.normpath(os.path.join(os.path.dirname(path), text))
    if not os.path.exists(direct) or os.path.realpath(path) != direct:
        raise Unwatchable(path)


class HookWatch:
    """The watches over one project's hook files, and the stamp taken once they were set."""

    def __init__(self, project: Path, home: Path) -> None:
        if INotify is None:
            raise Unwatchable("no inotify")
        #: Named as text: each event looks them up, and a `Path` is made text for each call.
        self._bases = tuple((str(base), _identity(base)) for base in (project, home))
        self._notes = INotify(nonblocking=True)
        self._fd = self._notes.fileno()
        #: Asks whether a note waits (one `poll`, which a daemon makes per event: cheaper than
        #: a `read` failing with `EAGAIN`, and no descriptor of its own).
        self._waiting = select.poll()
        self._waiting.register(self._fd, select.POLLIN)
        self._filters: dict[int, _Filter] = {}
        try:
            for base, name in _roots(project, home):
                self._watch_root(base, name)
            self.stamp = stamp(project, home)
        except (OSError, Unwatchable):
            self.close()
            raise Unwatchable(str(project)) from None

    def _add(self, path: Path | str, mask: int, rule: _Filter) -> None:
        if os.path.islink(path):
            _plain_link(str(path))
        wd = int(self._notes.add_watch(path, mask | flags.MASK_ADD))
        known = self._filters.get(wd)
        self._filters[wd] = rule if known is None else known.merged(rule)

    def _watch_root(self, base: Path, name: str) -> None:
        """Watch the folders from `base` down to the root `name`, then the root itself: its
        files, or its folders and their hook files."""
        folder, parts = base, Path(name).parts
        for part in parts:
            self._add(folder, _ENTRIES, _Filter(names=frozenset({part})))
            folder = folder / part
            if not folder.exists() and not folder.is_symlink():
                return
        if folder.suffix:
            self._add(folder, _CONTENT, _Filter(everything=True))
            return
        self._watch_folder(folder)

    def _watch_folder(self, folder: Path) -> None:
        self._add(folder, _CONTENT, _Filter(hooks=True))
        for entry in os.scandir(folder):
            if entry.is_dir(follow_symlinks=False):
                if entry.name != _SKIPPED_FOLDER:
                    self._watch_folder(Path(entry.path))
            elif os.path.splitext(entry.name)[1] in HOOK_SUFFIXES:
                self._add(entry.path, _CONTENT, _Filter(everything=True))
            if len(self._filters) > MAX_FILES:
                raise Unwatchable(str(folder))

    def changed(self) -> bool:
        """Whether anything that matters changed since the watches were set (a lost note, a
        watch dropped, or a base folder now naming another folder counts). The kernel queues
        a note within the call that makes the change, and `poll` reports the queue as it is
        when asked: one `poll` when none came; else the notes are read from the non-blocking
        descriptor until none is left (`EAGAIN`)."""
        for base, identity in self._bases:
            if _identity(base) != identity:
                return True
        if not self._waiting.poll(0):
            return False
        while True:
            try:
                data = os.read(self._fd, _NOTES_BYTES)
            except BlockingIOError:
                return False
            if not data:
                return False
            if self._matters(data):
                return True

    def _matters(self, data: bytes) -> bool:
        """Whether any of the notes in `data` matters."""
        for event in parse_events(data):
            if event.mask & (flags.Q_OVERFLOW | flags.IGNORED):
                return True
            rule = self._filters.get(event.wd)
            if rule is None or rule.matters(event.name, bool(event.mask & flags.ISDIR)):
                return True
        return False

    def close(self) -> None:
        self._notes.close()


def watch(project: Path, home: Path) -> tuple[HookWatch | None, Stamp]:
    """A watch over the project's hook files and the stamp taken under it; no watch where a
    change could be missed (see the module's docstring), with the stamp taken alone."""
    try:
        hooks = HookWatch(project, home)
    except Unwatchable:
        return None, stamp(project, home)
    return hooks, hooks.stamp


__all__ = ["HOOK_SUFFIXES", "HookWatch", "Stamp", "Unwatchable", "stamp", "watch"]
