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
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import time
from collections.abc import Callable, Collection, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar, overload

from hookwright.core.events import (
    INPUT_FIELD,
    MODEL_REQUEST_FIELDS,
    OUTPUT_FIELD,
    Event,
    HookInput,
    resolve_event,
)
from hookwright.core.matching import IfRule, MatcherStyle, compile_matcher
from hookwright.core.outward import make_outward
from hookwright.core.results import Decision, HookResult, Status, Verdict, failed_dispatch
from hookwright.core.spec import HookSpec, Mode, OnError, PythonHandler, RunContext, escapes_hook
from hookwright.engine.observers import ObserverBus, ObserverFunc
from hookwright.engine.selection import Candidate, if_rule_matches
from hookwright.engine.selection import explain as explain_selection
from hookwright.engine.services import Services
from hookwright.monitor import tracing
from hookwright.monitor.audit import AuditCallback, AuditLog, default_audit_path
from hookwright.monitor.debug import state as _debug
from hookwright.monitor.otel import DispatchSpans, spans_from_environment
from hookwright.transports.workers import HookCrashed

log = logging.getLogger("hookwright.engine.kernel")

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

_DEFAULT: Any = object()

_SCOPE_ENDING = frozenset({Event.SessionEnd, Event.SubagentStop})

#: Events whose blocking answer is called "deny" rather than "block".
_DENY_EVENTS = frozenset({Event.PreToolUse, Event.PermissionRequest})


def _error_result(spec: HookSpec, status: Status, message: str) -> HookResult:
    result = HookResult(status=status, error=message, hook=spec)
    if spec.on_error == "block":
        result.decision = Decision.deny if spec.event in _DENY_EVENTS else Decision.block
        result.reason = f"hook {spec.name} {'timed out' if status is Status.timeout else 'failed'}"
        if message:
            result.reason += f": {message}"
    return result


@overload
def _finish(
    spec: HookSpec, result: HookResult, duration_ns: int, secrets: Collection[str]
) -> HookResult: ...
@overload
def _finish(spec: HookSpec, result: None, duration_ns: int, secrets: Collection[str]) -> None: ...
def _finish(
    spec: HookSpec, result: HookResult | None, duration_ns: int, secrets: Collection[str]
) -> HookResult | None:
    """Stamp provenance and duration, redact `secrets` and cap the texts (`outward`); a
    result object shared between hooks is copied."""
    if result is None:
        return None
    if result.hook is not None and result.hook is not spec:
        result = replace(result)
    result.hook = spec
    result.duration_ms = duration_ns / 1e6
    if (
        result.status in (Status.error, Status.timeout)
        and spec.on_error == "block"
        and result.decision not in (Decision.deny, Decision.block)
    ):
        blocked = _error_result(spec, result.status, result.error or "")
        result.decision = blocked.decision
        result.reason = blocked.reason
    make_outward(result, secrets)
    return result


def apply_to_input(inp: HookInput, verdict: Verdict) -> HookInput:
    """The input the next stage sees: the current one with the verdict's rewrites applied,
    and the dialects' chain state carried along."""
    updates: dict[str, Any] = dict(verdict.payload_updates)
    if verdict.updated_input is not None:
        field_name = INPUT_FIELD.get(inp.event)
        if field_name is not None:
            updates[field_name] = verdict.updated_input
        elif inp.event is Event.PreModelCall:
            for key in MODEL_REQUEST_FIELDS:
                if key in verdict.updated_input:
                    updates[key] = verdict.updated_input[key]
    if verdict.updated_output is not None:
        out_field = OUTPUT_FIELD.get(inp.event)
        if out_field is not None:
            updates[out_field] = verdict.updated_output
    rewritten = inp.with_payload(**updates) if updates else inp
    if verdict.chain_state:
        rewritten = rewritten.with_chain_state(verdict.chain_state)
    return rewritten


#: One hook of the inline fast path: its spec, its callable and the decoder of its return value.
_Call = tuple[HookSpec, Callable[[Any], Any], Callable[[Any], HookResult | None]]


def _calls_of(selected: list[HookSpec]) -> tuple[_Call, ...]:
    """The inline calls of hooks that are all sync Python callables (`HookSpec.inline`)."""
    calls: list[_Call] = []
    for spec in selected:
        handler = spec.handler
        assert isinstance(handler, PythonHandler)
        calls.append((spec, handler.func, handler.decode))
    return tuple(calls)


