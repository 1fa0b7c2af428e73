"""A project's hooks for a host: discover every dialect's config, keep what the host wants,
decide trust, bind only trusted sources onto an engine, and start what must run for the whole
session (PicoClaw processes, which also observe every event)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from hookwright.config.loading import Diagnostic, DiscoveredHook, Discovery, LoadContext, discover
from hookwright.config.trust import TrustPolicy, TrustStore
from hookwright.dialects import picoclaw
from hookwright.engine.kernel import HookEngine


@dataclass(frozen=True, slots=True)
class ProjectHooks:
    """What binding a project gave: one line per problem, the hooks left unbound because
    their folder is not trusted, and whether the project folder itself is trusted."""

    diagnostics: tuple[str, ...]
    untrusted: tuple[DiscoveredHook, ...]
    trusted: bool


def discover_project(
    project_dir: Path,
    home: Path,
    *,
    config_files: Sequence[Path] = (),
    dialects: Collection[str] | None = None,
    exclude: Collection[str] = (),
) -> Discovery:
    """Every hook the project declares, as read from disk (no hook code runs), limited to
    `dialects` (None: all) minus `exclude`."""
    found = discover(LoadContext(project_dir=project_dir, home=home, config_files=config_files))
    unknown = sorted({*(dialects or ()), *exclude} - _dialect_names())
    if unknown:
        found.diagnostics.append(
            Diagnostic(
                str(project_dir),
                "dialects",
                f"unknown dialect(s) {', '.join(unknown)} "
                f"(known: {', '.join(sorted(_dialect_names()))})",
                "warning",
            )
        )
    found.hooks = [
        hook
        for hook in found.hooks
        if (dialects is None or hook.dialect in dialects) and hook.dialect not in exclude
    ]
    return found


def config_watch(
    project_dir: Path,
    home: Path,
    policy: TrustPolicy,
    *,
    config_files: Sequence[Path] = (),
    dialects: Collection[str] | None = None,
    exclude: Collection[str] = (),
) -> tuple[LoadContext, TrustPolicy] | None:
    """What `start_session_processes` needs to watch the PicoClaw config, or None when the
    session leaves PicoClaw hooks out."""
    if (dialects is not None and "picoclaw" not in dialects) or "picoclaw" in exclude:
        return None
    return LoadContext(project_dir=project_dir, home=home, config_files=config_files), policy


def bind_project(
    engine: HookEngine, discovery: Discovery, policy: TrustPolicy, project_dir: Path, home: Path
) -> ProjectHooks:
    """Bind the trusted hooks onto `engine`; a warning says how to trust the rest."""
    loaded = discovery.bind(policy)
    for spec in loaded.specs:
        engine.register(spec)
    diagnostics = [str(d) for d in loaded.diagnostics]
    if loaded.untrusted:
        how = TrustStore(home).how_to_trust(project_dir)
        diagnostics.append(
            str(
                Diagnostic(
                    str(project_dir),
                    "",
                    f"{len(loaded.untrusted)} project hook(s) not run: this folder is not "
                    f"trusted; {how}",
                    "warning",
                )
            )
        )
    return ProjectHooks(tuple(diagnostics), tuple(loaded.untrusted), policy.trusts(project_dir))


async def start_session_processes(
    engine: HookEngine, watch: tuple[LoadContext, TrustPolicy] | None = None
) -> list[str]:
    """Start every hook process that lives as long as the session (PicoClaw), so observers
    see the session's first event; one line per process that failed to start. With `watch`
    (where the config came from and what is trusted), a process whose config file changes is
    restarted with its new settings for the rest of the session."""
    picoclaw.attach_observers(engine)
    if watch is not None:
        picoclaw.ConfigWatch(engine, *watch).start()
    processes = picoclaw.registered_processes(engine)
    failures = await picoclaw.start_processes(engine)
    return [
        f"error: PicoClaw hook process {target.name}: cannot start: {failure}"
        for target, failure in zip(processes, failures, strict=True)
        if failure is not None
    ]


def _dialect_names() -> set[str]:
    from hookwright.config.loading import sources

    return set(sources()) | {"skill"}
