"""The one transport interface: an `Envelope` in, a `Reply` out, in httpx's
`AsyncBaseTransport` shape.

A transport knows how bytes travel (a one-shot process, an HTTP request, a JSON-RPC call on a
long-lived process, a warm fork) and nothing of what they mean: a dialect's codec builds the
envelope and reads the reply (`hookwright.dialects.base`). Every transport has one method,
`handle(envelope) -> Reply`, and `aclose()`; none raises for anything the hook does:

* `Output`: the hook answered (stdout or body, exit code or status, stderr), whatever the
  answer says; non-zero exit codes and non-2xx statuses are output, for the codec to judge;
* `Block`: the channel itself said no (an exit code the envelope names in `Caps.block_exit`);
* `Failure`: the hook could not answer (not started, timed out, killed, network or protocol
  error), with a reason.

`MockTransport(handler)` answers every envelope with `handler(envelope)`, for tests.

The records are typed named tuples (frozen, and built several times faster than frozen
dataclasses: an envelope and a reply are made on every JSON-RPC hook call, the hot path).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol, Self, TypeVar

if TYPE_CHECKING:
    import asyncio

    from hookwright.transports.mcp import ToolCaller
    from hookwright.transports.model import Evaluator
    from hookwright.transports.warm_process import WarmProcess

#: The default cap on each of stdout and stderr of a process, and on a response body.
MAX_OUTPUT = 10_000_000
_NO_HEADERS: Mapping[str, str] = MappingProxyType({})
T = TypeVar("T")
_new_tuple = tuple.__new__


class Caps(NamedTuple):
    """Limits and channel rules of one send."""

    #: Bytes kept of each of stdout and stderr (process) or of the body (HTTP).
    max_output: int = MAX_OUTPUT
    #: A process exit code that means "block", with stderr as the reason; None: none does.
    block_exit: int | None = None
    #: Process: return at the first stdout line this accepts, the rest in `Output.later`.
    detach: Callable[[str], bool] | None = None
    #: Process: return at once, the whole run in `Output.later` (a background hook).
    background: bool = False


DEFAULT_CAPS = Caps()

LeaseMode = Literal["read", "write"]


class FileLease(Protocol):
    """Files a host lends a hook while the lease is held: `root` is where they are (the
    workspace itself, or a copy the host materialized)."""

    @property
    def root(self) -> Path: ...

    async def release(self, *, dirty: bool = False) -> None: ...


#: How a transport gets a workspace's files from the host (the session's workspace access).
FileAccess = Callable[[Path, LeaseMode], Awaitable[FileLease]]


class IoRunner(Protocol):
    """The event loop one session's hook processes do their I/O on (`Services.io`;
    `hookwright.transports.ioloop.IoLoop`)."""

    @property
    def closed(self) -> bool: ...

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The loop to do I/O on now; raises `ioloop.IoLoopClosed` once closed."""
        ...

    def close(self) -> None:
        """Final: stop what the runner started (a host's own loop is the host's to close)."""


class WorkerRunner(Protocol):
    """The bounded thread pool blocking hook code runs on (`Services.workers`;
    `hookwright.transports.workers.WorkerPool`); a `core.spec.BlockingRunner`."""

    async def run(self, func: Callable[..., T], *args: Any, name: str | None = None) -> T: ...

    def close(self) -> None: ...


class WarmRunner(Protocol):
    """Forks Python command hooks from a pre-started interpreter (`Services.warm_python`;
    `hookwright.transports.warm.WarmPython`)."""

    async def launch(
        self,
        args: list[str],
        *,
        shell: bool,
        env: dict[str, str],
        cwd: str | Path | None,
        stdin_data: bytes = b"",
    ) -> WarmProcess | None:
        """Start `args` warm, or None: spawn it the ordinary way."""
        ...

    def close(self) -> None: ...


