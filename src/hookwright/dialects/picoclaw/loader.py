"""PicoClaw config -> HookSpecs. Registered as the ``picoclaw`` source loader.

One HookSpec per (hook, canonical event) the hook intercepts, all `mode="chain"`. PicoClaw
sends after_tool for every executed tool, failed or not, so after_tool has a spec on
PostToolUse and one on PostToolUseFailure (whose `tool_result` is the failed ToolResult).
`intercept` is coarse (before_llm or after_llm gives both LLM methods, before_tool or
after_tool both tool methods, approve_tool on its own) and a builtin gets a spec per method its
object has. Interceptors time out after `interceptor_timeout_ms` and fail open; approvers after
`approval_timeout_ms` and fail closed (`on_error="block"`); a process's `timeout_ms` overrides
both for that process.

Ordering. PicoClaw runs in-process hooks before process hooks, then by priority, then by name.
The engine orders by priority, then source, then declaration. Builtins get
``source="in-process"``, processes ``user`` or ``project`` after their config file, and specs
are declared in PicoClaw's order. So that PicoClaw's rule holds among PicoClaw hooks, a
builtin's engine priority is lifted to ``min(its priority, lowest process priority)`` (its
configured priority stays in ``spec.meta["picoclaw_priority"]``). Among hooks of several
dialects the engine's rule applies to those engine priorities.

A process that only observes has no spec to dispatch; it is carried by a disabled spec (never
selected) so that `engine.aclose()` stops it and `attach_observers(engine)` finds it.
"""

from __future__ import annotations

from pathlib import Path

from hookwright.dialects.picoclaw.builtins import BuiltinTarget, resolve_factory
from hookwright.dialects.picoclaw.codec import EVENTS
from hookwright.dialects.picoclaw.codec import Protocol as WireProtocol
from hookwright.dialects.picoclaw.config import HooksSettings, ProcessEntry, read_context
from hookwright.dialects.picoclaw.handler import (
    BACKSTOP_GRACE,
    ObserverCarrier,
    PicoClawHandler,
    Target,
)
from hookwright.dialects.picoclaw.process import ProcessTarget
from hookwright.events import Event
from hookwright.loading import Diagnostic, LoadContext, LoadResult, register_loader
from hookwright.spec import HookSpec

DIALECT = "picoclaw"


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
    """The canonical events that carry `hook.<method>`."""
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
) -> HookSpec:
    approve = method == "approve_tool"
    if timeout_ms is not None:
        timeout = timeout_ms / 1000
    else:
        timeout = settings.timeouts.approval if approve else settings.timeouts.interceptor
    return HookSpec(
        name=target.name,
        event=event,
        handler=PicoClawHandler(target, method, protocol, timeout),
        source=source,
        dialect=DIALECT,
        mode="chain",
        priority=priority,
        timeout=timeout + BACKSTOP_GRACE,
        on_error="block" if approve else "continue",
        origin=origin,
        meta={
            "picoclaw_method": method,
            "picoclaw_kind": target.kind,
            "picoclaw_priority": configured_priority,
            "picoclaw_timeout": timeout,
        },
    )


def build(settings: HooksSettings, project_dir: Path) -> LoadResult:
    """Specs for the valid hooks of `settings`, in PicoClaw's order."""
    result = LoadResult(diagnostics=list(settings.diagnostics))
    if not settings.enabled:
        return result
    processes = [e for e in settings.processes if e.config.enabled]
    processes.sort(key=lambda e: (e.config.priority, e.name))
    builtins = [e for e in settings.builtins if e.config.enabled]
    builtins.sort(key=lambda e: (e.config.priority, e.name))
    ceiling = min((e.config.priority for e in processes), default=None)
    for builtin in builtins:
        where = f"hooks.builtins.{builtin.name}"
        try:
            factory = resolve_factory(builtin.name, builtin.config.factory)
            target = BuiltinTarget(builtin.name, factory(builtin.config.config))
        except Exception as exc:
            result.diagnostics.append(
                Diagnostic(builtin.file, where, f"cannot create builtin: {exc}")
            )
            continue
        methods = target.methods()
        if not methods:
            result.diagnostics.append(
                Diagnostic(builtin.file, where, "builtin implements none of the hook methods")
            )
            continue
        configured = builtin.config.priority
        priority = configured if ceiling is None else min(configured, ceiling)
        for method in methods:
            result.specs += [
                _spec(
                    target,
                    method,
                    event,
                    settings=settings,
                    timeout_ms=builtin.config.timeout_ms,
                    source="in-process",
                    priority=priority,
                    configured_priority=configured,
                    origin=f"{builtin.file}:{where}",
                    protocol=builtin.protocol,
                )
                for event in method_events(method)
            ]
    for entry in processes:
        where = f"hooks.processes.{entry.name}"
        process = ProcessTarget(entry, settings.timeouts, project_dir)
        methods = process_methods(entry)
        for method in methods:
            result.specs += [
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
                )
                for event in method_events(method)
            ]
        if not methods:
            result.specs.append(
                HookSpec(
                    name=entry.name,
                    event=Event.Notification,
                    handler=ObserverCarrier(process),
                    source=entry.source,
                    dialect=DIALECT,
                    enabled=False,
                    priority=entry.config.priority,
                    origin=f"{entry.file}:{where}",
                    description="PicoClaw observe-only process (never dispatched)",
                    meta={"picoclaw_kind": "process", "picoclaw_observer_carrier": True},
                )
            )
    return result


def load(ctx: LoadContext) -> LoadResult:
    return build(read_context(ctx), ctx.project_dir)


register_loader(DIALECT, load)
