"""Which declared hook an error of a config file belongs to, for `hooks validate`'s counts.

A hook whose entry is rejected while its file is read (a misspelt field, an unknown event)
never becomes a `DiscoveredHook`: only the errors under its entry say it was there. Each
dialect's files name an entry by a field path of their own shape; the errors under one entry
are one hook that did not load, however many fields of it are wrong.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from hookwright.config.loading import Diagnostic, under

_EVENT_GROUPS = re.compile(r"hooks\.\w+\[\d+\](?:\.hooks\[\d+\])?")
_LIST = re.compile(r"hooks\[\d+\]")

#: A dialect's name -> the field path of one hook's entry in its files (an event group's, for
#: an error of the group itself). OpenHarness files hold one hook each, which is kept as a
#: hook even when it is rejected, so its errors are that hook's.
ENTRY_PATHS: dict[str, re.Pattern[str]] = {
    "claude_code": _EVENT_GROUPS,
    "codex": _EVENT_GROUPS,
    "gemini": _EVENT_GROUPS,
    "native": _LIST,
    "skill": _LIST,
    "picoclaw": re.compile(r"hooks\.(?:processes|builtins)\.[^.\[]+"),
}


def entry_field(dialect: str, origin: str) -> str:
    """The field path of a hook's entry in its file, from its origin (``file:field``): an
    error under it is that hook's. An OpenHarness file is one hook: the whole file."""
    file, _, field_path = origin.rpartition(":")
    return field_path if file and dialect != "openharness" else ""


def rejected_entries(
    dialect: str, problems: Iterable[Diagnostic], kept_fields: Iterable[str]
) -> set[str]:
    """The entries of one file whose errors say they did not load: the field path of each
    error's entry, but those under a hook that was kept (`kept_fields`, its origin's field
    path: that hook is counted by what became of it) and errors outside any hook's entry (a
    setting of the file; the whole file, when the path is empty)."""
    pattern = ENTRY_PATHS.get(dialect)
    kept = tuple(kept_fields)
    entries: set[str] = set()
    for problem in problems:
        if problem.severity != "error" or pattern is None or not problem.path:
            continue
        if any(under(problem.path, field) for field in kept):
            continue
        entry = pattern.match(problem.path)
        if entry is not None:
            entries.add(entry.group())
    return entries


def whole_file_failed(problems: Iterable[Diagnostic]) -> bool:
    """True when an error names no field: the file itself did not load (it does not parse,
    or is not the shape its dialect reads)."""
    return any(p.severity == "error" and not p.path for p in problems)
