"""The workspace file-access lease hooks hold while they touch the workspace's files.

The real engine's workspaces may live elsewhere (a sandbox, object storage): before a command
hook runs or a prompt file is read it acquires a read lease from the host's workspace
file-access provider, runs in the lease's root (a materialized copy) and releases the lease
with `dirty: false` afterwards, whatever happened. hookwright does the same with
`Services.workspace_access`; without one, the workspace folder is used directly.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from hookwright.engine.services import Services

log = logging.getLogger("hookwright.dialects.openharness")


class LeaseError(RuntimeError):
    """The host could not lease the workspace's files."""


@asynccontextmanager
async def workspace_files(services: Services, root: Path) -> AsyncIterator[Path]:
    """Where the files of the workspace at `root` are while the block runs, under a read
    lease when the host provides workspace access."""
    access = services.workspace_access
    if access is None:
        yield root
        return
    try:
        lease = await access(root, "read")
    except Exception as exc:
        raise LeaseError(f"workspace file access failed: {exc}") from exc
    try:
        yield Path(lease.root)
    finally:
        try:
            await lease.release(dirty=False)
        except Exception as exc:
            log.warning("releasing the workspace file-access lease of %s failed: %s", root, exc)


def moved(path: Path, root: Path, leased: Path) -> Path:
    """`path` (inside `root`) at the same place inside `leased`."""
    try:
        return leased / path.relative_to(root)
    except ValueError:
        return leased
