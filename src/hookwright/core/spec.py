"""HookSpec: one hook, where it came from, what it listens to and how it runs.

A hook is a handler (how it runs: a Python callable, a process, an HTTP endpoint, a model
prompt) plus the dialect codec inside that handler (what its bytes mean). The engine only sees
`Handler`: an awaitable that takes a `HookInput` and returns a `HookResult` (or None for no
opinion).
"""

from __future__ import annotations

import functools
import inspect
import sys
import threading
from collections.abc import Awaitable, Callable, Collection, Hashable, Mapping
from dataclasses import dataclass, field, fields
from types import CodeType, FunctionType

from hookwright.core.events import Event
from hookwright.core.results import Decision, HookResult
from hookwright.core.systems import system_name
from hookwright.core.tiers import TIER_RANK, Tier
from hookwright.core.tool_results import tool_result_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, Protocol, TypeAlias, TypeVar, runtime_checkable

    from hookwright.core.dialect_data import DialectData
    from hookwright.core.matching import IfRule, Matcher
    from hookwright.core.run_context import RunContext

#: `inspect.CO_COROUTINE`: the code of an ``async def``.
_CO_COROUTINE = 0x80

Mode: TypeAlias = "Literal['parallel', 'chain']"
OnError: TypeAlias = "Literal['continue', 'block']"

#: Mixed-dialect ordering: priority, then this source order, then declaration order.
SOURCE_ORDER: tuple[str, ...] = (
    "in-process",
    "managed",
    "user",
    "project",
    "local",
    "plugin",
    "skill",
    "session",
)
SOURCE_RANK: dict[str, int] = {name: rank for rank, name in enumerate(SOURCE_ORDER)}


#: The protocols the data model names in annotations alone (a `typing` class each, so a
#: process that answers one event does not load `typing` for them).
if TYPE_CHECKING:
    T = TypeVar("T")

    class BlockingRunner(Protocol):
        """Runs a blocking callable for an async caller (the engine's bounded worker pool)."""

        async def run(self, func: Callable[..., T], *args: Any, name: str | None = None) -> T: ...

    class StateSessions(Protocol):
        """The session state store, as far as a Python hook's handler needs it."""

        def session(self, session_id: str | None) -> Any: ...

    class HookServices(Protocol):
        """What the data model needs of a session's services: somewhere to run a blocking Python
        hook, and the session state a Python hook may ask for. The engine's `Services` (model,
        inbox, I/O loop, counters, ...) satisfies it; a handler that needs more reads it through
        `hookwright.engine.services.services_of`."""

        @property
        def workers(self) -> BlockingRunner: ...

        @property
        def state(self) -> StateSessions: ...

    @runtime_checkable
    class Handler(Protocol):
        async def __call__(self, inp: Any, ctx: RunContext) -> HookResult | None: ...


class HookCrashed(Exception):
    """A hook run on a worker thread raised a `BaseException` that is not an `Exception`
    (`SystemExit`, `KeyboardInterrupt` raised by the hook, ...); its text: the original's type
    and message. The run loop turns it into the hook's error result."""


class HookReturnError(TypeError):
    """A Python hook returned something the native codec cannot read."""


_RESULT_FIELDS = frozenset(f.name for f in fields(HookResult)) - {
    "status",
    "error",
    "exit_code",
    "stderr",
    "duration_ms",
    "hook",
    "own_word",  # a codec's, for a system that spells a decision two ways; Python has one
}