@dataclass(frozen=True, slots=True)
class _Candidates:
    """The hooks of one event whose matcher accepts one match value, in run order, with what
    `dispatch` can decide about them once instead of on every call."""

    hooks: list[HookSpec]
    #: Every hook is enabled, unscoped and has no per-input condition: all of them are
    #: selected, whatever the input.
    plain: bool
    #: When plain, not empty, and every hook is a sync Python callable in parallel mode (one
    #: stage, run inline by `HookEngine._run_calls`): each hook's call; else None.
    calls: tuple[_Call, ...] | None
    #: When plain and the only hook is not a sync callable (a process, an HTTP endpoint, an
    #: async function): that hook, awaited by `HookEngine._dispatch_one`; else None.
    single: HookSpec | None

    @classmethod
    def of(cls, hooks: list[HookSpec], value: str | None) -> _Candidates:
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
        one_inline_stage = all(spec.inline and spec.mode == "parallel" for spec in candidates)
        calls = _calls_of(candidates) if plain and candidates and one_inline_stage else None
        awaited = plain and len(candidates) == 1 and not candidates[0].inline
        return cls(candidates, plain, calls, candidates[0] if awaited else None)


class _LoopThread:
    """A private event loop in a daemon thread, for sync hosts running async hooks."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="hookwright-loop", daemon=True
        )
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
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
        audit_path: Path | str | None = _DEFAULT,
        observer_capacity: int = 1024,
        observer_timeout: float = 0.5,
        services: Services | None = None,
    ) -> None:
        path = default_audit_path() if audit_path is _DEFAULT else audit_path
        self.audit = AuditLog(Path(path) if path is not None else None)
        self.services = services if services is not None else Services()
        self.services.inbox.bind_audit(self.audit)
        #: OpenTelemetry spans of every dispatch, when the environment names a collector.
        self.spans: DispatchSpans | None = spans_from_environment(self.audit)
        self.observers = ObserverBus(capacity=observer_capacity, timeout=observer_timeout)
        self._by_event: dict[Event, list[HookSpec]] = {}
        #: (event, match value) -> the hooks whose matcher accepts it (`_Candidates`); cleared
        #: whenever the hooks change.
        self._candidates: dict[tuple[Event, str | None], _Candidates] = {}
        self._once_hooks = 0
        #: Events whose hooks are all sync Python callables (no event loop needed).
        self._inline_events: set[Event] = set()
        self._order = itertools.count()
        self._loop_thread: _LoopThread | None = None
        self._loop_lock = threading.Lock()
        self._empty: dict[Event, Verdict] = {}

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
        self._once_hooks = sum(1 for specs in self._by_event.values() for s in specs if s.once)
        self._inline_events = {
            ev for ev, specs in self._by_event.items() if all(s.inline for s in specs)
        }

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
        spec = HookSpec(
            name=name or str(getattr(func, "__qualname__", repr(func))),
            event=canonical,
            handler=PythonHandler(func),
            matcher=compile_matcher(matcher, matcher_style) if matcher is not None else None,
            if_rule=IfRule.parse(if_) if if_ is not None else None,
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
        if cached is None:
            return []
        if cached.plain:
            return cached.hooks.copy()
        return self._select_from(cached.hooks, inp)

    def _candidates_of(self, inp: HookInput) -> _Candidates | None:
        """The cached candidates of the input's event and match value; None when the event
        has no hooks."""
        hooks = self._by_event.get(inp.event)
        if not hooks:
            return None
        value = inp.match_value()
        key = (inp.event, value)
        cached = self._candidates.get(key)
        if cached is None:
            cached = _Candidates.of(hooks, value)
            if len(self._candidates) > 4096:
                self._candidates.clear()
            self._candidates[key] = cached
        return cached

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
        (the checks of `select`, spelled out)."""
        return explain_selection(self._by_event.get(inp.event, ()), inp)

    # Dispatch -------------------------------------------------------------------------------

    def _empty_verdict(self, event: Event) -> Verdict:
        """The shared verdict of a dispatch that selected no hook. Verdicts are read-only for
        hosts; sharing this one keeps the no-hook path allocation-free."""
        verdict = self._empty.get(event)
        if verdict is None:
            verdict = self._empty[event] = Verdict(event)
        return verdict

    def _nothing_selected(self, inp: HookInput) -> Verdict:
        if inp.event in _SCOPE_ENDING:
            if self.spans is not None and inp.event is Event.SessionEnd:
                self.spans.session_end(inp)
            self._end_scopes(inp)
        return self._empty_verdict(inp.event)

    def _selected(self, cached: _Candidates | None, inp: HookInput) -> list[HookSpec]:
        """`select(inp)` from its cached candidates, without copying a plain list (the
        dispatch only reads it)."""
        if cached is None:
            return []
        return cached.hooks if cached.plain else self._select_from(cached.hooks, inp)

    def _dispatch_calls(self, inp: HookInput, calls: tuple[_Call, ...]) -> Verdict:
        """The dispatch of one inline stage (`_Candidates.calls`)."""
        started = time.time_ns() if self.spans is not None else 0
        verdict = self._run_calls(inp, calls)
        self._after_dispatch(inp, verdict, started)
        return verdict

    async def dispatch(self, inp: HookInput, selected: list[HookSpec] | None = None) -> Verdict:
        """Run every hook selected for `inp` and return the merged verdict. `selected`: what
        `select(inp)` returned, when the caller already asked (it is not selected again)."""
        if selected is None:
            cached = self._candidates_of(inp)
            if not _debug.on:
                if cached is None:
                    return self._nothing_selected(inp)
                if cached.calls is not None:
                    return self._dispatch_calls(inp, cached.calls)
                if cached.single is not None:
                    return await self._dispatch_one(inp, cached.single)
            selected = self._selected(cached, inp)
        started = time.time_ns() if self.spans is not None else 0
        if _debug.on:
            tracing.selection(self._by_event.get(inp.event, ()), inp)
        if not selected:
            return self._nothing_selected(inp)
        if inp.event in self._inline_events or all(spec.inline for spec in selected):
            verdict = self._run_inline(inp, selected)
        else:
            verdict = await self._run_staged(inp, selected)
        self._after_dispatch(inp, verdict, started)
        return verdict

    async def _dispatch_one(self, inp: HookInput, spec: HookSpec) -> Verdict:
        """The dispatch of a plain event with one hook that is awaited: one stage, no plan."""
        started = time.time_ns() if self.spans is not None else 0
        verdict = Verdict(inp.event)
        run = await self._run_one(spec, inp)
        verdict.runs.append(run)
        if run[1] is not None:
            verdict.absorb(run[1])
        self._after_dispatch(inp, verdict, started)
        return verdict

    def dispatch_sync(self, inp: HookInput) -> Verdict:
        """The sync facade. Sync Python hooks run on the calling thread; anything else runs on
        the engine's private event loop thread."""
        cached = self._candidates_of(inp)
        if not _debug.on:
            if cached is None:
                return self._nothing_selected(inp)
            if cached.calls is not None:
                return self._dispatch_calls(inp, cached.calls)
        selected = self._selected(cached, inp)
        started = time.time_ns() if self.spans is not None else 0
        if _debug.on:
            tracing.selection(self._by_event.get(inp.event, ()), inp)
        if not selected:
            return self._nothing_selected(inp)
        if inp.event in self._inline_events or all(spec.inline for spec in selected):
            verdict = self._run_inline(inp, selected)
        else:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                pass
            else:
                return failed_dispatch(
                    inp.event,
                    f"hookwright could not run the {inp.event} hooks: dispatch_sync() was "
                    "called from a running event loop with hooks that need one; use `await "
                    "engine.dispatch(inp)` or hookwright.host.SyncHookSession",
                )
            verdict = self._loop().run(self._run_staged(inp, selected))
        self._after_dispatch(inp, verdict, started)
        return verdict

    def _loop(self) -> _LoopThread:
        with self._loop_lock:
            if self._loop_thread is None:
                self._loop_thread = _LoopThread()
            return self._loop_thread

    def _after_dispatch(self, inp: HookInput, verdict: Verdict, started: int) -> None:
        if _debug.on:
            tracing.results(verdict)
        if self.spans is not None:
            self.spans.dispatch(inp, verdict, started)
        if self._once_hooks:
            for spec, _result, _duration in verdict.runs:
                if spec.once:
                    self.unregister(spec)
        self.audit.submit(verdict, inp.session_id, inp)
        if inp.event in _SCOPE_ENDING and not (verdict.blocked and verdict.continue_):
            self._end_scopes(inp)

    def _end_scopes(self, inp: HookInput) -> None:
        if inp.event is Event.SessionEnd and inp.session_id:
            self.end_scope(inp.session_id)
        elif inp.event is Event.SubagentStop and inp.agent_id:
            self.end_scope(inp.agent_id)

    def _run_inline(self, inp: HookInput, selected: list[HookSpec]) -> Verdict:
        """Every selected hook is a sync callable: run them in plan order on this thread. A
        parallel stage of sync callables completes in call order, so the merge is the same as
        in `_run_staged`; hooks of one stage all see the stage's input."""
        if all(spec.mode == "parallel" for spec in selected):
            return self._run_calls(inp, _calls_of(selected))
        verdict = Verdict(inp.event)
        runs = verdict.runs
        perf = time.perf_counter_ns
        current = inp
        last = len(selected) - 1
        for index, spec in enumerate(selected):
            handler: PythonHandler = spec.handler  # type: ignore[assignment]
            started = perf()
            try:
                raw = handler.func(current)
                result = raw if raw is None or type(raw) is HookResult else handler.decode(raw)
            except BaseException as exc:
                if escapes_hook(exc):
                    raise
                result = _error_result(spec, Status.error, _describe_exception(exc))
            duration = perf() - started
            if result is None:
                runs.append((spec, None, duration))
            else:
                result = _finish(spec, result, duration, self.audit.secrets)
                runs.append((spec, result, duration))
                verdict.absorb(result)
            stage_ends = (
                spec.mode == "chain" or index == last or selected[index + 1].mode == "chain"
            )
            if stage_ends:
                if verdict.terminal:
                    break
                if verdict.rewritten:
                    current = apply_to_input(current, verdict)
        return verdict

    def _run_calls(self, inp: HookInput, calls: tuple[_Call, ...]) -> Verdict:
        """One parallel stage of sync callables, run in order on this thread; each hook's
        duration runs from the previous hook's end (one clock read per hook)."""
        verdict = Verdict(inp.event)
        record = verdict.runs.append
        perf = time.perf_counter_ns
        started = perf()
        for spec, func, decode in calls:
            try:
                raw = func(inp)
                result = raw if raw is None or type(raw) is HookResult else decode(raw)
            except BaseException as exc:
                if escapes_hook(exc):
                    raise
                result = _error_result(spec, Status.error, _describe_exception(exc))
            finished = perf()
            if result is None:
                record((spec, None, finished - started))
            else:
                result = _finish(spec, result, finished - started, self.audit.secrets)
                record((spec, result, finished - started))
                verdict.absorb(result)
            started = finished
        return verdict

    async def _run_staged(self, inp: HookInput, selected: list[HookSpec]) -> Verdict:
        verdict = Verdict(inp.event)
        if len(selected) == 1:
            # One hook, one stage: no plan to build.
            spec, result, duration = await self._run_one(selected[0], inp)
            verdict.runs.append((spec, result, duration))
            if result is not None:
                verdict.absorb(result)
            return verdict
        current = inp
        for stage in _plan(selected):
            if len(stage) == 1:
                results = [await self._run_one(stage[0], current)]
            else:
                tasks = [asyncio.ensure_future(self._run_one(spec, current)) for spec in stage]
                results = []
                try:
                    for next_done in asyncio.as_completed(tasks):
                        results.append(await next_done)
                except asyncio.CancelledError:
                    for task in tasks:
                        task.cancel()
                    await asyncio.gather(*tasks, return_exceptions=True)
                    raise
            for spec, result, duration in results:
                verdict.runs.append((spec, result, duration))
                if result is not None:
                    verdict.absorb(result)
            if verdict.terminal:
                break
            if verdict.rewritten:
                current = apply_to_input(current, verdict)
        return verdict

    async def _run_one(
        self, spec: HookSpec, inp: HookInput
    ) -> tuple[HookSpec, HookResult | None, int]:
        started = time.perf_counter_ns()
        timeout = spec.timeout
        try:
            if timeout is None:
                result = await spec.handler(inp, RunContext(spec, None, self.services))
            elif getattr(spec.handler, "enforces_timeout", False) is True:
                # The handler bounds every await by a timeout below `spec.timeout` (a PicoClaw
                # handler): a second scope would only add a timer per call.
                result = await spec.handler(inp, RunContext(spec, timeout, self.services))
            else:
                async with asyncio.timeout(timeout):
                    result = await spec.handler(inp, RunContext(spec, timeout, self.services))
        except TimeoutError:
            result = _error_result(spec, Status.timeout, f"timed out after {timeout:g}s")
        except BaseException as exc:
            if escapes_hook(exc):
                raise
            result = _error_result(spec, Status.error, _describe_exception(exc))
        duration = time.perf_counter_ns() - started
        return spec, _finish(spec, result, duration, self.audit.secrets), duration

    # Shutdown -------------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Deliver queued observer events, close handlers that hold resources (processes,
        clients), then flush the audit."""
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
        closers = [
            closer
            for spec in self.hooks()
            if (closer := getattr(spec.handler, "aclose", None)) is not None
        ]
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

    def _shutdown(self) -> None:
        self.audit.close()
        self.observers.close()
        self.services.io.close()
        self.services.workers.close()
        self.services.warm_python.close()
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


def _plan(selected: list[HookSpec]) -> list[list[HookSpec]]:
    stages: list[list[HookSpec]] = []
    for spec in selected:
        if spec.mode == "parallel" and stages and stages[-1][0].mode == "parallel":
            stages[-1].append(spec)
        else:
            stages.append([spec])
    return stages


def plan_stages(selected: list[HookSpec]) -> list[list[HookSpec]]:
    """The stages `dispatch` would run for these (already ordered) hooks."""
    return _plan(selected)


def _describe_exception(exc: BaseException) -> str:
    if isinstance(exc, HookCrashed):
        return str(exc)
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _origin_of(func: Callable[..., Any]) -> str | None:
    code = getattr(func, "__code__", None)
    if code is None:
        return None
    return f"{code.co_filename}:{code.co_firstlineno}"
