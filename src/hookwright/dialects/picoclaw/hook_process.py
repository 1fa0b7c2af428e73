"""A configured PicoClaw process hook: its `RpcProcess`, hello params and observation kinds."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from hookwright.dialects.picoclaw.config import ProcessEntry, Timeouts
from hookwright.dialects.picoclaw.isolation import Isolation, sandbox
from hookwright.dialects.picoclaw.kinds import normalize_observe
from hookwright.engine.observers import RuntimeEvent
from hookwright.engine.services import Services
from hookwright.transports.ioloop import IoLoop
from hookwright.transports.rpc import RestartPolicy, RpcProcess

_RPC_METHODS = {
    method: f"hook.{method}"
    for method in ("before_llm", "after_llm", "before_tool", "after_tool", "approve_tool")
}


class ProcessTarget:
    """Sends `hook.<method>` requests to one process. One instance per configured process,
    shared by every HookSpec of that process and by its observer."""

    kind = "process"

    def __init__(
        self,
        entry: ProcessEntry,
        timeouts: Timeouts,
        project_dir: Path,
        isolation: Isolation | None = None,
    ) -> None:
        config = entry.config
        self.name = entry.name
        self.entry = entry
        self.protocol = entry.protocol
        self.observer_timeout = timeouts.observer
        self.observes = bool(config.observe)
        #: Normalised kinds; None observes every kind.
        self.observe_kinds = normalize_observe(config.observe) if self.observes else ()
        workdir = None
        if config.dir:
            workdir = Path(config.dir)
            if not workdir.is_absolute():
                workdir = project_dir / workdir
        restart = config.restart
        self.rpc = RpcProcess(
            entry.name,
            config.command,
            cwd=workdir,
            env=config.env or None,
            hello_params={"name": entry.name, "version": 1, "modes": config.modes},
            restart=RestartPolicy(
                enabled=restart.policy != "never",
                initial_backoff=restart.backoff_ms / 1000,
                max_backoff=max(restart.max_backoff_ms, restart.backoff_ms) / 1000,
                max_restarts=restart.max_restarts,
            ),
            launcher=functools.partial(sandbox, isolation=isolation)
            if isolation is not None and isolation.enabled
            else None,
        )
        self.attached_to: set[int] = set()
        #: The engine observer that forwards its events (`observe.attach_observers`).
        self.observer: Callable[[RuntimeEvent], None] | None = None

    def use_io(self, io: IoLoop) -> None:
        """Run the process on its session's I/O loop (`Services.io`); bound once."""
        self.rpc.use_io(io)

    async def invoke(self, method: str, params: dict[str, Any], services: Services) -> Any:
        return await self.rpc.call(_RPC_METHODS.get(method) or f"hook.{method}", params)

    def invoke_within(self, method: str, params: dict[str, Any], timeout: float) -> Awaitable[Any]:
        """`invoke` bounded as a whole by `timeout` (a lazy start included), enforced by the
        transport (no timer per call); raises TimeoutError when it runs out. Returns the
        transport's coroutine itself (one frame less per call)."""
        return self.rpc.call_within(_RPC_METHODS.get(method) or f"hook.{method}", params, timeout)

    def stderr_tail(self) -> str | None:
        return self.rpc.stderr_tail() or None

    async def start(self) -> None:
        await self.rpc.start()

    async def aclose(self) -> None:
        await self.rpc.aclose()
