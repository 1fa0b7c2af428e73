"""The code `dataclasses` (and `typing`, `collections.namedtuple`) compiles for hookwright's record
classes, kept under the user's ``~/.hookwright/cache/code``, so a process that answers one event
(the Claude Code quick client's in-process answer) does not compile it again: each frozen record
class gets its ``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__`` and
``__delattr__`` from a source text `dataclasses` runs through `exec`, and compiling those ~450
small texts is about a third of that answer's instructions. A named tuple's ``__new__`` is a
text `collections` runs through `eval`, and each field of a `typing.NamedTuple` written as text
(``from __future__ import annotations``) one `typing` compiles: kept the same way.

While `compiled_once` is open, the texts `dataclasses` executes (`collections` evaluates,
`typing` compiles to evaluate) are looked up, by their exact text, among the code objects
compiled for them before, and compiled only when missing; the code is what `exec` would have
compiled (file name ``<string>``, no `__future__` flags of the caller), and it runs with the
same globals and namespace. Only those three modules see the change (a module global of their
own in front of the builtin, removed when the window closes; `typing` only when it is loaded as
the window opens, as an answer that loads none of its classes never loads it); when any already
has one, all are left alone, and one that no longer calls the builtin simply compiles as
before.

One file per interpreter build (named by its version text: code objects are not portable) and
release of hookwright (the code of the record classes an older release made is not read). It is
read only when it is a regular file of this user closed to everyone else, in such a folder,
never through a link (`private_files.read_private`), and only a mapping of texts to code objects
is taken from it; anything else is ignored and compiled as usual. New entries are written back
privately when the window closes, in a home folder of this user only (one that does not exist
is not made, another user's gets nothing of this one: `sudo` keeping `HOME`); past
`MAX_ENTRIES` the file starts again with the new ones alone."""

from __future__ import annotations

import contextlib
import marshal
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import CodeType

from hookwright.config.private_files import (
    is_private_dir,
    owned_folder,
    private_dir,
    read_private,
    write_private,
)
from hookwright.core.digests import sha256_hex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Entries kept in the file (one per distinct text; hookwright's classes make about 450).
MAX_ENTRIES = 4096
#: Files larger than this are not read.
MAX_FILE_BYTES = 16_000_000
#: Bumped when the file's format changes.
FORMAT = "1"


def cache_dir(home: Path) -> Path:
    return home / ".hookwright" / "cache" / "code"


def cache_file(home: Path) -> Path:
    """This interpreter build's file for this release of hookwright: a release whose record
    classes changed starts a file of its own, so the code of classes it no longer makes is
    not read at every start until the file fills up."""
    from hookwright import __version__

    key = f"{FORMAT}\0{sys.version}\0{marshal.version}\0{__version__}"
    build = sha256_hex(key.encode())
    return cache_dir(home) / f"{sys.implementation.cache_tag}-{build[:16]}.marshal"


def load(path: Path) -> dict[str, CodeType]:
    """The entries of `path` when it can be trusted and holds texts and code alone; else none."""
    if not is_private_dir(path.parent):
        return {}
    raw = read_private(path, MAX_FILE_BYTES)
    if raw is None:
        return {}
    try:
        entries = marshal.loads(raw)
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(entries, dict):
        return {}
    if not all(type(text) is str and type(code) is CodeType for text, code in entries.items()):
        return {}
    return entries


def store(path: Path, known: Mapping[str, CodeType], new: Mapping[str, CodeType]) -> None:
    """`known` and `new` written as the file (`new` alone past `MAX_ENTRIES`); a folder or a
    file that cannot be written is left as it is (the next process compiles again)."""
    entries = {**known, **new} if len(known) + len(new) <= MAX_ENTRIES else dict(new)
    with contextlib.suppress(OSError, ValueError):
        private_dir(path.parent)
        if is_private_dir(path.parent):
            write_private(path, marshal.dumps(entries))


#: Marks the key of a text `eval` compiled (a source text cannot hold a NUL).
EVAL_KEY = "eval\0"


@contextlib.contextmanager
def compiled_once(home: Path) -> Iterator[None]:
    """Record classes made in this window take their methods' code from the cache."""
    import collections
    import dataclasses

    typing = sys.modules.get("typing")  # not loaded for it: an answer may never need `typing`
    if (
        "exec" in vars(dataclasses)
        or "eval" in vars(collections)
        or "compile" in vars(typing or sys)
    ):
        yield
        return
    path = cache_file(home)
    known = load(path)
    new: dict[str, CodeType] = {}

    def code_for(key: str, source: str, mode: str) -> CodeType:
        code = known.get(key)
        if code is None:
            code = new[key] = compile(source, "<string>", mode, dont_inherit=True)
        return code

    def cached_exec(source: Any, globals: dict[str, Any] | None = None, locals: Any = None) -> None:
        if type(source) is str:
            source = code_for(source, source, "exec")
        exec(source, globals, locals)

    def cached_eval(source: Any, globals: dict[str, Any] | None = None, locals: Any = None) -> Any:
        if type(source) is str:
            source = source.lstrip(" \t")  # as `eval` reads a text
            source = code_for(EVAL_KEY + source, source, "eval")
        return eval(source, globals, locals)

    def cached_compile(source: Any, filename: Any, mode: str, *args: Any, **kwargs: Any) -> Any:
        plain = not args and not kwargs and filename == "<string>" and mode == "eval"
        if plain and type(source) is str:
            return code_for(EVAL_KEY + source, source, "eval")
        return compile(source, filename, mode, *args, **kwargs)

    dataclasses.exec = cached_exec  # type: ignore[attr-defined]
    collections.eval = cached_eval  # type: ignore[attr-defined]
    if typing is not None:
        typing.compile = cached_compile  # type: ignore[attr-defined]
    try:
        yield
    finally:
        del dataclasses.exec  # type: ignore[attr-defined]
        del collections.eval  # type: ignore[attr-defined]
        if typing is not None:
            del typing.compile
        if new and owned_folder(home):
            store(path, known, new)
