"""PicoClaw config -> HookSpecs. Registered as the ``picoclaw`` source loader.

One HookSpec per (hook, canonical event) the hook intercepts, all `mode="chain"`:
`intercept` is coarse (before_llm or after_llm gives both LLM methods, before_tool or
after_tool both tool methods, approve_tool on its own) and a builtin gets a spec per method its
object has. Interceptors time out after `interceptor_timeout_ms` and fail open; approvers after
`approval_timeout_ms` and fail closed (`on_error="block"`); a process's `timeout_ms` overrides
both for that process.

Trust. Builtins and processes are the code of the file that configures them: each takes its
file's source (``user`` or ``project``) and trust root (see `config.ConfigFile`). Discovery
calls no factory and starts no process; a builtin's factory is called when it is bound.
Discovery shows one hook per builtin with no events: they are the methods of the object the
factory returns, known only once it ran.

Ordering. PicoClaw runs in-process hooks (builtins) before process hooks, then by priority,
then by name. The engine orders by priority, then source, then declaration, and specs are
declared in PicoClaw's order. So that PicoClaw's rule holds among PicoClaw hooks, a builtin's
engine priority is ``min(its priority, lowest process priority - 1)`` when there are processes
(its configured priority stays in ``spec.dialect_data.configured_priority``). Among hooks of several
dialects the engine's rule applies to those engine priorities.

A process that only observes has no spec to dispatch; it is carried by a disabled spec (never
selected) so that `engine.aclose()` stops it and `attach_observers(engine)` finds it.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from dataclasses import dataclass, replace
from pathlib import Path

from hookwright.config.loading import (
    Diagnostic,
    DiscoveredHook,
    Discovery,
    LoadContext,
    LoadResult,
    register_source,
)
from hookwright.config.trust import NOT_APPLIED, TrustPolicy
from hookwright.core.dialect_data import DialectData
from hookwright.core.events import Event
from hookwright.core.spec import HookSpec
from hookwright.dialects.picoclaw.builtins import BuiltinTarget, resolve_factory
from hookwright.dialects.picoclaw.codec import EVENTS
from hookwright.dialects.picoclaw.codec import Protocol as WireProtocol
from hookwright.dialects.picoclaw.config import (
    FILE_SETTINGS,
    BuiltinEntry,
    FileSection,
    HooksSettings,
    ProcessEntry,
    candidate_files,
    current_era_notice,
    merge_sections,
    read_sections,
)
from hookwright.dialects.picoclaw.handler import (
    BACKSTOP_GRACE,
    ObserverCarrier,
    Target,
    picoclaw_handler,
)
from hookwright.dialects.picoclaw.hook_process import ProcessTarget
from hookwright.dialects.picoclaw.isolation import instance_root
from hookwright.dialects.picoclaw.program import missing_program

DIALECT = "picoclaw"


@dataclass(frozen=True, slots=True)
class PicoClawSpecData(DialectData):
    """What the PicoClaw loader records on each of its specs (`HookSpec.dialect_data`)."""

    #: `builtin` or `process`.
    kind: str
    #: The priority its config gives; the engine's may be lower (see the module docstring).
    configured_priority: int
    #: The `hook.<method>` the spec answers; None on an observe-only process's carrier.
    method: str | None = None
    #: A process's `process_fingerprint`: a config reload restarts it when this changes.
    fingerprint: str | None = None


def process_methods(entry: ProcessEntry) -> list[str]:
    config = entry.config
    methods: list[str] = []
    if config.intercept_llm:
        methods += ["before_llm", "after_llm"]
    if config.intercept_tool:
        methods += ["before_tool", "after_tool"]
    if config.approve:
        methods.append("approve_tool")
    return methods


def method_events(method: str) -> tuple[Event, ...]:
    """The canonical events that carry `hook.<method>`: after_tool also reports failed
    tools (PicoClaw sends it for every executed tool)."""
    if method == "after_tool":
        return (Event.PostToolUse, Event.PostToolUseFailure)
    return (EVENTS[method],)


def _spec(
    target: Target,
    method: str,
    event: Event,
    *,
    settings: HooksSettings,
    timeout_ms: int | None,
    source: str,
    priority: int,
    configured_priority: int,
    origin: str,
    protocol: WireProtocol,
    fingerprint: str | None = None,
    actions: bool = False,
    reads_state: bool = False,
    shadow: bool = False,
) -> HookSpec:
    approve = method == "approve_tool"
    if timeout_ms is not None:
        timeout = timeout_ms / 1000
    else:
        timeout = settings.timeouts.approval if approve else settings.timeouts.interceptor
    return HookSpec(
        name=target.name,
        event=event,
        handler=picoclaw_handler(target, method, protocol, timeout, actions=actions),
        source=source,
        dialect=DIALECT,
        mode="chain",
        priority=priority,
        timeout=timeout + BACKSTOP_GRACE,
        on_error="block" if approve else "continue",
        origin=origin,
        dialect_data=PicoClawSpecData(target.kind, configured_priority, method, fingerprint),
        reads_state=reads_state,
        shadow=shadow,
    )


def discover_settings(settings: HooksSettings, project_dir: Path) -> Discovery:
    """One discovered hook per enabled builtin and process, in PicoClaw's order."""
    discovery = Discovery(diagnostics=list(settings.diagnostics))
    if not settings.enabled:
        return discovery
    processes = [e for e in settings.processes if e.config.enabled]
    processes.sort(key=lambda e: (e.config.priority, e.name))
    builtins = [e for e in settings.builtins if e.config.enabled]
    builtins.sort(key=lambda e: (e.config.priority, e.name))
    ceiling = min((e.config.priority for e in processes), default=None)
    for builtin in builtins:
        configured = builtin.config.priority
        priority = configured if ceiling is None else min(configured, ceiling - 1)
        where = f"hooks.builtins.{builtin.name}"
        discovery.hooks.append(
            DiscoveredHook(
                name=builtin.name,
                dialect=DIALECT,
                source=builtin.source,
                origin=f"{builtin.file}:{where}",
                trust_root=builtin.trust_root,
                binder=functools.partial(_bind_builtin, builtin, settings, priority),
                mode="chain",
                priority=priority,
                note="builtin: its events are the methods of the object its factory returns",
            )
        )
    for entry in processes:
        hook = DiscoveredHook.of_specs(
            _process_specs(entry, settings, project_dir), entry.trust_root
        )
        missing = missing_program(entry, project_dir)
        problem = missing.problem() if missing is not None else None
        discovery.hooks.append(replace(hook, program_problem=problem))
    return discovery


