"""How a Python process that ran hooks ends: as the interpreter's own exit (`Py_FinalizeEx`)
would end it, in its order, then at once (`os._exit`), without tearing the interpreter down
module by module (that only touches every page of a large process): threads joined, atexit
handlers run, the standard streams flushed (a failed stdout flush makes the status 120, as
the interpreter's); then the modules the hooks loaded let go, so a file a hook left open is
flushed and closed and its finalizers run; then the streams flushed again.

Two processes end so, and differ in one step, the order of `release_modules` (see there):

* a Python command hook the warm runner forked (`_warm/server.py`'s `_finish`). The server
  loads this file by its path: it cannot import hookwright's package, and it runs on every
  CPython 3.10 or later a hook may name. This file uses the standard library alone, and
  syntax and calls every such version has.
* the quick client's in-process answer (`bridges.quick_relay.end_here`), which imports it.
"""

from __future__ import annotations

import atexit
import gc
import sys
import threading
import types
import weakref

TYPE_CHECKING = False  # `typing` is not loaded by the one-event answer
if TYPE_CHECKING:
    from collections.abc import Callable


def finish(status: int, loaded: Callable[[], list[str]], *, collect_first: bool) -> int:
    """The steps of the interpreter's exit, and the status to exit with (0-255): threads
    joined, atexit handlers run, the std streams flushed (120 when stdout could not be),
    the modules `loaded()` names let go (`release_modules`; asked only now, as a handler
    may import), the streams flushed again."""
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    if not flush_std():
        status = 120
    release_modules(loaded(), collect_first=collect_first)
    flush_std()
    return status & 0xFF


def flush_std() -> bool:
    """The standard streams flushed, as the interpreter flushes them at exit; False when
    stdout could not be."""
    ok = True
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and not stream.closed:
                stream.flush()
        except Exception:
            ok = ok and stream is not sys.stdout
    return ok


def release_modules(names: list[str], *, collect_first: bool) -> None:
    """The modules `names` (in the order they were imported) let go as `finalize_modules`
    lets go of every module: the last exception forgotten, the modules taken out of
    ``sys.modules``, their names set to None (`release`), what that frees collected. Entries
    that are not modules are only taken out, as the interpreter's exit does.

    With `collect_first` (the warm runner's child, where nothing else holds the hook's
    modules), they are collected first, so finalizers run with their globals whole; then the
    modules still alive (held by a module of the template, say a handler registered at fork)
    have their names set to None, last imported first, and what that frees is collected.

    Without it (the quick client's answer) the names go first, last imported first, then one
    collection: the engine still holds the hooks' functions and so their globals, and a
    collection first would free nothing."""
    sys.last_type = sys.last_value = sys.last_traceback = None
    if hasattr(sys, "last_exc"):
        sys.last_exc = None
    if not collect_first:
        for name in reversed(names):
            module = sys.modules.pop(name, None)
            if isinstance(module, types.ModuleType):
                release(module.__dict__)
        module = None
        gc.collect()
        return
    alive = []
    for name in names:
        module = sys.modules.pop(name, None)
        if isinstance(module, types.ModuleType):
            alive.append(weakref.ref(module))
    module = None  # no frame holds a module while they are collected
    gc.collect()
    for held in reversed(alive):
        module = held()
        if module is not None:
            release(module.__dict__)
    module = None
    gc.collect()


def release(namespace: dict[str, object]) -> None:
    """A module's names set to None as `_PyModule_ClearDict` sets them: those with one
    leading underscore first, then the rest but ``__builtins__``. Set to None, not removed:
    code that runs later (a weak reference's callback, a finalizer) is written to expect
    None at exit (`logging._removeHandlerRef`), not a missing name."""
    for private in (True, False):
        for name in list(namespace):
            if name != "__builtins__" and (name[:1] == "_" and name[1:2] != "_") is private:
                namespace[name] = None
