"""A hook = a transport (how its bytes travel) + a codec (what they mean).

`Codec` is a dialect's half: `encode` turns a `HookInput` into the `Envelope` to send (or
answers at once with a `HookResult`: a refused URL, a hook that runs in the background),
`decode` reads the transport's `Reply` as a `HookResult`. `Handler(transport, codec)` is the
one engine handler built from the two (`core.spec.Handler`): every Claude Code command and
http hook, PicoClaw method and OpenHarness hook is one. Adding a dialect is a codec, a choice
of transport (`hookwright.transports.base`) and a config source in the dialect's package; see
"Adding a dialect" in docs/architecture.md.
"""

from __future__ import annotations

from typing import Any, Protocol

from hookwright.core.events import HookInput
from hookwright.core.results import HookResult
from hookwright.core.run_context import RunContext
from hookwright.core.spec import escapes_hook
from hookwright.dialects.state_io import ABSENT, apply_answer, state_answer, with_state
from hookwright.dialects.state_io import FIELD as STATE_FIELD
from hookwright.transports.base import Envelope, Failure, Output, Reply, Transport


class Codec(Protocol):
    """One hook's dialect: what to send for an input and what the reply means."""

    def encode(self, inp: HookInput, ctx: RunContext) -> Envelope | HookResult:
        """The envelope to send for `inp`, or the result when nothing needs sending."""
        ...

    def decode(
        self, reply: Reply, sent: Envelope, inp: HookInput, ctx: RunContext
    ) -> HookResult | None:
        """`reply` to `sent` (the envelope `encode` built for `inp`) as this hook's result;
        never raises for anything the hook said."""
        ...

    async def aclose(self) -> None:
        """Stop what the codec started beside the transport (background runs)."""
        ...


class Handler:
    """The engine handler of one hook: encode, send, decode.

    `enforces_timeout`: the codec puts the run's timeout in the envelope and the transport
    bounds every await by it, so the engine opens no timeout scope of its own (PicoClaw: the
    denial then carries the dialect's reason)."""

    __slots__ = ("codec", "enforces_timeout", "transport")

    def __init__(
        self, transport: Transport, codec: Codec, *, enforces_timeout: bool = False
    ) -> None:
        self.transport = transport
        self.codec = codec
        self.enforces_timeout = enforces_timeout

    async def __call__(self, inp: Any, ctx: RunContext) -> HookResult | None:
        codec = self.codec
        envelope = codec.encode(inp, ctx)
        if isinstance(envelope, HookResult):
            return envelope
        if ctx.spec.reads_state:
            envelope = with_state(envelope, inp, ctx)
        try:
            reply = await self.transport.handle(envelope)
        except BaseException as exc:
            if escapes_hook(exc):
                raise
            reply = Failure("error", str(exc) or type(exc).__name__)
        result = codec.decode(reply, envelope, inp, ctx)
        if type(reply) is Output:
            # `state_answer` written out for a JSON value (a JSON-RPC result): its call saved.
            value = reply.value
            own = value.get(STATE_FIELD, ABSENT) if type(value) is dict else state_answer(reply)
            if own is not ABSENT:
                return await apply_answer(result, own, inp, ctx)
        return result

    async def aclose(self) -> None:
        """Close the codec's background runs, then the transport (a process it holds)."""
        await self.codec.aclose()
        await self.transport.aclose()

    def __repr__(self) -> str:
        return f"Handler({self.transport!r}, {self.codec!r})"
