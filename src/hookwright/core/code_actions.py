"""The file and network actions of a snippet of Python or JavaScript run by a shell command
(``python -c "..."``, ``python3 <<EOF``, ``node -e "..."``), and of a URL.

The snippet is not run nor fully parsed: the calls that touch files (``open(path, 'w')``,
``Path(path).write_text``, ``os.remove``, ``shutil.rmtree``, ``fs.writeFileSync``, ...) are
found by pattern. A call whose path is not a string literal gives a ``dynamic`` action, whose
path is the expression's text: where it points is not known.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import urlsplit

from hookwright.core.actions import Action, FileDelete, FileRead, FileWrite, NetFetch
from hookwright.core.shell_scope import Scope, Word

__all__ = ["code_actions", "url_actions"]

_ARG: Final = r"""\s*(?:(?P<q>['"`])(?P<lit>[^'"`\n]*)(?P=q)|(?P<expr>[^,)'"`]+))"""
_MODE: Final = r"""(?:\s*,\s*(?:mode\s*=\s*)?['"](?P<mode>[rwxabt+U]*)['"])?"""
_OPEN: Final = re.compile(r"\bopen\(" + _ARG + _MODE)
_PATH_CALL: Final = re.compile(r"\bPath\(" + _ARG + r"\s*\)\s*\.\s*(?P<method>\w+)\(")
_PATH_METHODS: Final[dict[str, type[FileRead | FileWrite | FileDelete]]] = {
    "write_text": FileWrite,
    "write_bytes": FileWrite,
    "touch": FileWrite,
    "mkdir": FileWrite,
    "chmod": FileWrite,
    "unlink": FileDelete,
    "rmdir": FileDelete,
    "read_text": FileRead,
    "read_bytes": FileRead,
}
_CALLS: Final[tuple[tuple[re.Pattern[str], type[FileRead | FileWrite | FileDelete]], ...]] = (
    (re.compile(r"\bos\.(?:remove|unlink|rmdir|removedirs)\(" + _ARG), FileDelete),
    (re.compile(r"\bshutil\.rmtree\(" + _ARG), FileDelete),
    (re.compile(r"\bos\.(?:mkdir|makedirs|chmod|chown|truncate)\(" + _ARG), FileWrite),
    (re.compile(r"\bshutil\.(?:copy\w*|move)\([^,]+," + _ARG), FileWrite),
    (re.compile(r"\bos\.(?:rename|replace)\([^,]+," + _ARG), FileWrite),
    (re.compile(r"(?:\bfs\w*|\))\s*\.(?:write|append)File(?:Sync)?\(" + _ARG), FileWrite),
    (re.compile(r"(?:\bfs\w*|\))\s*\.(?:copyFile|rename)(?:Sync)?\([^,]+," + _ARG), FileWrite),
    (re.compile(r"(?:\bfs\w*|\))\s*\.(?:unlink|rm|rmdir)(?:Sync)?\(" + _ARG), FileDelete),
    (re.compile(r"(?:\bfs\w*|\))\s*\.readFile(?:Sync)?\(" + _ARG), FileRead),
)
_URL: Final = re.compile(r"""https?://[^\s'"`<>)\\]+""")


def code_actions(code: str, scope: Scope) -> None:
    """Append the file and network actions found in a Python or JavaScript snippet."""
    for match in _OPEN.finditer(code):
        mode = match.group("mode") or "r"
        kind = FileWrite if any(flag in mode for flag in "wax+") else FileRead
        scope.file(kind, _target(match))
    for match in _PATH_CALL.finditer(code):
        method = _PATH_METHODS.get(match.group("method"))
        if method is not None:
            scope.file(method, _target(match))
    for pattern, call_kind in _CALLS:
        for match in pattern.finditer(code):
            scope.file(call_kind, _target(match))
    for url in _URL.findall(code):
        scope.out.extend(url_actions(url))


def _target(match: re.Match[str]) -> Word:
    literal = match.group("lit")
    if literal is not None:
        return Word(literal)
    return Word(match.group("expr").strip(), dynamic=True)


def url_actions(url: str) -> tuple[Action, ...]:
    """The ``NetFetch`` of a URL (its host lower-cased; empty when it has none)."""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        host = ""
    return (NetFetch(url, host),)
