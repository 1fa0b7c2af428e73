"""PicoClaw hooks: JSON-RPC process hooks and in-process builtins (see README.md here).

Public API for hosts:

* the ``picoclaw`` source (`hookwright.dialects.picoclaw.loader`), found by
  `hookwright.config.loading.discover`;
* `attach_observers(engine)`: forward runtime events published with `engine.publish` to the
  processes that observe them;
* `start_processes(engine)`: spawn every loaded process now instead of on first use;
* `ConfigWatch(engine, ctx, trust).start()`: restart the processes whose config changes;
* `register_builtin(name, factory)`: make an in-process builtin available to configs.
"""

from __future__ import annotations

import asyncio

from hookwright.dialects.picoclaw.builtins import register_builtin, unregister_builtin
from hookwright.dialects.picoclaw.hook_process import ProcessTarget
from hookwright.dialects.picoclaw.loader import discover, discover_settings
from hookwright.dialects.picoclaw.observe import attach_observers, registered_processes
from hookwright.dialects.picoclaw.reload import ConfigWatch
from hookwright.engine.kernel import HookEngine
from hookwright.transports.base import IoRunner

__all__ = [
    "ConfigWatch",
    "ProcessTarget",
    "attach_observers",
    "discover",
    "discover_settings",
    "register_builtin",
    "registered_processes",
    "start_processes",
    "unregister_builtin",
]


async def start_processes(engine: HookEngine) -> list[BaseException | None]:
    """Spawn and greet every PicoClaw process now, on the engine's I/O loop; one entry per
    process, None on success."""
    io = engine.services.io
    results = await asyncio.gather(
        *(_start(target, io) for target in registered_processes(engine)), return_exceptions=True
    )
    return [r if isinstance(r, BaseException) else None for r in results]


async def _start(target: ProcessTarget, io: IoRunner) -> None:
    target.use_io(io)
    await target.start()
