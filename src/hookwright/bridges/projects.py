"""The daemon's projects: per project folder, its hooks loaded once and kept warm, reloaded
when one of its hook files changes (noted by `hook_watch.HookWatch`, or where a project cannot
be watched, a `hookwright.config.fingerprint` of each per request: a file swapped for one of
the same size and mtime, or a link retargeted, counts) or what it read expires with no file
changing (`OpenedProject.valid_until`: Codex's cached cloud requirements, after which a fresh
session would not read them), answered only while the folder is trusted.

Trust is judged when a project is loaded and again whenever its watch notes a change to its
files or to the trust store (a trust note, which keeps the session; on every request for a
project without a watch, by the store's fingerprint); a folder that lost its trust has its
warm session closed. A loaded project named by its real path that its watch noted nothing
for answers without resolving its folder or looking at the trust store: the watch covers the
folders above it too (`hook_watch`).
An untrusted folder is never kept warm: each of its events opens a session of its own (none
of its hooks bound), so the failure policy still decides whether its guarded actions are
blocked. Every session is opened by `claude_hook.open_session`, so each answered event lands
in the user's audit."""

from __future__ import annotations

import asyncio
import sys
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from hookwright.bridges import hook_watch
from hookwright.bridges.claude_hook import (
    HookInputError,
    Relayed,
    failure,
    open_session,
    parse_input,
    project_named,
    real_path,
    relay_once,
    relayed_of,
    settle,
)
from hookwright.bridges.claude_version import calling_profile, unknown_caller_note
from hookwright.bridges.hook_watch import HookWatch, Stamp
from hookwright.config.fingerprint import Fingerprint, fingerprint
from hookwright.config.trust import TrustPolicy, TrustStore
from hookwright.core.events import Event
from hookwright.dialects.claude_code.answer import encode_output_json
from hookwright.dialects.claude_profiles import ClaudeCodeProfile
from hookwright.host.session import HookSession

#: The module-name prefix of in-process Python hooks loaded from a project's files.
USER_MODULE_PREFIX = "_hookwright_user_"
#: How many projects stay loaded at most (`HOOKWRIGHT_DAEMON_PROJECTS`), and after how many
#: seconds without an event one is closed (`HOOKWRIGHT_DAEMON_PROJECT_IDLE`).
DEFAULT_MAX_PROJECTS = 32
DEFAULT_PROJECT_IDLE = 600.0


@dataclass(frozen=True, slots=True)
class ProjectLimits:
    """How many projects the daemon keeps loaded, and how long one stays without an event."""

    loaded: int = DEFAULT_MAX_PROJECTS
    idle: float = DEFAULT_PROJECT_IDLE


DEFAULT_PROJECT_LIMITS = ProjectLimits()


class Reply(NamedTuple):
    """What a hook command would do: its exit code, stdout bytes and stderr text. (A named
    tuple, immutable as a frozen dataclass: one is made per event, at half the cost.)"""

    exit: int
    stdout: bytes
    stderr: str = ""
    #: A hook failed and no verdict was given (`claude_hook.unanswered`), as opposed to an
    #: input that is not a hook input.
    failed: bool = False


def forget_modules(project: Path) -> None:
    """Drop the project's in-process Python hook modules, so a reload imports them afresh."""
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if name.startswith(USER_MODULE_PREFIX) and file and Path(file).is_relative_to(project):
            del sys.modules[name]


@dataclass(slots=True)
class _Warm:
    """A loaded project: its session, the watch over its hook files (None: stamped on every
    event), the stamp it was loaded under, the trust store's fingerprint when its folder was
    judged trusted, when it last answered and how many events it is answering."""

    session: HookSession
    watch: HookWatch | None
    stamp: Stamp
    trust_key: Fingerprint | None
    #: The calling Claude Code's profile it was loaded as (None: the caller did not say).
    caller: ClaudeCodeProfile | None = None
    used: float = field(default_factory=time.monotonic)
    busy: int = 0
    #: The watch noted a change: stamp again before the next event.
    stale: bool = False
    #: When what the session read expires (Unix time; None: never): reloaded after it.
    valid_until: float | None = None

    def unchanged(self, trust_key: Fingerprint | None) -> bool:
        """Whether nothing the project was judged and loaded under changed (for a project
        without a watch, never: it is stamped and judged again on every event)."""
        if self.stale or self.watch is None or trust_key != self.trust_key:
            return False
        if self.watch.changed() or self.expired():
            self.stale = True
            return False
        return True

    def fresh(self) -> bool:
        """Whether the project answers as it was loaded and judged, told by its watch alone
        (one `poll` when nothing came): no change to its hook files or to the folders its
        path and the home's go through, no trust note, and nothing it read expired."""
        watch = self.watch
        if self.stale or watch is None or not watch.trust_watched:
            return False
        if watch.changed() or (self.valid_until is not None and self.expired()):
            self.stale = True
            return False
        return not watch.trust_noted

    def expired(self) -> bool:
        return self.valid_until is not None and time.time() >= self.valid_until

    async def close(self) -> None:
        if self.watch is not None:
            self.watch.close()
        await self.session.aclose()


