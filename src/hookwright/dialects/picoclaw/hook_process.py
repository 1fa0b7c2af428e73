"""A configured PicoClaw process hook: its `RpcProcess`, hello params and observation kinds."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from hookwright.dialects.picoclaw.config import ProcessEntry, Timeouts
from hookwright.dialects.picoclaw.isolation import Isolation, sandbox
from hookwright.dialects.picoclaw.kinds import normalize_observe
from hookwright.dialects.picoclaw.launch_hint import missing_script_hint
from hookwright.dialects.picoclaw.program import workdir
from hookwright.engine.observed import RuntimeEvent
from hookwright.transports.base import IoRunner
from hookwright.transports.rpc import RestartPolicy, RpcProcess, RpcTransport


class ProcessTarget:
    """One configured process, reached through its `RpcTransport`. One instance per configured
    process, shared by every HookSpec of that process and by its observer."""

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
        restart = config.restart
        self.rpc = RpcProcess(
            entry.name,
            config.command,
            cwd=workdir(config, project_dir),
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
            start_hint=functools.partial(missing_script_hint, entry, project_dir),
        )
        self._transport = RpcTransport(self.rpc)
        self.attached_to: set[int] = set()
        #: The engine observer that forwards its events (`observe.attach_observers`).
        self.observer: Callable[[RuntimeEvent], None] | None = None

    def use_io(self, io: IoRunner) -> None:
        """Run the process on its session's I/O loop (`Services.io`); bound once."""
        self.rpc.use_io(io)

    def transport(self) -> RpcTransport:
        """The JSON-RPC transport to this process (sends ``hook.<method>`` requests)."""
        return self._transport

    def stderr_tail(self) -> str | None:
        return self.rpc.stderr_tail() or None

    async def start(self) -> None:
        await self.rpc.start()

    async def aclose(self) -> None:
        await self.rpc.aclose()
