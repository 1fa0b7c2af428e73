"""HookEngine: select -> plan stages -> run with timeouts -> merge -> Verdict.

Selection keeps a hook when its event matches, it is enabled, its scope (session/agent) is the
input's, its matcher accepts the event's match value, and its `if` rule (tool events only)
accepts the tool call. Identical dedup keys run once.

Planning orders the selected hooks by priority (lower first), then source
(`spec.SOURCE_ORDER`), then declaration order. Consecutive parallel-mode hooks form one stage
whose hooks run concurrently and merge in completion order; each chain-mode hook is a stage of
one. Stages run in order; each stage sees the input as rewritten by the stages before it, and a
terminal verdict (deny, block, defer, respond, abort, continue: false) ends the dispatch after
its stage.

Failure is a value: a timeout, exception (any `BaseException`, `SystemExit` included) or bad
return becomes a result with status `timeout`/`error`. With `on_error: block` it also blocks
(deny on PreToolUse and PermissionRequest, block elsewhere); otherwise the dispatch goes on as
if the hook had no opinion. Nothing a hook does escapes `dispatch`: only the host's own
KeyboardInterrupt and the cancellation of the dispatch itself propagate.

The stages run in `run_loop` (the one per-hook step and the stage rules, driven by the inline
fast path or the awaited loop); `HookEngine.monitor` (`monitoring.DispatchMonitor`) watches
each dispatch. What an engine gets when its caller gives none (its services' runners, its
audit and monitor) comes from the installed defaults (`defaults`), never from a concrete
transport or monitor named here.
"""

from __future__ import annotations

import itertools
import sys
import threading
from collections.abc import Callable, Collection, Coroutine, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from hookwright.core.audit_record import AuditCallback
from hookwright.core.events import Event, HookInput, resolve_event
from hookwright.core.logs import LazyLogger
from hookwright.core.results import Verdict, failed_dispatch
from hookwright.core.spec import HookSpec, Mode, OnError, PythonHandler
from hookwright.engine.defaults import DEFAULT_AUDIT, engine_defaults
from hookwright.engine.if_rules import if_rule_matches
from hookwright.engine.observers import ObserverBus, ObserverFunc
from hookwright.engine.run_loop import (
    AwaitedStages,
    InlineStages,
    apply_to_input,
    inline_calls,
    plan_stages,
    run_awaited,
    run_contexts,
    run_inline,
)
from hookwright.engine.services import Services

TYPE_CHECKING = False
if TYPE_CHECKING:
    from asyncio import AbstractEventLoop
    from typing import Any, TypeAlias, TypeVar

    from hookwright.core.matching import IfRule, Matcher, MatcherStyle
    from hookwright.core.run_context import RunContext
    from hookwright.engine.monitoring import AuditTrail, DispatchMonitor
    from hookwright.engine.selection import Candidate

    F = TypeVar("F", bound=Callable[..., Any])
    T = TypeVar("T")

log = LazyLogger("hookwright.engine.kernel")


_SCOPE_ENDING = frozenset({Event.SessionEnd, Event.SubagentStop})
#: Most retired `once` hooks remembered per event (`HookEngine.explain`).
MOST_SPENT = 64


#: A hook's run context under the engine's services (`HookEngine._context`).
ContextOf: TypeAlias = "Callable[[HookSpec], RunContext]"


@dataclass(frozen=True, slots=True)
class _Plan:
    """The stages of one dispatch, and how to run them."""

    #: The stages as `run_awaited` runs them (each hook's run context); empty when `calls`
    #: is not None.
    stages: AwaitedStages
    #: When every hook is a sync Python callable without a timeout (`HookSpec.inline`): the
    #: stages as calls, which `run_inline` makes on the dispatching thread; else None.
    calls: InlineStages | None

    @classmethod
    def of(cls, selected: list[HookSpec], context_of: ContextOf) -> _Plan:
        if not selected:
            return _NOTHING
        stages = plan_stages(selected)
        if all(spec.inline for spec in selected):
            return cls((), inline_calls(stages))
        return cls(run_contexts(stages, context_of), None)