class Envelope(NamedTuple):
    """What to send, and how. Each transport reads the fields of its channel: a process the
    command or argv, `body` on stdin, env, cwd; HTTP `url`, `method`, headers and `body` (or
    `json`); JSON-RPC `method` and `json` as params; the model transport `json` as the request
    to the session's `model`; the MCP transport `url` as the server's name, `method` as the
    tool's and `json` as its arguments, on the session's `mcp` client."""

    body: bytes = b""
    #: A JSON value, sent when `body` is empty (HTTP body, JSON-RPC params).
    json: Any = None
    #: Shell form: run ``[shell, "-c", command]``.
    command: str | None = None
    shell: str = "sh"
    #: Exec form: run argv without a shell.
    argv: tuple[str, ...] | None = None
    env: Mapping[str, str] | None = None
    cwd: str | Path | None = None
    url: str | None = None
    #: HTTP verb or JSON-RPC method name.
    method: str | None = None
    headers: Mapping[str, str] = _NO_HEADERS
    #: Seconds the whole send may take; None: no limit.
    timeout: float | None = None
    caps: Caps = DEFAULT_CAPS
    #: The session's warm runner, for process transports that may fork Python warm.
    warm: WarmRunner | None = None
    #: The session's I/O loop, for transports whose process does its I/O there (JSON-RPC).
    io: IoRunner | None = None
    #: The session's worker pool, for transports that run blocking calls (in-process hooks).
    workers: WorkerRunner | None = None
    #: The session's model, for the model transport (prompt and agent hooks).
    model: Evaluator | None = None
    #: The session's MCP client, for the MCP transport (tool-call hooks).
    mcp: ToolCaller | None = None
    #: The host's access to the workspace's files, for transports that run under a lease of
    #: them; None: the workspace folder is used as it is.
    files: FileAccess | None = None


class Output(NamedTuple):
    """The hook answered. `text` is stdout or the body (UTF-8, bad bytes replaced), `value` a
    JSON-RPC result; `code` the exit code or HTTP status."""

    text: str = ""
    value: Any = None
    code: int | None = None
    stderr: str = ""
    #: Output past `Caps.max_output` was dropped; `size` counts every byte written.
    truncated: bool = False
    size: int = 0
    duration_ms: float = 0.0
    #: A detached or background run still going: resolves to its complete reply.
    later: asyncio.Task[Reply] | None = None


#: A record from a tuple of all its fields in order, for the JSON-RPC path, which makes an
#: envelope and an output on every call: `Output(value=v)` parses keywords and fills defaults
#: in a Python `__new__`; `make_output(("", v, None, "", False, 0, 0.0, None))` is one C call
#: (no Python frame). A sender that sends the same way on every call keeps `template[2:]`
#: and makes each call's envelope as `make_envelope((b"", value) + rest)`.
make_envelope: Callable[[tuple[Any, ...]], Envelope] = functools.partial(_new_tuple, Envelope)
make_output: Callable[[tuple[Any, ...]], Output] = functools.partial(_new_tuple, Output)


class Block(NamedTuple):
    """The channel said no (`Caps.block_exit`): `reason` is the hook's stderr."""

    reason: str
    code: int | None = None
    stderr: str = ""
    duration_ms: float = 0.0


FailureKind = Literal["unstarted", "timeout", "killed", "error"]


class Failure(NamedTuple):
    """The hook could not answer: it did not start, ran out of time, was killed (by a signal
    we did not send, or ended without an exit code), or the channel broke (`error`)."""

    kind: FailureKind
    reason: str
    code: int | None = None
    stderr: str = ""
    duration_ms: float = 0.0
    #: The exception behind the failure, for a codec that words causes differently.
    cause: Exception | None = None

    @property
    def timed_out(self) -> bool:
        return self.kind == "timeout"


Reply = Output | Block | Failure


class Transport(Protocol):
    """Sends one envelope and says what came back; never raises for anything the hook does."""

    async def handle(self, envelope: Envelope) -> Reply: ...

    async def aclose(self) -> None: ...


class BaseTransport:
    """Shared lifecycle: ``async with transport:`` closes it; `aclose` does nothing unless a
    transport holds something (a long-lived process)."""

    async def handle(self, envelope: Envelope) -> Reply:
        raise NotImplementedError

    async def aclose(self) -> None:
        return None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


MockHandler = Callable[[Envelope], Reply | Awaitable[Reply]]


class MockTransport(BaseTransport):
    """Answers each envelope with `handler(envelope)` (sync or async) and keeps the envelopes
    it was sent, for tests (as httpx's `MockTransport`)."""

    def __init__(self, handler: MockHandler) -> None:
        self.handler = handler
        self.sent: list[Envelope] = []
        self.closed = False

    async def handle(self, envelope: Envelope) -> Reply:
        self.sent.append(envelope)
        reply = self.handler(envelope)
        if inspect.isawaitable(reply):
            return await reply
        return reply

    async def aclose(self) -> None:
        self.closed = True
