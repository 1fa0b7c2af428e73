"""The codec of one PicoClaw method of one hook (process or builtin), run as
`Handler(transport, PicoClawCodec)`: a process's `RpcTransport` or a builtin's
`BuiltinTransport`.

It encodes the canonical input as the method's params and decodes the answer. Failures follow
PicoClaw (spec §3): an interceptor that times out, errors, crashes or answers something
undecodable is skipped (fail-open); an approver is a denial (fail-closed) with reason
``tool approval hook "<name>" timed out`` or ``... failed``. The timeout travels in the
envelope and the transport enforces it (a process without a timer per call, a builtin in an
`asyncio.timeout` scope), so every await of the handler is bounded: the handler declares
`enforces_timeout` and the engine opens no scope of its own for it; the HookSpec's timeout,
slightly above the handler's, stays the backstop for engines that do not honour that.

A process does its I/O on the I/O loop of the session that runs it (`Envelope.io` from
`Services.io`), bound on its first run.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from hookwright.core.actions import WIRE_FIELD, actions_json
from hookwright.core.events import HookInput
from hookwright.core.results import HookResult, Status
from hookwright.core.run_context import RunContext
from hookwright.dialects.base import Handler
from hookwright.dialects.picoclaw.actions import (
    STAGE_ACTIONS,
    DecodeError,
    approval_denied,
    decode,
)
from hookwright.dialects.picoclaw.codec import Protocol as WireProtocol
from hookwright.dialects.picoclaw.codec import params_builder
from hookwright.dialects.picoclaw.wire_text import TOOL_CALL_METHODS, tool_call_text
from hookwright.engine.services import services_of
from hookwright.monitor import debug
from hookwright.transports.base import (
    Envelope,
    Failure,
    Output,
    Reply,
    Transport,
    make_envelope,
)

log = logging.getLogger("hookwright.picoclaw")

#: Added to a handler's own timeout to get the engine's backstop timeout.
BACKSTOP_GRACE = 1.0


class Target(Protocol):
    """A configured hook (process or builtin): its name, kind and the transport to reach it."""

    name: str
    kind: str

    def transport(self) -> Transport: ...

    def stderr_tail(self) -> str | None: ...

    async def aclose(self) -> None: ...


class PicoClawCodec:
    __slots__ = (
        "_continues",
        "_last",
        "_params",
        "_text",
        "actions",
        "method",
        "name",
        "protocol",
        "target",
        "timeout",
        "wire_method",
    )

    def __init__(
        self,
        target: Target,
        method: str,
        protocol: WireProtocol,
        timeout: float,
        actions: bool = False,
    ):
        self.target = target
        #: The process asked for the calls' canonical actions (``"actions": true``).
        self.actions = actions
        self.name = target.name
        self.method = method
        self._params = params_builder(method)
        #: A process's tool-call params are written as JSON text at once (`wire_text`); a
        #: builtin takes them as a dict, and the canonical actions are added to a dict.
        self._text = (
            tool_call_text
            if target.kind == "process" and not actions and method in TOOL_CALL_METHODS
            else None
        )
        #: `{"action": "continue"}` alone is no opinion (every method but `approve_tool`).
        self._continues = method in STAGE_ACTIONS
        #: A process answers ``hook.<method>``, a builtin the method itself.
        self.wire_method = f"hook.{method}" if target.kind == "process" else method
        self.protocol = protocol
        self.timeout = timeout
        #: The services of the last run and the envelope sent with them less its body and json
        #: (`Envelope[2:]`): every run of a session sends the same way, so a call's envelope
        #: is these fields behind its params (`make_envelope`). One attribute, so a reader on
        #: another thread never pairs one session's services with another's envelope.
        self._last: tuple[object, tuple[Any, ...]] | None = None

    def encode(self, inp: HookInput, ctx: RunContext) -> Envelope:
        last = self._last
        if last is None or last[0] is not ctx.services:
            last = self._last = (ctx.services, self._envelope(ctx)[2:])
        tracing = debug.state.on
        if self._text is not None and not tracing:
            text = self._text(inp, self.method, self.protocol)
            if text is not None:
                # Sent as the params' JSON text; `decode` builds them should an answer need them.
                return make_envelope((text, None) + last[1])
        params = self.params(inp)
        if tracing:
            debug.trace("call", f"{self.name} hook.{self.method}: {debug.short(params)}")
        return make_envelope((b"", params) + last[1])

    def params(self, inp: HookInput) -> dict[str, Any]:
        """The params of this hook's method for `inp`, as a dict."""
        params = self._params(inp, self.method, self.protocol)
        if self.actions and inp.tool_name:
            params[WIRE_FIELD] = actions_json(inp.actions)
        return params

    def _envelope(self, ctx: RunContext) -> Envelope:
        services = services_of(ctx)
        return Envelope(
            method=self.wire_method, timeout=self.timeout, io=services.io, workers=services.workers
        )

    def decode(
        self, reply: Reply, sent: Envelope, inp: HookInput, ctx: RunContext
    ) -> HookResult | None:
        stderr = ""
        if type(reply) is Output:
            raw: Any = reply.value
            stderr = reply.stderr
        elif isinstance(reply, Failure):
            if reply.timed_out:
                return self._failed(Status.timeout, f"timed out after {self.timeout:g}s")
            return self._failed(Status.error, reply.reason)
        else:
            raw = None
        if debug.state.on:
            said = f"; stderr: {debug.short(stderr)}" if stderr else ""
            debug.trace("answer", f"{self.name} hook.{self.method}: {debug.short(raw)}{said}")
        if (
            self._continues
            and not stderr
            and type(raw) is dict
            and len(raw) == 1
            and raw.get("action") == "continue"
        ):
            # The usual answer, which `decode` reads as no opinion: its call is saved.
            return None
        try:
            params = sent.json if sent.json is not None else self.params(inp)
            result = decode(self.method, raw, params, hook=self.name, protocol=self.protocol)
        except DecodeError as exc:
            return self._failed(Status.error, f"cannot decode result: {exc}")
        if stderr:
            # What the process wrote while answering this call goes with this call's result
            # (a plain "continue" included), so every view shows it under this call.
            result = result if result is not None else HookResult()
            result.stderr = stderr
        return result

    def _failed(self, status: Status, message: str) -> HookResult:
        name = self.name
        # The result (its status and error) is the one report every view shows; the log line
        # is for debugging hookwright itself.
        log.debug("%s of hook %s %s: %s", self.method, name, self._consequence(), message)
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
        return None


def picoclaw_handler(
    target: Target, method: str, protocol: WireProtocol, timeout: float, *, actions: bool = False
) -> Handler:
    """One method of one PicoClaw hook as an engine handler; with `actions`, the tool methods'
    params carry the call's canonical actions."""
    codec = PicoClawCodec(target, method, protocol, timeout, actions)
    return Handler(target.transport(), codec, enforces_timeout=True)


def target_of(handler: object) -> Target | None:
    """The PicoClaw hook behind an engine handler, or None for any other handler."""
    if isinstance(handler, ObserverCarrier):
        return handler.target
    if isinstance(handler, Handler) and isinstance(handler.codec, PicoClawCodec):
        return handler.codec.target
    return None


class ObserverCarrier:
    """Holds an observe-only process so the engine closes it with the other hooks: it is
    registered as a disabled HookSpec, which the engine never dispatches."""

    def __init__(self, target: Target) -> None:
        self.target = target

    async def __call__(self, inp: HookInput, ctx: RunContext) -> HookResult | None:
        return None

    async def aclose(self) -> None:
        await self.target.aclose()