_NOTHING = _Plan((), ())


@dataclass(frozen=True, slots=True)
class _Candidates:
    """The hooks of one event whose matcher accepts one match value, in run order, with what
    `dispatch` can decide about them once instead of on every call."""

    hooks: list[HookSpec]
    #: When every hook is enabled, unscoped and has no per-input condition (all of them are
    #: selected, whatever the input): their plan, made once; else None.
    plan: _Plan | None

    @classmethod
    def of(cls, hooks: list[HookSpec], value: str | None, context_of: ContextOf) -> _Candidates:
        candidates = [
            spec
            for spec in hooks
            if spec.matcher is None or spec.match_field is not None or spec.matcher.matches(value)
        ]
        plain = all(
            spec.enabled
            and spec.scope is None
            and spec.match_field is None
            and spec.if_rule is None
            and spec.when is None
            and spec.dedup_key is None
            for spec in candidates
        )
        return cls(candidates, _Plan.of(candidates, context_of) if plain else None)


#: The candidates of an event without hooks.
_NO_CANDIDATES = _Candidates([], _NOTHING)
#: Stands for the candidates of an event some hook of which matches on the match value: they
#: are looked up by (event, value).
_BY_VALUE = _Candidates([], None)


class _LoopThread:
    """A private event loop in a daemon thread, for sync hosts running async hooks."""

    def __init__(self) -> None:
        import asyncio

        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="hookwright-loop", daemon=True
        )
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        import asyncio

        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5.0)
        self.loop.close()


