"""The fix for the YAML error an OpenHarness hook file most often has: a command written
unquoted whose text holds ``": "`` (``command: echo reason: no``), which YAML reads as a second
key on the line and rejects with a bare "mapping values are not allowed here"."""

from __future__ import annotations

import re
from pathlib import Path

from hookwright.config.safeparse import ParseError, read_text

#: ``  key: value`` (in a list item or not) whose value is a plain scalar, not quoted.
_PLAIN_VALUE = re.compile(r"^\s*(?:-\s+)?(?P<key>[\w.-]+):\s+(?P<value>[^'\"\s|>&*!#].*)$")
_SHOWN = 60


def quote_hint(path: Path, error: ParseError) -> str:
    """``; line 5 of guard.yaml: quote the value of command, as command: '...'`` when the
    line of `error` is a key whose plain value holds ``": "``; empty otherwise."""
    if error.line is None:
        return ""
    try:
        lines = read_text(path).splitlines()
    except ParseError:
        return ""
    if not 0 < error.line <= len(lines):
        return ""
    found = _PLAIN_VALUE.match(lines[error.line - 1])
    if found is None or ": " not in found["value"]:
        return ""
    key, value = found["key"], found["value"].rstrip()
    quoted = f"'{value}'" if "'" not in value else '"' + value.replace('"', '\\"') + '"'
    shown = quoted if len(quoted) <= _SHOWN else quoted[: _SHOWN - 1] + "…"
    return (
        f"; line {error.line} of {path.name}: the {key} holds ': ', which YAML reads as a new "
        f"key; quote the whole value: {key}: {shown}"
    )
