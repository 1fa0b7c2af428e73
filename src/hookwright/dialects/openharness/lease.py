"""The workspace file-access lease hooks hold while they touch the workspace's files.

The real engine's workspaces may live elsewhere (a sandbox, object storage): before a command
hook runs or a prompt file is read it acquires a read lease from the host's workspace
file-access provider, runs in the lease's root (a materialized copy) and releases the lease
with `dirty: false` afterwards, whatever happened. hookwright does the same with
`Services.workspace_access`, which the codec puts in `Envelope.files`; without one, the
workspace folder is used directly. `LeasedTransport` runs a command hook's process under the
lease; `prompt.py` reads prompt and agent files under one.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from hookwright.transports.base import (
    BaseTransport,
    Envelope,
    Failure,
    FileAccess,
    Reply,
    Transport,
)

log = logging.getLogger("hookwright.dialects.openharness")


class LeaseError(RuntimeError):
    """The host could not lease the workspace's files."""


@asynccontextmanager
async def workspace_files(access: FileAccess | None, root: Path) -> AsyncIterator[Path]:
    """Where the files of the workspace at `root` are while the block runs, under a read
    lease when the host provides workspace access."""
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


class LeasedTransport(BaseTransport):
    """`inner` run under a read lease of the workspace at `root`, its `cwd` moved to the same
    place inside the lease's root. A lease that cannot be had is `Failure("unstarted")`."""

    def __init__(self, inner: Transport, root: Path) -> None:
        self.inner = inner
        self.root = root

    async def handle(self, envelope: Envelope) -> Reply:
        if envelope.files is None:
            return await self.inner.handle(envelope)
        cwd = Path(envelope.cwd) if envelope.cwd is not None else self.root
        try:
            async with workspace_files(envelope.files, self.root) as files:
                return await self.inner.handle(envelope._replace(cwd=moved(cwd, self.root, files)))
        except LeaseError as exc:
            return Failure("unstarted", str(exc), cause=exc)

    async def aclose(self) -> None:
        await self.inner.aclose()

    def __repr__(self) -> str:
        return f"LeasedTransport({self.inner!r})"
