"""How a process that answers one event or runs one command loads hookwright: the command
line's fast path (`hookwright hooks test`, `hookwright hook claude-code`), the Claude Code quick
client's in-process answer and the full client's fallback all import what they run inside
`lean_imports`, the one place that says how.

Inside the window the cyclic garbage collector is off (its passes over the modules being loaded
cost about a sixth of such a process), the standard modules these processes import without
reading are deferred (`quick_deferred.defer_unread`: `inspect`, which `dataclasses` imports,
`urllib.parse`, which `pathlib` imports, and `ipaddress`), SHA-256 is the interpreter's own
(`core.digests.prefer_builtin`: naming the code cache's file would otherwise load OpenSSL) and
the code `dataclasses` and `collections` compile for hookwright's record classes (and `typing`,
where something loaded it) comes from the user's private cache (`config.code_cache`), about a
third of such a process's instructions. When it closes, what loaded is frozen (never scanned
again) and the collector is on again, before any hook runs.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

from hookwright.bridges.quick_deferred import defer_unread


@contextlib.contextmanager
def lean_imports() -> Iterator[contextlib.ExitStack]:
    """Modules imported in this window load as a one-event process loads them (see above).

    It yields the stack that holds the code cache open: a process that goes on loading
    record classes after the window (the one-event answer loads the dialects a project has as
    its files are found) takes it with `pop_all()` and closes what it took when done."""
    gc.disable()
    try:
        defer_unread()
        from hookwright.core.digests import prefer_builtin

        prefer_builtin()  # a few short hashes: not worth loading OpenSSL
        with contextlib.ExitStack() as code_cache:
            code_cache.enter_context(_code_cache())
            yield code_cache
    finally:
        gc.freeze()
        gc.enable()


def _code_cache() -> contextlib.AbstractContextManager[None]:
    """The user's code cache, open (imported after the deferral: `pathlib` imports
    `urllib.parse`); no cache where this user has no home folder, and everything compiles."""
    from hookwright.config.code_cache import compiled_once
    from hookwright.core.home import user_home

    try:
        home = user_home()
    except (RuntimeError, KeyError):
        return contextlib.nullcontext()
    return compiled_once(home)