def decode_native(value: Any) -> HookResult | None:
    """Read a Python hook's return value: None, a HookResult, a Decision, or a dict of
    HookResult fields (`continue` accepted for `continue_`; a `respond` value is read into
    a `ToolResult` by `tool_result_of`)."""
    if value is None or isinstance(value, HookResult):
        return value
    if isinstance(value, Decision):
        return HookResult(decision=value)
    if isinstance(value, Mapping):
        data = dict(value)
        if "continue" in data:
            data["continue_"] = data.pop("continue")
        unknown = sorted(set(data) - _RESULT_FIELDS)
        if unknown:
            from hookwright.core.words import listed  # only when a hook's answer is wrong

            raise HookReturnError(f"returned unknown {listed(unknown, 'field')}")
        if data.get("decision") is not None:
            try:
                data["decision"] = Decision(data["decision"])
            except ValueError as exc:
                raise HookReturnError(f"returned unknown decision {data['decision']!r}") from exc
        if data.get("respond") is not None:
            data["respond"] = tool_result_of(data["respond"])
        return HookResult(**data)
    raise HookReturnError(f"returned {type(value).__name__}, expected HookResult, dict or None")


def escapes_hook(exc: BaseException) -> bool:
    """Whether `exc`, raised while a hook ran, must propagate instead of becoming the hook's
    error result: a KeyboardInterrupt on the main thread (the host's Ctrl-C; on any other
    thread it can only come from the hook) or the cancellation of the dispatching task."""
    if isinstance(exc, KeyboardInterrupt):
        return threading.current_thread() is threading.main_thread()
    # No cancellation exists before asyncio is loaded (the in-process answer never loads it).
    asyncio = sys.modules.get("asyncio")
    if asyncio is not None and isinstance(exc, asyncio.CancelledError):
        try:
            task = asyncio.current_task()
        except RuntimeError:
            return False
        return task is not None and task.cancelling() > 0
    return False


class PythonHandler:
    """An in-process callable. Sync callables without a timeout run inline on the dispatching
    thread (the fast path); with a timeout they run on the session's bounded worker pool
    (`Services.workers`), which the dispatch stops waiting for at the limit, abandoning the
    thread. Async callables are awaited and cancelled at the limit.

    A callable with a keyword-only parameter ``state`` is also given the session state of the
    input's session (`hookwright.engine.state.SessionState`)."""

    __slots__ = ("decode", "func", "is_async", "wants_state")

    def __init__(
        self,
        func: Callable[..., Any],
        decode: Callable[[Any], HookResult | None] = decode_native,
    ) -> None:
        self.func = func
        self.decode = decode
        if type(func) is FunctionType and not func.__dict__:
            self.is_async, self.wants_state = _read_from_code(func.__code__)
            return
        self.is_async = inspect.iscoroutinefunction(func) or (
            not inspect.isroutine(func) and inspect.iscoroutinefunction(type(func).__call__)
        )
        self.wants_state = _takes_state(func)

    async def __call__(self, inp: Any, ctx: RunContext) -> HookResult | None:
        if self.wants_state:
            return await self._call_with_state(inp, ctx)
        if self.is_async:
            return self.decode(await self.func(inp))
        if ctx.timeout is not None:
            return self.decode(await ctx.services.workers.run(self.func, inp, name=ctx.spec.name))
        return self.decode(self.func(inp))

    async def _call_with_state(self, inp: Any, ctx: RunContext) -> HookResult | None:
        func = functools.partial(self.func, state=ctx.services.state.session(inp.session_id))
        if self.is_async:
            return self.decode(await func(inp))
        if ctx.timeout is not None:
            return self.decode(await ctx.services.workers.run(func, inp, name=ctx.spec.name))
        return self.decode(func(inp))


def _read_from_code(code: CodeType) -> tuple[bool, bool]:
    """Whether a plain function of this code is a coroutine function, and whether it declares
    a keyword-only parameter named ``state``: what `inspect` answers for a function with no
    attribute of its own (none that `inspect` follows: ``__wrapped__``, ``__signature__``, a
    coroutine mark), read without loading `inspect` (the process that answers one event does
    not load it otherwise)."""
    keyword_only = code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]
    return bool(code.co_flags & _CO_COROUTINE), "state" in keyword_only


def _takes_state(func: Callable[..., Any]) -> bool:
    """Whether `func` declares a keyword-only parameter named ``state``."""
    try:
        parameters = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    found = parameters.get("state")
    return found is not None and found.kind is inspect.Parameter.KEYWORD_ONLY


