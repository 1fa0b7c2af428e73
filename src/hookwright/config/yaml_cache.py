"""The values of YAML files already parsed, kept as JSON under the user's
``~/.hookwright/cache/yaml``, so a process that answers one event (the Claude Code fallback,
`hookwright hook claude-code`) reads an unchanged `hooks.yaml` without loading PyYAML.

An entry is named by the SHA-256 of the text it was parsed from (and of hookwright's version),
so an edited file is never answered from an old entry: there is nothing to invalidate. Only
values JSON writes back exactly are kept (mappings with text keys, lists, text, integers,
finite numbers, booleans, null); a date or a set is parsed again each time. An entry is read
only from a real folder and a regular file of this user closed to everyone else, never
through a link; anything else is parsed again, and the entry, when it can be written, is
replaced (written privately, see `private_files`), in a home folder of this user only
(`safeparse.read_yaml` keeps nothing in another user's). The folder holds at most `MAX_ENTRIES`
entries: past that, it is emptied before the next one is written.
"""

from __future__ import annotations

import json
from pathlib import Path

from hookwright.config.private_files import is_private_dir, read_private, write_entry
from hookwright.core.digests import sha256_hex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Entries kept before the folder is emptied (one per distinct text parsed).
MAX_ENTRIES = 256
#: Bumped when the entry format changes.
FORMAT = "1"
#: Entries larger than this are not read (a hooks file is a few kilobytes).
MAX_ENTRY_BYTES = 1_000_000


def cache_dir(home: Path) -> Path:
    return home / ".hookwright" / "cache" / "yaml"


def _key(text: str) -> str:
    from hookwright import __version__

    return sha256_hex(f"{FORMAT}\0{__version__}\0{text}".encode())


def cached(home: Path, text: str) -> tuple[bool, Any]:
    """(True, the value) when `text` was parsed before and its entry can be trusted; else
    (False, None)."""
    folder = cache_dir(home)
    if not is_private_dir(folder):
        return False, None
    key = _key(text)
    raw = read_private(folder / f"{key}.json", MAX_ENTRY_BYTES)
    if raw is None:
        return False, None
    try:
        entry = json.loads(raw)
    except (ValueError, RecursionError):
        return False, None
    if not isinstance(entry, dict) or entry.get("key") != key or "value" not in entry:
        return False, None
    return True, entry["value"]


def exact_in_json(value: Any) -> bool:
    """Whether JSON gives `value` back as it is (iterative: the value is already bounded in
    depth by the loader)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if not all(type(key) is str for key in item):
                return False
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float):
            import math  # here: only a parse being remembered is checked

            if not math.isfinite(item):
                return False
        elif item is not None and type(item) not in (str, int, bool):
            return False
    return True


def remember(home: Path, text: str, value: Any) -> None:
    """Keep `value` as the parse of `text`, when JSON writes it back exactly; a folder or an
    entry that cannot be written is left as it is (the next process parses again)."""
    if not exact_in_json(value):
        return
    key = _key(text)
    data = json.dumps({"key": key, "value": value}, separators=(",", ":")).encode()
    write_entry(cache_dir(home), f"{key}.json", data, MAX_ENTRIES)
