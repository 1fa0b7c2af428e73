"""Standard modules a process that answers one event or runs one command (`lean_start`: the
quick client's answer, the command line's fast path) imports without using, run only when
something reads them (`deferred`).

`dataclasses` imports `inspect` at its top, and `inspect` imports `ast`, `dis`, `tokenize` and
`linecache`: about 7 % of the answer's instructions (a tenth of `hooks test`'s), for a
function (`inspect.signature`)
`dataclasses` calls only for a record class without a docstring (`ipaddress`, which
`urllib.parse` imports, about 2 % more). `pathlib` imports `urllib.parse` at its top for
`Path.as_uri` alone (about 2 % more), binding `quote_from_bytes` as it loads: it is deferred
with that one name held by a function that reads the module's own when called
(`import_pathlib`), so `pathlib` loads without running it. A deferred module is the
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
#: `ast`, `dis`, `tokenize` and `linecache`), `pathlib` imports `urllib.parse` (for
#: `Path.as_uri`), which imports `ipaddress` (read only for a bracketed host).
UNREAD = ("inspect", "ipaddress", "urllib.parse")
_lock = _thread.RLock()
#: The names of the deferred modules whose code is running now.
_running: set[str] = set()


class _Deferred(ModuleType):
    """A module whose code runs at the first read of a name it does not hold."""

    def __getattr__(self, name: str) -> object:
        if name == "__path__":  # what `from module import name` asks first: not a package
            raise AttributeError(name)
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
    """`name` (a module not imported yet, loaded from its source file or its cached bytecode,
    not a package) placed in `sys.modules` with its code not run, and, for a submodule, as
    its package's attribute (the package imported, as an import of the submodule would);
    False, and nothing of the module placed, otherwise."""
    if name in sys.modules:
        return False
    spec = find_spec(name)
    if spec is None or not isinstance(spec.loader, SourceFileLoader):
        return False
    if spec.submodule_search_locations is not None:
        return False
    module = module_from_spec(spec)
    module.__class__ = _Deferred
    sys.modules[name] = module
    package, _, child = name.rpartition(".")
    if package:
        setattr(sys.modules[package], child, module)
    return True


def _quote_from_bytes(bs: bytes, safe: str = "/") -> str:
    """`urllib.parse.quote_from_bytes` for `pathlib` (`Path.as_uri`), read from the module
    when called: the first call runs the deferred module."""
    from urllib.parse import quote_from_bytes

    return quote_from_bytes(bs, safe)


def import_pathlib() -> None:
    """`pathlib` imported with `urllib.parse` deferred: while it loads, the deferred module
    holds `quote_from_bytes` (the one name `pathlib` binds from it) as `_quote_from_bytes`,
    taken away once `pathlib` has it, so every later reader of the name runs the module and
    gets its own."""
    parse = sys.modules.get("urllib.parse")
    if type(parse) is not _Deferred or "pathlib" in sys.modules:
        return
    vars(parse)["quote_from_bytes"] = _quote_from_bytes
    try:
        import pathlib  # noqa: F401
    finally:
        if vars(parse).get("quote_from_bytes") is _quote_from_bytes:
            del vars(parse)["quote_from_bytes"]


def defer_unread() -> None:
    """`UNREAD` deferred (each one not imported yet), then `pathlib` imported without running
    `urllib.parse`."""
    for name in UNREAD:
        deferred(name)
    import_pathlib()