class WarmProjects:
    """The loaded projects of one daemon; `answer` is the daemon's whole job.

    At most `limits.loaded` projects stay loaded: loading one more closes the one that answered
    least recently (when it answers nothing at the moment), and `evict_idle` closes those that
    answered nothing for `limits.idle` seconds. A project's trust is judged when it is loaded
    and kept while its watch notes no change and the trust store's file stays the same."""

    def __init__(self, home: Path, limits: ProjectLimits = DEFAULT_PROJECT_LIMITS) -> None:
        self.home = home
        self.limits = limits
        self._warm: OrderedDict[Path, _Warm] = OrderedDict()
        self._loading = asyncio.Lock()
        self._trust: tuple[Fingerprint, TrustPolicy] | None = None
        #: The trust store's file, fingerprinted on every event judged afresh (named once, as
        #: text: building the path cost as much as the `lstat`, and a `Path` is made text for
        #: each call).
        self._trust_path = str(TrustStore(home).path)
        #: Each loaded project and its folder, by the folder's real path as text (`_fresh`).
        self._real: dict[str, tuple[Path, _Warm]] = {}

    @property
    def projects(self) -> list[str]:
        return [str(p) for p in self._warm]

    @property
    def versions(self) -> dict[str, str]:
        """The Claude Code version each loaded project's hooks answer as."""
        return {str(root): warm.session.claude_code.shown for root, warm in self._warm.items()}

    async def answer(
        self,
        body: bytes,
        project: Path | None,
        env_project: str | None,
        agent: str | None = None,
    ) -> Reply:
        """One hook event, answered as the Claude Code that named itself `agent` (see
        `claude_version.calling_version`): at once by a loaded project that nothing changed
        for (`_fresh`), else once the project is resolved and judged (`_judged`)."""
        try:
            event, hook_input = parse_input(body)
        except HookInputError as exc:
            return Reply(1, b"", f"hookwright: error: {exc}\n")
        caller = calling_profile(agent)
        named = project_named(project, hook_input, env_project)
        loaded = self._fresh(named, caller)
        if loaded is None:
            judged = await self._judged(real_path(named), event, hook_input, caller)
            if isinstance(judged, Reply):
                return judged
            loaded = judged
        root, warm = loaded
        warm.busy += 1
        try:
            relayed = relayed_of(warm.session, await warm.session.relay(event, hook_input))
        except Exception as exc:
            relayed = Relayed(failure(event, exc))
        finally:
            warm.busy -= 1
            warm.used = time.monotonic()
        return _reply(relayed, root, True)

    def _fresh(
        self, named: str | Path, caller: ClaudeCodeProfile | None
    ) -> tuple[Path, _Warm] | None:
        """The loaded project `named` names, when it answers as it was loaded and judged:
        named by its real path (the watch over that path's folders tells that it still names
        the project: no resolution per event), loaded for this Claude Code, and nothing
        changed since (`_Warm.fresh`); None otherwise."""
        loaded = self._real.get(named if type(named) is str else str(named))
        if loaded is None or loaded[1].caller != caller or not loaded[1].fresh():
            return None
        return loaded

    async def _judged(
        self,
        root: Path,
        event: Event,
        hook_input: dict[str, Any],
        caller: ClaudeCodeProfile | None,
    ) -> tuple[Path, _Warm] | Reply:
        """The project of an event judged afresh: while its folder is trusted, loaded (or
        reloaded) for `answer` to relay the event on; else the event's reply, from a session
        of its own (or the failure to load it)."""
        warm = self._warm.get(root)
        if warm is not None and warm.watch is not None:
            warm.watch.renew_trust()  # before the store is read: a later change is noted
        trust_key = self._trust_key()
        trusted = (
            warm is not None and warm.caller == caller and warm.unchanged(trust_key)
        ) or self._trusts(root, trust_key)
        try:
            if trusted:
                return root, await self._session(root, trust_key, caller)
            await self._drop(root)
            relayed = await relay_once(
                root, self.home, event, hook_input, host="daemon", caller=caller
            )
        except Exception as exc:
            relayed = Relayed(failure(event, exc))
        return _reply(relayed, root, trusted)

    def _trust_key(self) -> Fingerprint | None:
        return fingerprint(self._trust_path)

    def _trusts(self, root: Path, key: Fingerprint | None) -> bool:
        """The trust store's answer, read again whenever the store's file changed."""
        if key is None or self._trust is None or self._trust[0] != key:
            try:
                policy = TrustPolicy.load(self.home)
            except ValueError:
                return False
            self._trust = None if key is None else (key, policy)
            return policy.trusts(root)
        return self._trust[1].trusts(root)

    async def _session(
        self, root: Path, trust_key: Fingerprint | None, caller: ClaudeCodeProfile | None
    ) -> _Warm:
        """The project's loaded session: kept while its watch noted no change, reloaded when it
        did (a stamp may miss a file rewritten twice within a tick of the file system's clock;
        the note does not). A project without a watch is stamped again and reloaded when the
        stamp differs. Loads take turns (one lock), so a project is never loaded twice at
        once."""
        warm = self._warm.get(root)
        if warm is not None and warm.caller != caller:
            warm.stale = True  # another Claude Code version asks: load its events and rules
        if warm is None or warm.stale or warm.watch is None:
            async with self._loading:
                warm = await self._load(root, caller)
        warm.trust_key = trust_key
        self._real[str(root)] = (root, warm)
        return warm

    async def _load(self, root: Path, caller: ClaudeCodeProfile | None) -> _Warm:
        warm = self._warm.get(root)
        if warm is not None and not warm.stale and warm.watch is not None:
            return warm
        watch, current = hook_watch.watch(root, self.home)
        same = warm is not None and warm.caller == caller and not warm.expired()
        if warm is not None and same and warm.watch is None and warm.stamp == current:
            if warm.watch is not None:
                warm.watch.close()
            warm.watch, warm.stale = watch, False
            return warm
        await self._drop(root)
        if caller is None:
            sys.stderr.write(unknown_caller_note("daemon"))
        try:
            session = await open_session(root, self.home, host="daemon", caller=caller)
            await session.begin()
        except BaseException:
            if watch is not None:
                watch.close()
            raise
        warm = _Warm(session, watch, current, None, caller)
        warm.valid_until = None if session.opened is None else session.opened.valid_until
        self._warm[root] = warm
        idle = sorted(
            (other for other, kept in self._warm.items() if not kept.busy and other != root),
            key=lambda other: self._warm[other].used,
        )
        for other in idle[: max(0, len(self._warm) - self.limits.loaded)]:
            await self._drop(other)
        return warm

    async def evict_idle(self) -> None:
        """Close the projects that answered nothing for `limits.idle` seconds."""
        horizon = time.monotonic() - self.limits.idle
        for root in [root for root, warm in self._warm.items() if warm.used < horizon]:
            warm = self._warm.get(root)
            if warm is not None and not warm.busy and warm.used < horizon:
                await self._drop(root)

    async def _drop(self, root: Path) -> None:
        self._real.pop(str(root), None)
        warm = self._warm.pop(root, None)
        if warm is not None:
            await warm.close()
            forget_modules(root)

    async def aclose(self) -> None:
        for root in list(self._warm):
            await self._drop(root)


def _reply(relayed: Relayed, root: Path, trusted: bool) -> Reply:
    """The reply to an event relayed for the project at `root` (see `claude_hook.settle`)."""
    verdict, failed = settle(relayed, root, trusted)
    if failed is not None:
        return Reply(1, b"", f"{failed}\n", failed=True)
    return Reply(0, encode_output_json(verdict))
