"""Where asynchronous hooks report when they finish: one inbox per session (`Services.inbox`).

Claude Code command hooks use it (its spec §3.1), and Codex's ``async: true`` handlers, each
through `hookwright.dialects.async_runs`: a hook with ``"async": true`` or ``"asyncRewake":
true``, or one whose first stdout line is ``{"async": true}``, runs in the background: the
dispatch does not wait for it and its decision fields have no effect. When it exits, the inbox
receives an `AsyncDelivery` (`hookwright.engine.async_delivery`):

* its ``additionalContext`` and ``systemMessage``, which the host gives to Claude on the next
  turn (``drain(session_id)`` at the start of each turn);
* for ``asyncRewake`` hooks that exit 2, a wake-up (``rewake=True``): the host injects
  ``rewake_message`` (stderr, or stdout when stderr is empty) as hook text and wakes
  Claude at once even when idle; listeners added with ``add_listener`` are called the moment
  such a delivery arrives.

Every completion is also reported to each reporter added with ``report_to`` (an engine adds
its audit to its own services' inbox; the dispatch's own record only says the hook was
started), and the texts of a delivery are redacted with the reporters' secrets. ``aclose()``
kills what is still running (the ``-p`` teardown); `HookEngine.aclose` does it through the
handlers.
"""

from __future__ import annotations

import collections
from collections.abc import Set as AbstractSet
from dataclasses import replace

from hookwright.core.logs import LazyLogger
from hookwright.core.outward import make_outward, outward
from hookwright.core.results import Verdict

TYPE_CHECKING = False
if TYPE_CHECKING:
    import asyncio
    from collections.abc import Callable, Coroutine
    from typing import Any, TypeAlias

    from hookwright.engine.async_delivery import AsyncDelivery

log = LazyLogger("hookwright.claude_code")

HISTORY = 1000


Job: TypeAlias = "Coroutine[Any, Any, AsyncDelivery]"
Listener: TypeAlias = "Callable[[AsyncDelivery], None]"
#: Reports one finished background hook: a verdict holding its one run, and its session.
Report: TypeAlias = "Callable[[Verdict, str | None], None]"


class AsyncInbox:
    def __init__(self) -> None:
        self._tasks: dict[asyncio.Task[None], tuple[object | None, str | None]] = {}
        self._pending: list[AsyncDelivery] = []
        self.history: collections.deque[AsyncDelivery] = collections.deque(maxlen=HISTORY)
        self._listeners: list[Listener] = []
        self._reporters: list[tuple[Report, AbstractSet[str]]] = []

    def report_to(self, report: Report, secrets: AbstractSet[str]) -> None:
        """Call `report` with every finished hook's run; `secrets` (a live view: values added
        later count) are redacted from every delivery. Adding the same reporter again does
        nothing."""
        if all(existing != report for existing, _secrets in self._reporters):
            self._reporters.append((report, secrets))

    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def spawn(
        self, job: Job, *, owner: object | None = None, session_id: str | None = None
    ) -> asyncio.Task[None]:
        """Run `job` in the background; its delivery lands here when it finishes."""
        import asyncio

        task = asyncio.ensure_future(self._run(job))
        self._tasks[task] = (owner, session_id)
        task.add_done_callback(lambda done: self._tasks.pop(done, None))
        return task

    async def _run(self, job: Job) -> None:
        try:
            delivery = await job
        except Exception:
            log.exception("async hook job failed")
            return
        delivery = self._outward(delivery)
        self.history.append(delivery)
        if delivery.has_content:
            self._pending.append(delivery)
        for report, _secrets in self._reporters:
            result = delivery.result
            if result.hook is not None:
                verdict = Verdict(delivery.event)
                verdict.runs.append((result.hook, result, int(result.duration_ms * 1e6)))
                report(verdict, delivery.session_id)
        if delivery.rewake:
            for listener in list(self._listeners):
                try:
                    listener(delivery)
                except Exception:
                    log.exception("async inbox listener %r failed", listener)

    def _outward(self, delivery: AsyncDelivery) -> AsyncDelivery:
        """Redact the reporters' secrets from the delivery's texts and cap them."""
        secrets = {secret for _report, known in self._reporters for secret in known}
        make_outward(delivery.result, secrets)
        return replace(
            delivery,
            additional_context=outward(delivery.additional_context, secrets),
            system_message=outward(delivery.system_message, secrets),
            rewake_message=outward(delivery.rewake_message, secrets),
        )

    def running(self, session_id: str | None = None) -> int:
        """How many async hooks are still running (for `session_id`, or all)."""
        return sum(1 for _, sid in self._tasks.values() if session_id is None or sid == session_id)

    def drain(self, session_id: str | None = None) -> list[AsyncDelivery]:
        """Take the deliveries for `session_id` (None: every session), oldest first."""
        taken = [d for d in self._pending if session_id is None or d.session_id == session_id]
        self._pending = [d for d in self._pending if d not in taken]
        return taken

    async def wait(self, timeout: float | None = None) -> bool:
        """Wait until no async hook is running; False when `timeout` passed first."""
        import asyncio

        tasks = [t for t in self._tasks if t.get_loop() is asyncio.get_running_loop()]
        if not tasks:
            return True
        _done, pending = await asyncio.wait(tasks, timeout=timeout)
        return not pending

    async def aclose(self, owner: object | None = None) -> None:
        """Kill the async hooks still running (those started by `owner`, or all)."""
        import asyncio

        loop = asyncio.get_running_loop()
        mine: list[asyncio.Task[None]] = []
        for task, (task_owner, _session) in list(self._tasks.items()):
            if owner is not None and task_owner is not owner:
                continue
            if task.get_loop() is loop:
                task.cancel()
                mine.append(task)
            else:
                task.get_loop().call_soon_threadsafe(task.cancel)
        if mine:
            await asyncio.gather(*mine, return_exceptions=True)
