"""What one session owns at run time and lends to its hooks: `Services`.

A hook engine has one `Services` (`HookEngine(services=...)`, a fresh one by default) and hands
it to every handler run in `RunContext.services`. Specs built at load time hold no services,
so two sessions in one process never share a model, an inbox, an I/O loop or a counter:

* `evaluator`: the model prompt and agent hooks of every dialect consult (one signature,
  `ModelEvaluator`, answering a `hook_requests.HookModelRequest`); None means no model, and
  such hooks fail the way their dialect fails an unavailable model (Claude Code and
  OpenHarness: open, with an error in the result);
* `inbox`: where asynchronous hooks (Claude Code ``async``/``asyncRewake``) deliver when they
  finish;
* `io`: the event loop the session's hook processes (PicoClaw JSON-RPC) do their I/O on;
* `counters`: per-session numbering handlers need (one ``CLAUDE_ENV_FILE`` per hook);
* `workers`: the bounded thread pool timed sync Python hooks and PicoClaw sync builtins run
  on (never the event loop's default executor); its `abandoned` and `stuck` counters show
  hooks that outlived their timeout;
* `warm_python`: the warm runner that forks Python command hooks from a pre-started
  interpreter instead of spawning one (`WarmPython(enabled=False)` turns it off; by default
  ``HOOKWRIGHT_WARM_PYTHON=0`` does);
* `workspace_access`: how hooks get at the workspace's files when the host keeps them
  elsewhere (OpenHarness command hooks and prompt files take a read lease and run in its
  root; `engine.host_seams.WorkspaceAccess`); None: the workspace folder itself;
* `state`: the session state hooks read and update (`hookwright.engine.state.StateStore`;
  in memory by default; hosts open the user's choice, see docs/state.md);
* `mcp`: the session's connected MCP servers, which Claude Code `mcp_tool` hooks call
  (`engine.host_seams.McpToolCaller`); None: no server is connected, and such hooks fail
  open with an error.

The I/O loop, the worker pool and the warm runner are known here by their protocols in
`hookwright.transports.base` (`IoRunner`, `WorkerRunner`, `WarmRunner`); the ones a field
left out gets are built by the installed defaults (`engine.defaults`: `hookwright.wiring`'s
`IoLoop`, `WorkerPool` and `WarmPython`).
"""

from __future__ import annotations

import itertools
import threading
import weakref
from dataclasses import dataclass, field

from hookwright.engine.defaults import engine_defaults
from hookwright.engine.inbox import AsyncInbox
from hookwright.engine.state import StateStore

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from typing import TypeAlias

    from hookwright.core.run_context import RunContext
    from hookwright.engine.hook_requests import HookModelRequest
    from hookwright.engine.host_seams import McpToolCaller, WorkspaceAccess
    from hookwright.transports.base import IoRunner, WarmRunner, WorkerRunner

ModelEvaluator: TypeAlias = "Callable[[HookModelRequest], Awaitable[str]]"
"""Answers a `HookModelRequest` with the model's reply text; raises to fail the hook."""


class Counters:
    """Numbers handed out per session: `number(kind, owner)` is 1, 2, ... in the order owners
    first ask, and the same number every time the same owner asks again."""

    __slots__ = ("_kinds", "_lock")

    def __init__(self) -> None:
        self._kinds: dict[str, tuple[itertools.count[int], weakref.WeakKeyDictionary[object, int]]]
        self._kinds = {}
        self._lock = threading.Lock()

    def number(self, kind: str, owner: object) -> int:
        with self._lock:
            counter, numbered = self._kinds.setdefault(
                kind, (itertools.count(1), weakref.WeakKeyDictionary())
            )
            found = numbered.get(owner)
            if found is None:
                found = numbered[owner] = next(counter)
            return found


def _default_io() -> IoRunner:
    return engine_defaults().io()


def _default_workers() -> WorkerRunner:
    return engine_defaults().workers()


def _default_warm_python() -> WarmRunner:
    return engine_defaults().warm_python()


@dataclass(frozen=True, slots=True)
class Services:
    """What an engine's hooks run on: loops, pools, the warm runner, the state store."""

    evaluator: ModelEvaluator | None = None
    inbox: AsyncInbox = field(default_factory=AsyncInbox)
    io: IoRunner = field(default_factory=_default_io)
    counters: Counters = field(default_factory=Counters)
    workers: WorkerRunner = field(default_factory=_default_workers)
    workspace_access: WorkspaceAccess | None = None
    mcp: McpToolCaller | None = None
    warm_python: WarmRunner = field(default_factory=_default_warm_python)
    state: StateStore = field(default_factory=StateStore)


def services_of(ctx: RunContext) -> Services:
    """The engine's services behind a handler's context (the data model types them only by
    what it needs itself, `core.spec.HookServices`)."""
    services = ctx.services
    if not isinstance(services, Services):
        raise TypeError(f"a hook ran with {type(services).__name__}, not the engine's Services")
    return services


def __getattr__(name: str) -> object:
    """The hooks' requests (`hookwright.engine.hook_requests`), kept here for those who import
    them from this module, loaded on first use."""
    if name in ("HookModelRequest", "McpToolReply"):
        from hookwright.engine import hook_requests

        return getattr(hook_requests, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Counters",
    "ModelEvaluator",
    "Services",
    "services_of",
]