def _bind_builtin(
    builtin: BuiltinEntry, settings: HooksSettings, priority: int, _trust: TrustPolicy
) -> LoadResult:
    """Call the builtin's factory (running its code) and build a spec per method it has."""
    result = LoadResult()
    where = f"hooks.builtins.{builtin.name}"
    try:
        factory = resolve_factory(builtin.name, builtin.config.factory)
        target = BuiltinTarget(builtin.name, factory(builtin.config.config))
    except Exception as exc:
        result.diagnostics.append(Diagnostic(builtin.file, where, f"cannot create builtin: {exc}"))
        return result
    methods = target.methods()
    if not methods:
        result.diagnostics.append(
            Diagnostic(builtin.file, where, "builtin implements none of the hook methods")
        )
    for method in methods:
        result.specs += [
            _spec(
                target,
                method,
                event,
                settings=settings,
                timeout_ms=builtin.config.timeout_ms,
                source=builtin.source,
                priority=priority,
                configured_priority=builtin.config.priority,
                origin=f"{builtin.file}:{where}",
                protocol=builtin.protocol,
            )
            for event in method_events(method)
        ]
    return result


def _process_specs(
    entry: ProcessEntry, settings: HooksSettings, project_dir: Path
) -> list[HookSpec]:
    """A process's specs; the process starts only when one of them is dispatched."""
    where = f"hooks.processes.{entry.name}"
    process = ProcessTarget(entry, settings.timeouts, project_dir, settings.isolation)
    fingerprint = process_fingerprint(entry, settings, project_dir)
    methods = process_methods(entry)
    specs = [
        _spec(
            process,
            method,
            event,
            settings=settings,
            timeout_ms=entry.config.timeout_ms,
            source=entry.source,
            priority=entry.config.priority,
            configured_priority=entry.config.priority,
            origin=f"{entry.file}:{where}",
            protocol=entry.protocol,
            fingerprint=fingerprint,
            actions=entry.config.actions,
            reads_state=entry.config.state,
            shadow=entry.config.mode == "shadow",
        )
        for method in methods
        for event in method_events(method)
    ]
    if methods:
        return specs
    carrier = HookSpec(
        name=entry.name,
        event=Event.Notification,
        handler=ObserverCarrier(process),
        source=entry.source,
        dialect=DIALECT,
        enabled=False,
        priority=entry.config.priority,
        origin=f"{entry.file}:{where}",
        description="PicoClaw observe-only process (never dispatched)",
        dialect_data=PicoClawSpecData("process", entry.config.priority, fingerprint=fingerprint),
    )
    return [carrier]


