"""The engine-facing handler of one PicoClaw method of one hook (process or builtin).

It encodes the canonical input, calls the target under the stage's timeout and decodes the
answer. Failures follow PicoClaw (spec §3): an interceptor that times out, errors, crashes or
answers something undecodable is skipped (fail-open); an approver is a denial (fail-closed)
with reason ``tool approval hook "<name>" timed out`` or ``... failed``. The timeout is
enforced here, not by the engine, so the denial carries PicoClaw's reason. A target with
`invoke_within` (a process) enforces it itself, without a timer per call; any other is awaited
in an `asyncio.timeout` scope. Either way every await of the handler is bounded, so the handler
declares `enforces_timeout` and the engine opens no scope of its own for it; the HookSpec's
timeout, slightly above the handler's, stays the backstop for engines that do not honour that.

A process target does its I/O on the I/O loop of the session that runs it (`Services.io`),
bound on its first run.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from hookwright.core.events import HookInput
from hookwright.core.results import HookResult, Status
from hookwright.core.spec import RunContext, escapes_hook
from hookwright.dialects.picoclaw.actions import DecodeError, approval_denied, decode
from hookwright.dialects.picoclaw.codec import Protocol as WireProtocol
from hookwright.dialects.picoclaw.codec import encode_params
from hookwright.engine.services import Services, services_of
from hookwright.monitor import debug
from hookwright.transports.ioloop import IoLoop

log = logging.getLogger("hookwright.picoclaw")

#: Added to a handler's own timeout to get the engine's backstop timeout.
BACKSTOP_GRACE = 1.0


class Target(Protocol):
    name: str
    kind: str

    async def invoke(self, method: str, params: dict[str, Any], services: Services) -> Any: ...

    def stderr_tail(self) -> str | None: ...

    async def aclose(self) -> None: ...


class PicoClawHandler:
    #: Every await of the handler runs under its own timeout: the engine adds none.
    enforces_timeout = True

    def __init__(self, target: Target, method: str, protocol: WireProtocol, timeout: float):
        self.target = target
        self.method = method
        self.protocol = protocol
        self.timeout = timeout
        self._invoke_within: Callable[[str, dict[str, Any], float], Awaitable[Any]] | None = (
            getattr(target, "invoke_within", None)
        )
        self._use_io: Callable[[IoLoop], None] | None = getattr(target, "use_io", None)
        self._bound_io: IoLoop | None = None

    async def __call__(self, inp: HookInput, ctx: RunContext) -> HookResult | None:
        io = services_of(ctx).io
        if self._use_io is not None and io is not self._bound_io:
            try:
                self._use_io(io)
            except Exception as exc:
                return self._failed(Status.error, str(exc))
            self._bound_io = io
        method = self.method
        params = encode_params(method, inp, self.protocol)
        if debug.state.on:
            debug.trace("call", f"{self.target.name} hook.{method}: {debug.short(params)}")
        invoke_within = self._invoke_within
        try:
            if invoke_within is not None:
                raw = await invoke_within(method, params, self.timeout)
            else:
                async with asyncio.timeout(self.timeout):
                    raw = await self.target.invoke(method, params, services_of(ctx))
        except TimeoutError:
            return self._failed(Status.timeout, f"timed out after {self.timeout:g}s")
        except BaseException as exc:
            if escapes_hook(exc):
                raise
            return self._failed(Status.error, str(exc) or type(exc).__name__)
        if debug.state.on:
            debug.trace("answer", f"{self.target.name} hook.{method}: {debug.short(raw)}")
        try:
            return decode(self.method, raw, params, hook=self.target.name, protocol=self.protocol)
        except DecodeError as exc:
            return self._failed(Status.error, f"cannot decode result: {exc}")

    def _failed(self, status: Status, message: str) -> HookResult:
        name = self.target.name
        log.warning("%s of hook %s %s: %s", self.method, name, self._consequence(), message)
        if self.method == "approve_tool":
            word = "timed out" if status is Status.timeout else "failed"
            result = approval_denied(f'tool approval hook "{name}" {word}')
        else:
            result = HookResult()
        result.status = status
        result.error = message
        result.stderr = self.target.stderr_tail()
        return result

    def _consequence(self) -> str:
        return "denied the call" if self.method == "approve_tool" else "skipped"

    async def aclose(self) -> None:
        await self.target.aclose()


class ObserverCarrier:
    """Holds an observe-only process so the engine closes it with the other hooks: it is
    registered as a disabled HookSpec, which the engine never dispatches."""

    def __init__(self, target: Target) -> None:
        self.target = target

    async def __call__(self, inp: HookInput, ctx: RunContext) -> HookResult | None:
        return None

    async def aclose(self) -> None:
        await self.target.aclose()