class HookEngine:
    """The one engine every dialect and every host uses.

    `services` are what the session lends its hooks at run time (`RunContext.services`): the
    model prompt/agent hooks use, the async-hook inbox, the I/O loop of hook processes and
    counters. Each engine gets its own unless given some; the engine closes their I/O loop when
    it closes. Replace `engine.services` (e.g. `dataclasses.replace(engine.services,
    evaluator=...)`) to plug in a model later."""

    def __init__(
        self,
        *,
        audit_path: Path | str | None = DEFAULT_AUDIT,
        observer_capacity: int = 1024,
        observer_timeout: float = 0.5,
        services: Services | None = None,
    ) -> None:
        audit, watch = engine_defaults().watch(audit_path, _explain_with_warnings)
        #: What watches every dispatch: by default the debug trace, the OpenTelemetry spans
        #: (when the environment names a collector) and the audit.
        self.monitor: DispatchMonitor = watch
        #: The default monitor, kept when `monitor` is wrapped or replaced: it follows the audit.
        self._watch = watch
        self._services = services if services is not None else Services()
        #: Each hook's run context under `services`, made on its first awaited run (cleared
        #: whenever the hooks or the services change).
        self._contexts: dict[HookSpec, RunContext] = {}
        self._audit = audit
        self._use_audit(audit)
        self.observers = ObserverBus(capacity=observer_capacity, timeout=observer_timeout)
        self._by_event: dict[Event, list[HookSpec]] = {}
        #: (event, match value) -> the hooks whose matcher accepts it (`_Candidates`), and
        #: event -> its candidates when none of its hooks matches on the value (else
        #: `_BY_VALUE`); cleared whenever the hooks change.
        self._candidates: dict[Event | tuple[Event, str | None], _Candidates] = {}
        self._once_hooks = 0
        #: Event -> its `once` hooks that ran and were retired (the last `MOST_SPENT`), so
        #: `explain` can say why they no longer run.
        self._spent: dict[Event, list[HookSpec]] = {}
        self._order = itertools.count()
        self._loop_thread: _LoopThread | None = None
        self._loop_lock = threading.Lock()
        self._empty: dict[Event, Verdict] = {}

    @property
    def services(self) -> Services:
        return self._services

    @services.setter
    def services(self, services: Services) -> None:
        """Replace the services every hook run from now on is lent (its plans and run contexts
        are made again)."""
        self._services = services
        self._contexts.clear()
        self._candidates.clear()

    def _context(self, spec: HookSpec) -> RunContext:
        """The run context `spec` is handed on every run under the current services."""
        context = self._contexts.get(spec)
        if context is None:
            from hookwright.core.run_context import RunContext  # the first hook awaited

            context = self._contexts[spec] = RunContext(spec, spec.timeout, self._services)
        return context

    @property
    def audit(self) -> AuditTrail:
        """The audit log: its secrets are redacted from every result, and the async inbox
        reports the background hooks' runs to it."""
        return self._audit

    @audit.setter
    def audit(self, audit: AuditTrail) -> None:
        """Replace the audit log (`engine.audit = AuditLog(path, ...)`): the default monitor
        writes to it, the inbox reports to it and its secrets are redacted from then on."""
        self._audit = audit
        self._watch.use_audit(audit)
        self._use_audit(audit)

    def _use_audit(self, audit: AuditTrail) -> None:
        self.services.inbox.report_to(audit.submit, audit.secrets)
        #: The audit's secrets (a live view), redacted from every result.
        self._secrets = audit.secrets

    # Registration ---------------------------------------------------------------------------

    def register(self, spec: HookSpec) -> HookSpec:
        """Add a hook; returns the registered spec (a copy numbered in declaration order: keep
        it to `unregister`). Secret values it carries (`spec.secrets`, e.g. resolved
        `${secrets.X}`) are registered with the audit so they are never written."""
        spec = replace(spec, order=next(self._order))
        for secret in spec.secrets:
            self.audit.add_secret(str(secret))
        hooks = [*self._by_event.get(spec.event, ()), spec]
        hooks.sort(key=lambda s: s.sort_key)
        self._set_hooks(spec.event, hooks)
        return spec

    def unregister(self, spec: HookSpec) -> bool:
        hooks = self._by_event.get(spec.event)
        if not hooks or spec not in hooks:
            return False
        self._set_hooks(spec.event, [s for s in hooks if s is not spec])
        return True

    def _set_hooks(self, event: Event, hooks: list[HookSpec]) -> None:
        if hooks:
            self._by_event[event] = hooks
        else:
            self._by_event.pop(event, None)
        self._candidates.clear()
        self._contexts.clear()
        self._once_hooks = sum(1 for specs in self._by_event.values() for s in specs if s.once)

    def hooks(self, event: Event | str | None = None) -> list[HookSpec]:
        if event is not None:
            return list(self._by_event.get(resolve_event(event), ()))
        return [spec for specs in self._by_event.values() for spec in specs]

    def add(
        self,
        func: Callable[..., Any],
        event: Event | str,
        *,
        matcher: str | None = None,
        if_: str | None = None,
        priority: int = 0,
        timeout: float | None = None,
        on_error: OnError = "continue",
        mode: Mode = "parallel",
        name: str | None = None,
        scope: str | None = None,
        once: bool = False,
        matcher_style: MatcherStyle = "claude",
        source: str = "in-process",
    ) -> HookSpec:
        """Register a Python callable `func(inp: HookInput)` returning a HookResult, a dict of
        its fields, or None (no opinion). Sync or async."""
        canonical = resolve_event(event)
        if timeout is not None and timeout <= 0:
            raise ValueError(f"hook {name or func.__name__}: timeout must be > 0, got {timeout}")
        compiled, if_rule = _rules_of(matcher, matcher_style, if_)
        spec = HookSpec(
            name=name or str(getattr(func, "__qualname__", repr(func))),
            event=canonical,
            handler=PythonHandler(func),
            matcher=compiled,
            if_rule=if_rule,
            source=source,
            mode=mode,
            priority=priority,
            timeout=timeout,
            on_error=on_error,
            once=once,
            scope=scope,
            origin=_origin_of(func),
        )
        return self.register(spec)

    def on(
        self,
        event: Event | str,
        *,
        matcher: str | None = None,
        if_: str | None = None,
        priority: int = 0,
        timeout: float | None = None,
        on_error: OnError = "continue",
        mode: Mode = "parallel",
        name: str | None = None,
        scope: str | None = None,
        once: bool = False,
        matcher_style: MatcherStyle = "claude",
    ) -> Callable[[F], F]:
        """Decorator form of `add`: `@engine.on("PreToolUse", matcher="Bash", if_="Bash(rm *)")`."""

        def decorate(func: F) -> F:
            self.add(
                func,
                event,
                matcher=matcher,
                if_=if_,
                priority=priority,
                timeout=timeout,
                on_error=on_error,
                mode=mode,
                name=name,
                scope=scope,
                once=once,
                matcher_style=matcher_style,
            )
            return func

        return decorate

    @contextmanager
    def scoped(self, scope_id: str) -> Iterator[ScopedHooks]:
        """Register hooks for one session or agent; they are removed when the block exits."""
        scoped = ScopedHooks(self, scope_id)
        try:
            yield scoped
        finally:
            self.end_scope(scope_id)

    def end_scope(self, scope_id: str) -> int:
        """Remove every hook registered for `scope_id`; returns how many were removed."""
        removed = 0
        for spent in self._spent.values():
            spent[:] = [s for s in spent if s.scope != scope_id]
        for event in list(self._by_event):
            hooks = self._by_event[event]
            kept = [s for s in hooks if s.scope != scope_id]
            if len(kept) != len(hooks):
                removed += len(hooks) - len(kept)
                self._set_hooks(event, kept)
        return removed

    # Observers and audit --------------------------------------------------------------------

    def add_observer(
        self, func: ObserverFunc, kinds: Collection[str] | None = None, name: str | None = None
    ) -> None:
        self.observers.add(func, kinds, name)

    def publish(self, kind: str, payload: dict[str, Any] | None = None) -> bool:
        """Send a runtime event to the observers without waiting for them."""
        return self.observers.publish(kind, payload)

    def add_audit_callback(self, callback: AuditCallback) -> None:
        self.audit.add_callback(callback)

    # Selection ------------------------------------------------------------------------------

    def select(self, inp: HookInput) -> list[HookSpec]:
        cached = self._candidates_of(inp)
        if cached.plan is not None:
            return cached.hooks.copy()
        return self._select_from(cached.hooks, inp)

    def _candidates_of(self, inp: HookInput) -> _Candidates:
        """The cached candidates of the input's event and match value (of the event alone
        when no hook of it matches on the value)."""
        event = inp.event
        cached = self._candidates.get(event)
        if cached is None:
            cached = self._candidates[event] = self._event_candidates(event)
        if cached is not _BY_VALUE:
            return cached
        value = inp.match_value()
        key = (event, value)
        cached = self._candidates.get(key)
        if cached is None:
            cached = _Candidates.of(self._by_event.get(event, []), value, self._context)
            if len(self._candidates) > 4096:
                self._candidates.clear()
            self._candidates[key] = cached
        return cached

    def _event_candidates(self, event: Event) -> _Candidates:
        hooks = self._by_event.get(event)
        if not hooks:
            return _NO_CANDIDATES
        if any(spec.matcher is not None and spec.match_field is None for spec in hooks):
            return _BY_VALUE
        return _Candidates.of(hooks, None, self._context)

    @staticmethod
    def _select_from(candidates: list[HookSpec], inp: HookInput) -> list[HookSpec]:
        selected: list[HookSpec] = []
        seen_keys: set[Any] | None = None
        for spec in candidates:
            if not spec.enabled:
                continue
            scope = spec.scope
            if scope is not None and scope != inp.session_id and scope != inp.agent_id:
                continue
            if (
                spec.match_field is not None
                and spec.matcher is not None
                and not spec.matcher.matches(inp.match_value(spec.match_field))
            ):
                continue
            if spec.if_rule is not None and not if_rule_matches(spec.if_rule, inp):
                continue
            if spec.when is not None and not spec.when(inp):
                continue
            if spec.dedup_key is not None:
                if seen_keys is None:
                    seen_keys = set()
                if spec.dedup_key in seen_keys:
                    continue
                seen_keys.add(spec.dedup_key)
            selected.append(spec)
        return selected

    def explain(self, inp: HookInput) -> list[Candidate]:
        """Every hook registered on the input's event, in run order, selected or not and why
        (the checks of `select`, spelled out), then its `once` hooks that ran already."""
        from hookwright.engine.selection import explain

        event = inp.event
        return explain(self._by_event.get(event, ()), inp, self._spent.get(event, ()))

    # Dispatch -------------------------------------------------------------------------------

    async def dispatch(self, inp: HookInput, selected: list[HookSpec] | None = None) -> Verdict:
        """Run every hook selected for `inp` and return the merged verdict. `selected`: what
        `select(inp)` returned, when the caller already asked (it is not selected again)."""
        if selected is None:
            cached = self._candidates.get(inp.event)  # `_candidates_of`, its usual case inline
            if cached is None or cached is _BY_VALUE:
                cached = self._candidates_of(inp)
            plan = cached.plan or _Plan.of(self._select_from(cached.hooks, inp), self._context)
        else:
            plan = _Plan.of(selected, self._context)
        mark = self.monitor.before(inp, self._by_event)
        if plan.calls is None:
            verdict = await run_awaited(inp, plan.stages, self._secrets)
        elif plan.calls:
            verdict = run_inline(inp, plan.calls, self._secrets)
        else:
            verdict = self._empty_verdict(inp.event)
        if mark is not None:
            self.monitor.after(inp, verdict, mark)
        if self._once_hooks or inp.event in _SCOPE_ENDING:
            self._retire(inp, verdict)
        return verdict

    def dispatch_sync(self, inp: HookInput) -> Verdict:
        """The sync facade: the same dispatch, run to its end on the calling thread. Sync
        Python hooks run on it; anything else runs on the engine's private event loop thread."""
        cached = self._candidates_of(inp)
        plan = cached.plan or _Plan.of(self._select_from(cached.hooks, inp), self._context)
        if plan.calls is None and _in_running_loop():
            return failed_dispatch(
                inp.event,
                f"hookwright could not run the {inp.event} hooks: dispatch_sync() was "
                "called from a running event loop with hooks that need one; use `await "
                "engine.dispatch(inp)` or hookwright.host.SyncHookSession",
            )
        mark = self.monitor.before(inp, self._by_event)
        if plan.calls is None:
            awaited = run_awaited(inp, plan.stages, self._secrets)
            verdict = self._loop().run(awaited)
        elif plan.calls:
            verdict = run_inline(inp, plan.calls, self._secrets)
        else:
            verdict = self._empty_verdict(inp.event)
        if mark is not None:
            self.monitor.after(inp, verdict, mark)
        if self._once_hooks or inp.event in _SCOPE_ENDING:
            self._retire(inp, verdict)
        return verdict

    def _empty_verdict(self, event: Event) -> Verdict:
        """The shared verdict of a dispatch that selected no hook. Verdicts are read-only for
        hosts; sharing this one keeps the no-hook path allocation-free."""
        verdict = self._empty.get(event)
        if verdict is None:
            verdict = self._empty[event] = Verdict(event)
        return verdict

    def _loop(self) -> _LoopThread:
        with self._loop_lock:
            if self._loop_thread is None:
                self._loop_thread = _LoopThread()
            return self._loop_thread

    def _retire(self, inp: HookInput, verdict: Verdict) -> None:
        """After a dispatch: the `once` hooks that ran are removed, and so are a session's or
        agent's hooks when it ends (unless a hook kept it going)."""
        for spec, _result, _duration in verdict.runs:
            if spec.once and self.unregister(spec):
                spent = self._spent.setdefault(spec.event, [])
                spent.append(spec)
                del spent[:-MOST_SPENT]
        if inp.event in _SCOPE_ENDING and not (verdict.blocked and verdict.continue_):
            self._end_scopes(inp)

    def _end_scopes(self, inp: HookInput) -> None:
        if inp.event is Event.SessionEnd and inp.session_id:
            self.end_scope(inp.session_id)
        elif inp.event is Event.SubagentStop and inp.agent_id:
            self.end_scope(inp.agent_id)

    # Shutdown -------------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Deliver queued observer events, close handlers that hold resources (processes,
        clients), then flush the audit."""
        import asyncio

        await asyncio.to_thread(self.observers.drain, 2.0)
        for spec in self.hooks():
            closer = getattr(spec.handler, "aclose", None)
            if closer is not None:
                try:
                    await closer()
                except Exception:
                    log.exception("closing hook %s failed", spec.name)
        self._shutdown()

    def close(self) -> None:
        """Close from synchronous code; from a coroutine, `await aclose()`. Raises
        RuntimeError when hooks hold resources that must be closed on the engine's own event
        loop (its I/O loop or the loop it runs async hooks on) and it is called from a
        coroutine on that loop: it would wait forever on the loop it blocks."""
        closers = [
            closer
            for spec in self.hooks()
            if (closer := getattr(spec.handler, "aclose", None)) is not None
        ]
        if closers:
            self._refuse_own_loop()
        self.observers.drain(timeout=2.0)
        if closers:
            loop = self._loop()

            async def close_all() -> None:
                for closer in closers:
                    try:
                        await closer()
                    except Exception:
                        log.exception("closing a hook failed")

            loop.run(close_all())
        self._shutdown()

    def _refuse_own_loop(self) -> None:
        running = _running_loop()
        if running is None:
            return
        private = self._loop_thread
        runs_on = getattr(self.services.io, "runs_on", None)  # an `IoLoop` (a host's may not)
        on_io = runs_on is not None and bool(runs_on(running))
        if on_io or (private is not None and running is private.loop):
            raise RuntimeError(
                "HookEngine.close() was called from a coroutine on the engine's own event loop, "
                "which it would wait on forever; use `await engine.aclose()` there"
            )

    def _shutdown(self) -> None:
        self.audit.close()
        self.observers.close()
        self.services.io.close()
        self.services.workers.close()
        self.services.warm_python.close()
        self.services.state.close()
        with self._loop_lock:
            if self._loop_thread is not None:
                self._loop_thread.stop()
                self._loop_thread = None


class ScopedHooks:
    """Registers hooks bound to one session or agent id."""

    def __init__(self, engine: HookEngine, scope_id: str) -> None:
        self.engine = engine
        self.scope_id = scope_id

    def add(self, func: Callable[..., Any], event: Event | str, **options: Any) -> HookSpec:
        return self.engine.add(func, event, scope=self.scope_id, source="session", **options)

    def on(self, event: Event | str, **options: Any) -> Callable[[F], F]:
        def decorate(func: F) -> F:
            self.add(func, event, **options)
            return func

        return decorate


def _in_running_loop() -> bool:
    return _running_loop() is not None


def _running_loop() -> AbstractEventLoop | None:
    """The running event loop, if any; none runs before asyncio is loaded, and asking does not
    load it (a process answering one event with sync hooks never needs it)."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return None
    loop: AbstractEventLoop | None = asyncio._get_running_loop()
    return loop


def _explain_with_warnings(
    hooks: Sequence[HookSpec], inp: HookInput
) -> tuple[list[Candidate], list[str]]:
    """`engine.selection.explain_with_warnings`, loaded when the debug trace first explains a
    dispatch (an engine without the trace never does)."""
    from hookwright.engine.selection import explain_with_warnings

    return explain_with_warnings(hooks, inp)


def _rules_of(
    matcher: str | None, style: MatcherStyle, if_: str | None
) -> tuple[Matcher | None, IfRule | None]:
    """A hook's compiled matcher and `if` rule, each None where it has none: the matching
    rules load with the first hook that has one."""
    if matcher is None and if_ is None:
        return None, None
    from hookwright.core.matching import IfRule, compile_matcher

    compiled = compile_matcher(matcher, style) if matcher is not None else None
    return compiled, IfRule.parse(if_) if if_ is not None else None


def _origin_of(func: Callable[..., Any]) -> str | None:
    code = getattr(func, "__code__", None)
    if code is None:
        return None
    return f"{code.co_filename}:{code.co_firstlineno}"


__all__ = ["HookEngine", "ScopedHooks", "apply_to_input", "plan_stages"]
