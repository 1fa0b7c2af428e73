"""The code `dataclasses` compiles for hookwright's record classes, kept under the user's
``~/.hookwright/cache/code``, so a process that answers one event (the Claude Code quick
client's in-process answer) does not compile it again: each frozen record class gets its
``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__`` and ``__delattr__``
from a source text `dataclasses` runs through `exec`, and compiling those ~450 small texts is
about a third of that answer's instructions.

While `compiled_once` is open, the texts `dataclasses` executes are looked up, by their exact
text, among the code objects compiled for them before, and compiled only when missing; the
code is what `exec` would have compiled (file name ``<string>``, no `__future__` flags of the
caller), and it runs with the same globals and namespace. Only `dataclasses` sees the change
(a module global of its own in front of the builtin, removed when the window closes); a
`dataclasses` that already has one, or that no longer calls `exec`, is left alone.

One file per interpreter build (named by its version text: code objects are not portable).
It is read only when it is a regular file of this user closed to everyone else, in such a
folder, never through a link (`private_files.read_private`), and only a mapping of texts to
code objects is taken from it; anything else is ignored and compiled as usual. New entries
are written back privately when the window closes; past `MAX_ENTRIES` the file starts again
with the new ones alone.
"""

from __future__ import annotations

import contextlib
import marshal
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import CodeType
from typing import Any

from hookwright.config.private_files import is_private_dir, private_dir, read_private, write_private
from hookwright.core.digests import sha256_hex

#: Entries kept in the file (one per distinct text; hookwright's classes make about 450).
MAX_ENTRIES = 4096
#: Files larger than this are not read.
MAX_FILE_BYTES = 16_000_000
#: Bumped when the file's format changes.
FORMAT = "1"


def cache_dir(home: Path) -> Path:
    return home / ".hookwright" / "cache" / "code"


def cache_file(home: Path) -> Path:
    """This interpreter build's file."""
    build = sha256_hex(f"{FORMAT}\0{sys.version}\0{marshal.version}".encode())
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


@contextlib.contextmanager
def compiled_once(home: Path) -> Iterator[None]:
    """Record classes made in this window take their methods' code from the cache."""
    import dataclasses

    if "exec" in vars(dataclasses):
        yield
        return
    path = cache_file(home)
    known = load(path)
    new: dict[str, CodeType] = {}

    def cached_exec(source: Any, globals: dict[str, Any] | None = None, locals: Any = None) -> None:
        if type(source) is str:
            code = known.get(source)
            if code is None:
                code = new[source] = compile(source, "<string>", "exec", dont_inherit=True)
            source = code
        exec(source, globals, locals)

    dataclasses.exec = cached_exec  # type: ignore[attr-defined]
    try:
        yield
    finally:
        del dataclasses.exec  # type: ignore[attr-defined]
        if new:
            store(path, known, new)
