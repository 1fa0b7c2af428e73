"""An async hook's run, one place for the codecs whose hooks run in the background (Claude Code's
``async``/``asyncRewake`` hooks and those that declare themselves async on their first stdout
line, Codex's ``async: true`` handlers).

The dispatch gets an empty result at once: the hook decides nothing. The run goes on as a job
of the inbox of the session that started it (`Services.inbox`, `AsyncInbox`); when it ends,
its delivery lands there, and the host puts its context in front of the model at its next
request. What a finished run delivers, and how long it may run, are each system's own: the
codec's `Finish` reads the run's complete reply (Codex: the context of an exit 0, nothing
else; Claude Code: context and system message on any exit, an ``asyncRewake`` wake-up on exit
2), and a run may be given a time `limit` (Claude Code's ``asyncTimeout``). `AsyncRuns.aclose`
kills a hook's runs still going (the agent exits, as both systems kill them).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from hookwright.core.events import HookInput
from hookwright.core.results import HookResult
from hookwright.core.run_context import RunContext
from hookwright.core.spec import HookSpec
from hookwright.engine.async_delivery import AsyncDelivery
from hookwright.engine.inbox import AsyncInbox
from hookwright.engine.services import services_of
from hookwright.transports.base import Failure, Reply

#: A codec's reading of a finished run's complete reply: what the run delivers.
Finish = Callable[[Reply], AsyncDelivery]


class AsyncRuns:
    """One hook's async runs: each started in the inbox of its session, all killed by
    `aclose`."""

    __slots__ = ("_inboxes",)

    def __init__(self) -> None:
        #: The inboxes the runs went to, to stop them on close.
        self._inboxes: list[AsyncInbox] = []

    def start(
        self,
        ctx: RunContext,
        inp: HookInput,
        later: asyncio.Task[Reply],
        finish: Finish,
        limit: float | None = None,
    ) -> HookResult:
        """Let the run whose complete reply `later` resolves to go on in the background; its
        delivery, `finish` of that reply, goes to the session's inbox. A run going on after
        `limit` seconds is stopped and read as timed out. Returns the dispatch's result."""
        inbox = services_of(ctx).inbox
        if all(known is not inbox for known in self._inboxes):
            self._inboxes.append(inbox)
        inbox.spawn(_finished(later, finish, limit), owner=self, session_id=inp.session_id)
        return HookResult()

    async def aclose(self) -> None:
        """Kill the runs still going."""
        for inbox in self._inboxes:
            await inbox.aclose(owner=self)


async def _finished(
    later: asyncio.Task[Reply], finish: Finish, limit: float | None
) -> AsyncDelivery:
    final: Reply
    try:
        final = await asyncio.wait_for(later, limit)
    except TimeoutError:
        final = Failure("timeout", "timed out")
    return finish(final)


def run_record(final: Reply, spec: HookSpec) -> HookResult:
    """A finished run's own record, before its system reads the answer: its exit code (None
    when it gave none), stderr and duration, and its hook."""
    return HookResult(
        exit_code=None if isinstance(final, Failure) else final.code,
        stderr=final.stderr or None,
        duration_ms=final.duration_ms,
        hook=spec,
    )
