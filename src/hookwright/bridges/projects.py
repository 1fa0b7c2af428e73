"""The daemon's projects: per project folder, its hooks loaded once and kept warm, reloaded
when one of its hook files changes (a `hookwright.config.fingerprint` of each per request: a file
swapped for one of the same size and mtime, or a link retargeted, counts), answered only while
the folder is trusted.

Trust is checked on every request; a folder that lost its trust has its warm session closed.
An untrusted folder is never kept warm: each of its events opens a session of its own (none
of its hooks bound), so the failure policy still decides whether its guarded actions are
blocked. Every session is opened by `claude_hook.open_session`, so each answered event lands
in the user's audit."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hookwright.bridges.claude_hook import (
    HookInputError,
    expressible,
    failure,
    open_session,
    parse_input,
    project_for,
    relay_once,
    unanswered,
    with_untrusted_notice,
)
from hookwright.config.fingerprint import Fingerprint, fingerprint
from hookwright.config.trust import TrustPolicy, TrustStore
from hookwright.dialects.claude_code.answer import encode_output_json
from hookwright.host.session import HookSession

#: Where a project's hooks are declared, under the project and under the home folder.
PROJECT_ROOTS = (".hookwright", ".openharness", ".picoclaw/config.json")
HOME_ROOTS = (".hookwright/hooks.yaml", ".picoclaw/config.json")
#: Files whose change reloads a project (others, such as a hook's own data files, do not).
HOOK_SUFFIXES = frozenset({".yaml", ".yml", ".json", ".py", ".md", ".toml"})
#: A folder with more files than this is not scanned further (the stamp stays cheap).
MAX_FILES = 2000
#: The module-name prefix of in-process Python hooks loaded from a project's files.
USER_MODULE_PREFIX = "_hookwright_user_"

#: Each hook file's path and fingerprint (None for a name with nothing behind it).
Stamp = tuple[tuple[str, Fingerprint | None], ...]


@dataclass(frozen=True, slots=True)
class Reply:
    """What a hook command would do: its exit code, stdout bytes and stderr text."""

    exit: int
    stdout: bytes
    stderr: str = ""
    #: A hook failed and no verdict was given (`claude_hook.unanswered`), as opposed to an
    #: input that is not a hook input.
    failed: bool = False


def _files(root: Path) -> Iterator[str]:
    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if entry.name != "__pycache__":
                yield from _files(Path(entry.path))
        elif os.path.splitext(entry.name)[1] in HOOK_SUFFIXES:
            yield entry.path


def stamp(project: Path, home: Path) -> Stamp:
    """Path and fingerprint of every hook file the project's hooks can come from."""
    found: list[tuple[str, Fingerprint | None]] = []
    roots = [project / r for r in PROJECT_ROOTS] + [home / r for r in HOME_ROOTS]
    for root in roots:
        paths = [str(root)] if root.suffix else _files(root)
        for path in paths:
            found.append((path, fingerprint(path)))
            if len(found) > MAX_FILES:
                return tuple(found)
    return tuple(sorted(found, key=lambda entry: entry[0]))


def forget_modules(project: Path) -> None:
    """Drop the project's in-process Python hook modules, so a reload imports them afresh."""
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if name.startswith(USER_MODULE_PREFIX) and file and Path(file).is_relative_to(project):
            del sys.modules[name]


@dataclass(slots=True)
class _Warm:
    session: HookSession
    stamp: Stamp


class WarmProjects:
    """The loaded projects of one daemon; `answer` is the daemon's whole job."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self._warm: dict[Path, _Warm] = {}
        self._locks: dict[Path, asyncio.Lock] = {}
        self._trust: tuple[Fingerprint, TrustPolicy] | None = None

    @property
    def projects(self) -> list[str]:
        return [str(p) for p in self._warm]

    async def answer(self, body: bytes, project: Path | None, env_project: str | None) -> Reply:
        try:
            event, hook_input = parse_input(body)
        except HookInputError as exc:
            return Reply(1, b"", f"hookwright: error: {exc}\n")
        root = project_for(project, hook_input, env_project)
        trusted = self._trusts(root)
        try:
            if trusted:
                session = await self._session(root)
                verdict = await session.relay(event, hook_input)
            else:
                await self._drop(root)
                verdict = await relay_once(root, self.home, event, hook_input)
        except Exception as exc:
            verdict = failure(event, exc)
        if not trusted:
            verdict = with_untrusted_notice(verdict, root)
        verdict = expressible(verdict)
        failed = unanswered(verdict)
        if failed is not None:
            return Reply(1, b"", f"{failed}\n", failed=True)
        return Reply(0, encode_output_json(verdict))

    def _trusts(self, root: Path) -> bool:
        """The trust store's answer, read again whenever the store's file changed."""
        key = fingerprint(TrustStore(self.home).path)
        if key is None or self._trust is None or self._trust[0] != key:
            try:
                policy = TrustPolicy.load(self.home)
            except ValueError:
                return False
            self._trust = None if key is None else (key, policy)
            return policy.trusts(root)
        return self._trust[1].trusts(root)

    async def _session(self, root: Path) -> HookSession:
        lock = self._locks.setdefault(root, asyncio.Lock())
        async with lock:
            current = stamp(root, self.home)
            warm = self._warm.get(root)
            if warm is not None and warm.stamp == current:
                return warm.session
            await self._drop(root)
            session = await open_session(root, self.home)
            await session.begin()
            self._warm[root] = _Warm(session, current)
            return session

    async def _drop(self, root: Path) -> None:
        warm = self._warm.pop(root, None)
        if warm is not None:
            await warm.session.aclose()
            forget_modules(root)

    async def aclose(self) -> None:
        for root in list(self._warm):
            await self._drop(root)