Runner: TypeAlias = "Callable[[Any, RunContext], Awaitable[HookResult | None]]"


@dataclass(slots=True, eq=False, frozen=True)
class HookSpec:
    """One hook as the engine runs it; immutable (the engine registers a numbered copy)."""

    name: str
    event: Event
    handler: Runner
    matcher: Matcher | None = None
    #: Payload field the matcher is tested against when it is not the event's default.
    match_field: str | None = None
    if_rule: IfRule | None = None
    source: str = "in-process"
    dialect: str = "python"
    mode: Mode = "parallel"
    priority: int = 0
    timeout: float | None = None
    on_error: OnError = "continue"
    enabled: bool = True
    once: bool = False
    #: A session or agent id: the hook fires only for inputs of that session/agent and is
    #: removed when it ends.
    scope: str | None = None
    #: Identical keys run once per dispatch (Claude Code's dedup key).
    dedup_key: Hashable | None = None
    #: An extra selection condition a dialect needs (e.g. Claude Code PermissionRequest hooks
    #: run only when a permission prompt would show, PicoClaw approvers on every call).
    when: Callable[[Any], bool] | None = None
    #: Where the hook was declared (file and field path), for diagnostics.
    origin: str | None = None
    description: str | None = None
    #: Shown to the user while the hook runs (Claude Code's ``statusMessage``).
    status_message: str | None = None
    #: Set by the engine: global declaration order.
    order: int = 0
    #: Secret values the hook's handler carries (resolved `${secrets.*}`): the engine's audit
    #: writes `***` instead of each. Never printed.
    secrets: Collection[str] = field(default=(), repr=False)
    #: What the hook declared it may change (OpenHarness `capabilities`, sorted), for the
    #: audit; None when its dialect has no such declaration.
    capabilities: tuple[str, ...] | None = None
    #: The hook opted in to read the session state: a command, http or JSON-RPC hook gets it
    #: as ``hookwright.state`` in its input (docs/state.md); no other hook's bytes change.
    reads_state: bool = False
    #: The declaring dialect's own record about the hook (its event name, configured
    #: priority, process fingerprint...), a frozen `DialectData` the dialect defines and
    #: reads; the engine never does.
    dialect_data: DialectData | None = None
    #: The policy tier the hook runs in (set when a policy file exists); None: no tier.
    tier: Tier | None = None
    #: `mode: shadow`: the hook runs and its answer is recorded and reported, never applied.
    shadow: bool = False

    @property
    def inline(self) -> bool:
        """True for a sync Python callable without a timeout that does not ask for the session
        state: run without an event loop (and without a `RunContext`)."""
        handler = self.handler
        return (
            isinstance(handler, PythonHandler)
            and not handler.is_async
            and not handler.wants_state
            and self.timeout is None
        )

    @property
    def sort_key(self) -> tuple[int, int, int, int]:
        return (
            TIER_RANK[self.tier],
            self.priority,
            SOURCE_RANK.get(self.source, len(SOURCE_ORDER)),
            self.order,
        )

    def shown_matcher(self) -> str | None:
        """The matcher as the views show it: its dialect's own selection where it has one (a
        skill hook's `tool_filter`: ``read_file, search_text``), else the matcher's pattern;
        None for a hook without either."""
        own = self.dialect_data.shown_matcher() if self.dialect_data is not None else None
        return own or (self.matcher.pattern if self.matcher is not None else None)

    def describe(self) -> str:
        """``no-rm (Python, project)``: the name, the system as its users say it, the source
        (a skill's source is the system's word: ``careful/hint (skill)``)."""
        system = system_name(self.dialect)
        source = f", {self.source}" if self.source != system else ""
        tier = f", tier {self.tier}" if self.tier else ""
        shadow = ", shadow: not applied" if self.shadow else ""
        return f"{self.name} ({system}{source}{tier}{shadow})"
