"""Standard modules a process that answers one event or runs one command (`lean_start`: the
quick client's answer, the command line's fast path) imports without using, run only when
something reads them (`deferred`).

`dataclasses` imports `inspect` at its top, and `inspect` imports `ast`, `dis`, `tokenize` and
`linecache`: about 7 % of the answer's instructions (a tenth of `hooks test`'s), for a
function (`inspect.signature`)
`dataclasses` calls only for a record class without a docstring (`ipaddress`, which
`urllib.parse` imports, about 2 % more). A deferred module is the
module's own object, made from the spec a plain import would find then and placed in
`sys.modules` under its name, its code not yet run. The first read of a name it does not hold
yet runs that code in it (as `importlib.util.LazyLoader` does) and it becomes a plain module;
so a hook that imports it gets the whole module, the same object the others hold. Unlike
`LazyLoader`, the code runs under a lock and the module keeps answering `__getattr__` until
it has run: a second thread waits for the whole module instead of reading a half-run one, and
a read from the module's own code while it runs (a cycle) fails as an unfinished import
fails, instead of running it twice.
"""

import _thread
import sys
from importlib.machinery import SourceFileLoader
from importlib.util import find_spec, module_from_spec
from types import ModuleType

#: What a one-event process imports without reading: `dataclasses` imports `inspect` (with
#: `ast`, `dis`, `tokenize` and `linecache`), `urllib.parse` (which `pathlib` imports)
#: imports `ipaddress` (read only for a bracketed host).
UNREAD = ("inspect", "ipaddress")
_lock = _thread.RLock()
#: The names of the deferred modules whose code is running now.
_running: set[str] = set()


class _Deferred(ModuleType):
    """A module whose code runs at the first read of a name it does not hold."""

    def __getattr__(self, name: str) -> object:
        own = ModuleType.__getattribute__(self, "__name__")
        with _lock:
            if type(self) is _Deferred:
                if own in _running:
                    message = f"partially initialized module {own!r} has no attribute {name!r}"
                    raise AttributeError(message)
                _running.add(own)
                try:
                    spec = ModuleType.__getattribute__(self, "__spec__")
                    spec.loader.exec_module(self)
                    self.__class__ = ModuleType  # type: ignore[assignment]
                finally:
                    _running.discard(own)
        return getattr(self, name)


def deferred(name: str) -> bool:
    """`name` (a top-level module not imported yet, loaded from its source file or its
    cached bytecode, not a package) placed in `sys.modules` with its code not run; False,
    and nothing changed, otherwise."""
    if name in sys.modules or "." in name:
        return False
    spec = find_spec(name)
    if spec is None or not isinstance(spec.loader, SourceFileLoader):
        return False
    if spec.submodule_search_locations is not None:
        return False
    module = module_from_spec(spec)
    module.__class__ = _Deferred
    sys.modules[name] = module
    return True


def defer_unread() -> None:
    """`UNREAD` deferred (each one not imported yet)."""
    for name in UNREAD:
        deferred(name)