def process_fingerprint(entry: ProcessEntry, settings: HooksSettings, project_dir: Path) -> str:
    """Everything a process's behaviour depends on: a config reload restarts the process when
    this changes."""
    return json.dumps(
        {
            "config": entry.config.model_dump(mode="json"),
            "protocol": entry.protocol,
            "source": entry.source,
            "file": entry.file,
            "timeouts": dataclasses.asdict(settings.timeouts),
            "isolation": dataclasses.asdict(settings.isolation),
            "project": str(project_dir),
        },
        sort_keys=True,
        default=str,
    )


class TrustedSettings:
    """What the trusted files configure, merged as PicoClaw merges its files, resolved once per
    trust policy: a file in a folder that is not trusted changes nothing (not the file-level
    `enabled`, `protocol` and `defaults`, not another file's entry of the same name)."""

    def __init__(self, sections: list[FileSection], project_dir: Path, home: Path) -> None:
        self._sections = sections
        self._project_dir = project_dir
        self._home = home
        self._resolved: tuple[TrustPolicy, dict[str, DiscoveredHook], list[Diagnostic]] | None
        self._resolved = None

    def bind(self, origin: str, trust: TrustPolicy) -> LoadResult:
        """The specs of the hook declared at `origin` (none when a trusted setting turns it off
        or a later trusted file replaces it)."""
        if self._resolved is None or self._resolved[0] != trust:
            self._resolved = (trust, *self._resolve(trust))
        _, hooks, ignored = self._resolved
        hook = hooks.get(origin)
        result = hook.binder(trust) if hook is not None else LoadResult()
        result.diagnostics[:0] = ignored
        return result

    def _resolve(self, trust: TrustPolicy) -> tuple[dict[str, DiscoveredHook], list[Diagnostic]]:
        trusted = [s for s in self._sections if trust.trusts(s.config.trust_root)]
        merged = merge_sections(trusted)
        merged.isolation = replace(merged.isolation, root=instance_root(self._home))
        found = discover_settings(merged, self._project_dir)
        notices = [n for entry in merged.processes for n in current_era_notice(entry)]
        ignored = [
            Diagnostic(str(s.config.path), f"hooks.{key}", NOT_APPLIED, "warning")
            for s in self._sections
            if not trust.trusts(s.config.trust_root)
            for key in FILE_SETTINGS
            if key in s.hooks
        ]
        ignored += [
            Diagnostic(str(s.config.path), "isolation", NOT_APPLIED, "warning")
            for s in self._sections
            if not trust.trusts(s.config.trust_root) and s.isolation is not None
        ]
        return {hook.origin: hook for hook in found.hooks}, [*ignored, *notices]


def discover(ctx: LoadContext) -> Discovery:
    """Each file's hooks as declared (for listing and trust); binding one builds it from the
    merged settings of the trusted files."""
    candidates = candidate_files(ctx)
    sections, problems = read_sections(candidates)
    discovery = Discovery(diagnostics=problems, files=[str(c.path) for c in candidates])
    trusted = TrustedSettings(sections, ctx.project_dir, ctx.home)
    for section in sections:
        own = merge_sections([section])
        own.enabled = True
        found = discover_settings(own, ctx.project_dir)
        discovery.diagnostics += found.diagnostics
        discovery.hooks += [
            replace(hook, binder=functools.partial(trusted.bind, hook.origin))
            for hook in found.hooks
        ]
    return discovery


register_source(DIALECT, discover)
