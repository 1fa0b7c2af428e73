"""The one-line error an adapter module raises when its framework is not installed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class MissingExtraError(ImportError):
    """An adapter's framework is missing; the message names the extra that installs it.

    An `ImportError`, so ``except ImportError`` around an optional import keeps working."""

    __module__ = "hookwright.adapters"


@contextmanager
def needs_extra(module: str, extra: str, *packages: str) -> Iterator[None]:
    """Turn the framework's own `ModuleNotFoundError` (raised deep inside an import chain)
    into `MissingExtraError` naming `extra`; a missing module of anything else propagates."""
    try:
        yield
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] not in packages:
            raise
        raise MissingExtraError(
            f"{module} needs the {exc.name} package, an optional extra: "
            f"pip install 'hookwright[{extra}]'",
            name=module,
        ) from None
