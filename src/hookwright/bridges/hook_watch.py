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
folder, and every folder above them, are watched for their own rename or removal: a path of
real folders (no link on the way) can come to name another folder in no other way, so a path
that does is noticed without a look per event. A base named through a link is checked by
identity on each event instead (a `stat`).

The user's trust store (``~/.hookwright/trust.json``) is watched too, apart: a change to it is a
trust note (`HookWatch.trust_noted`), after which the project's trust is judged again and its
session kept (`renew_trust` watches the store's new file, as it is written whole).

Limits: a file changed through a writable shared memory mapping raises no note (nor, until it
is written back, a change of mtime); a file system mounted over a watched folder raises none
either (mounting needs privileges the daemon's user does not give hooks).
"""

from __future__ import annotations

import os
import select
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hookwright.config.fingerprint import Fingerprint, fingerprint
from hookwright.config.trust import TrustStore
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
    #: What is noted of a folder above a base: only its own rename or removal (no note about
    #: its entries, so a busy folder such as ``/tmp`` sends none).
    _SELF = flags.MOVE_SELF | flags.DELETE_SELF


@dataclass(frozen=True, slots=True)
class _Filter:
    """Which notes of one watch matter: those about the watched file or folder itself
    (unless `own` is False), and those about its entries named in `names`, about hook files
    and sub-folders (`hooks`), or about any entry (`everything`). Notes about the entries in
    `trust_names` ("" for the watched file itself) that do not matter are trust notes. One
    folder watched for several reasons merges them."""

    names: frozenset[str] = frozenset()
    hooks: bool = False
    everything: bool = False
    own: bool = True
    trust_names: frozenset[str] = frozenset()

    def matters(self, name: str, is_dir: bool) -> bool:
        if not name:
            return self.own
        if self.everything or name in self.names:
            return True
        if not self.hooks:
            return False
        if is_dir:
            return name != _SKIPPED_FOLDER
        return os.path.splitext(name)[1] in HOOK_SUFFIXES

    def merged(self, other: _Filter) -> _Filter:
        return _Filter(
            self.names | other.names,
            self.hooks or other.hooks,
            self.everything or other.everything,
            self.own or other.own,
            self.trust_names | other.trust_names,
        )


#: The trust store's file, as a watch filter: every note about it is a trust note.
_TRUST_FILE = _Filter(own=False, trust_names=frozenset({""}))


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
        self._notes = INotify(nonblocking=True)
        self._fd = self._notes.fileno()
        #: Asks whether a note waits (one `poll`, which a daemon makes per event: cheaper than
        #: a `read` failing with `EAGAIN`, and no descriptor of its own).
        self._waiting = select.poll()
        self._waiting.register(self._fd, select.POLLIN)
        self._filters: dict[int, _Filter] = {}
        #: A change to the trust store was noted (cleared by `renew_trust`).
        self.trust_noted = False
        #: Whether the trust store is watched (else its fingerprint is taken per event).
        self.trust_watched = False
        self._trust = TrustStore(home).path
        try:
            for base, name in _roots(project, home):
                self._watch_root(base, name)
            #: The bases named through a link, checked by identity on each look (named as
            #: text: each look makes a `Path` text for its call).
            self._bases = tuple(
                (str(base), _identity(base)) for base in (project, home) if not self._above(base)
            )
            self._watch_trust()
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

    def _above(self, base: Path) -> bool:
        """Watch `base` and every folder above it (but the root) for its own rename or
        removal, when `base` is a real path; False (a `stat` per look instead) otherwise."""
        if os.path.realpath(base) != str(base):
            return False
        try:
            for folder in (base, *base.parents[:-1]):
                self._add(folder, _SELF, _Filter())
        except OSError:  # a folder this user cannot read: its watch is left harmless
            return False
        return True

    def _watch_trust(self) -> None:
        """Watch the trust store's entry in its folder and the file itself (trust notes: the
        folder's other entries, such as the audit file, send none); `trust_watched` stays
        False where the store is a link or a watch cannot be set."""
        folder = self._trust.parent
        if not folder.is_dir() or folder.is_symlink() or self._trust.is_symlink():
            return
        try:
            entry = _Filter(own=False, trust_names=frozenset({self._trust.name}))
            self._add(folder, _ENTRIES, entry)
            if self._trust.exists():
                self._add(self._trust, _CONTENT, _TRUST_FILE)
        except (OSError, Unwatchable):
            return
        self.trust_watched = True

    def renew_trust(self) -> None:
        """Before the trust store is read again: the trust note cleared and the store's file
        watched anew (it is written whole, a new file replacing the old)."""
        self.trust_noted = False
        if self.trust_watched:
            self.trust_watched = False
            self._watch_trust()

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
        """Whether any of the notes in `data` matters (a watch dropped counts as a note about
        its file); trust notes are kept in `trust_noted`."""
        for event in parse_events(data):
            if event.mask & flags.Q_OVERFLOW:
                return True
            rule = self._filters.get(event.wd)
            name = "" if event.mask & flags.IGNORED else event.name
            if rule is None or rule.matters(name, bool(event.mask & flags.ISDIR)):
                return True
            if name in rule.trust_names:
                self.trust_noted = True
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
