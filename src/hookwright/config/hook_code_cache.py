"""The compiled code of hook modules (a native hook's `call:` module, loaded by
`dialects.native`), kept under the user's ``~/.hookwright/cache/hooks``, so a process that
answers one event (the Claude Code fallback, `hookwright hook claude-code`) does not compile an
unchanged hook file again. The first `compile` of a process sets up the interpreter's syntax
tree types (about 4 % of that answer's instructions) before it reads one line.

Unlike ``__pycache__``, trusted on the source's mtime (in seconds) and size alone, an entry is
named by the SHA-256 of the exact bytes compiled, of the file's path (the code carries it) and
of the interpreter build and optimization level: an edit made within the same second and
keeping the size is compiled fresh, so there is nothing to invalidate. An entry is read only
from a real folder and a regular file of this user closed to everyone else, never through a
link, and used only when it holds one code object compiled for that path; anything else is
compiled again and the entry, when it can be, rewritten. Entries are written privately (see
`private_files`), in a home folder of this user only (another user's, as under `sudo` keeping
``HOME``, gets nothing of this one). The folder holds at most `MAX_ENTRIES` entries: past that,
it is emptied before the next one is written.
"""

from __future__ import annotations

import marshal
import sys
from collections.abc import Callable
from pathlib import Path
from types import CodeType

from hookwright.config.private_files import (
    is_private_dir,
    owned_folder,
    read_private,
    write_entry,
)
from hookwright.core.digests import sha256_hex
from hookwright.core.home import user_home

#: Entries kept before the folder is emptied (one per distinct hook file compiled).
MAX_ENTRIES = 256
#: Bumped when the entry format changes.
FORMAT = "1"
#: Entries larger than this are not read.
MAX_ENTRY_BYTES = 4_000_000


def cache_dir(home: Path) -> Path:
    return home / ".hookwright" / "cache" / "hooks"


def entry_key(source: bytes, path: str) -> str:
    """What an entry is named by: the bytes, the path and the build that compiled them."""
    build = f"{FORMAT}\0{sys.version}\0{marshal.version}\0{sys.flags.optimize}\0{path}\0"
    return sha256_hex(build.encode("utf-8", "surrogateescape") + source)


def _own_home() -> Path | None:
    """The home folder, when it is a folder this user owns; else None (nothing is kept)."""
    try:
        home = user_home()
    except RuntimeError:
        return None
    return home if owned_folder(home) else None


def _cached(folder: Path, key: str, path: str) -> CodeType | None:
    if not is_private_dir(folder):
        return None
    raw = read_private(folder / f"{key}.marshal", MAX_ENTRY_BYTES)
    if raw is None:
        return None
    try:
        code = marshal.loads(raw)
    except (EOFError, ValueError, TypeError):
        return None
    if type(code) is not CodeType or code.co_filename != path:
        return None
    return code


def compiled(source: bytes, path: str, compile_source: Callable[[], CodeType]) -> CodeType:
    """The code of the hook file at `path` whose bytes are `source`: from the cache when it
    was compiled before, else `compile_source()` (kept for the next process)."""
    home = _own_home()
    if home is None:
        return compile_source()
    folder = cache_dir(home)
    key = entry_key(source, path)
    code = _cached(folder, key, path)
    if code is None:
        code = compile_source()
        write_entry(folder, f"{key}.marshal", marshal.dumps(code), MAX_ENTRIES)
    return code
