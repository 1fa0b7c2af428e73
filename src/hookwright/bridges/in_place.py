"""A coroutine's first step run in place, from an event loop callback, as a step of a task
that is waiting meanwhile; its rest, if it suspends, run by that task.

The daemon's http front answers most requests from the readiness report of their connection
(`daemon_http`), where waking the connection's task would cost a future, a scheduled callback
and a turn of the event loop per request. The answer is a coroutine, which usually ends
without suspending; but it may start a timeout (`asyncio.timeout` asks for the current task),
set a context variable, or suspend. So its first step runs as the connection's task would run
it: with that task as the current task and in that task's context. When it suspends, the
task takes over (`resumed`) and what the task is sent or thrown goes on to the coroutine, so
a timeout that cancels the task cancels the coroutine's await, as if the task had run it from
the start."""

from __future__ import annotations

import asyncio
import contextvars
import types
from collections.abc import Coroutine, Generator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Suspended(Generic[_T]):
    """A coroutine whose first step suspended on `awaiting` (what it yielded)."""

    coro: Coroutine[Any, Any, _T]
    awaiting: Any


def first_step(
    coro: Coroutine[Any, Any, _T], task: asyncio.Task[Any], context: contextvars.Context
) -> tuple[_T] | Suspended[_T]:
    """Run `coro` until it ends (its result, in a 1-tuple) or suspends, as a step of `task`
    (which must be waiting, not running) in `context` (the task's). Raises what `coro`
    raises."""
    loop = task.get_loop()
    asyncio.tasks._enter_task(loop, task)
    try:
        awaiting = context.run(coro.send, None)
    except StopIteration as done:
        return (done.value,)
    finally:
        asyncio.tasks._leave_task(loop, task)
    return Suspended(coro, awaiting)


@types.coroutine
def resumed(
    suspended: Suspended[_T], thrown: BaseException | None = None
) -> Generator[Any, Any, _T]:
    """The rest of a coroutine that `first_step` left suspended, awaited by its task: the
    task waits for what it awaits, and what the task is sent or thrown goes on to it.
    `thrown`: an exception the task met before it took over (a cancellation), thrown in
    first; what the coroutine awaited is cancelled then, as the task would have."""
    coro, awaiting = suspended.coro, suspended.awaiting
    if thrown is not None and isinstance(awaiting, asyncio.Future):
        awaiting.cancel()
    while True:
        try:
            if thrown is not None:
                error, thrown = thrown, None
                awaiting = coro.throw(error)
                continue
            try:
                sent = yield awaiting
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:  # the task's: a cancellation, mostly
                thrown = exc
                continue
            awaiting = coro.send(sent)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]


__all__ = ["Suspended", "first_step", "resumed"]
