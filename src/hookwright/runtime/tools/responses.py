"""How the built-in tools show a structured result a hook put in place of theirs.

A Claude Code PostToolUse hook may answer `updatedToolOutput`: a new `tool_response`. Claude
Code 2.1.240 shows the model that object the way the tool shows its own result, and ignores it
when it does not have the tool's result shape (a string, a missing field); measured per tool:

* Bash needs `stdout`, `stderr` (strings) and `interrupted` (boolean); the model reads stdout
  (leading blank lines and trailing whitespace removed) and stderr (trimmed) on separate lines,
  `(Bash completed with no output)` when both are empty, and an interrupted result is an error
  ending in `<error>Command was aborted before completion</error>`;
* Read needs `type: "text"` and `file` with `filePath`, `content`, `numLines`, `startLine`,
  `totalLines`: the content, numbered from `startLine`;
* Write needs `type` (`create` or `update`), `filePath`, `content`, `structuredPatch` and
  `originalFile` (null allowed): the created or updated sentence for `filePath`;
* Edit needs `filePath`, `oldString`, `newString`, `originalFile` (null allowed),
  `structuredPatch`, `userModified` and `replaceAll`: the updated sentence for `filePath`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hookwright.runtime.tools.base import ToolOutput

BASH_NO_OUTPUT = "(Bash completed with no output)"
BASH_ABORTED = "<error>Command was aborted before completion</error>"


_MISSING = object()


def _fields(response: Any, kinds: Mapping[str, tuple[type, ...]]) -> dict[str, Any] | None:
    """`response` when it is an object with every named field, of one of its types (a
    boolean is not a number), else None."""
    if not isinstance(response, dict):
        return None
    for name, types in kinds.items():
        value = response.get(name, _MISSING)
        if value is _MISSING or not isinstance(value, types):
            return None
        if isinstance(value, bool) and bool not in types:
            return None
    return response


def bash_response(response: Any) -> ToolOutput | None:
    data = _fields(response, {"stdout": (str,), "stderr": (str,), "interrupted": (bool,)})
    if data is None:
        return None
    parts = [data["stdout"].lstrip("\n").rstrip(), data["stderr"].strip()]
    if data["interrupted"]:
        parts.append(BASH_ABORTED)
    text = "\n".join(part for part in parts if part) or BASH_NO_OUTPUT
    return ToolOutput(text, is_error=data["interrupted"], data=data)


def read_response(response: Any, number: Callable[[list[str], int], str]) -> ToolOutput | None:
    """`number(lines, start)` lays the lines out as the Read tool does."""
    data = _fields(response, {"type": (str,), "file": (dict,)})
    file = _fields(
        data["file"] if data is not None and data["type"] == "text" else None,
        {
            "filePath": (str,),
            "content": (str,),
            "numLines": (int,),
            "startLine": (int,),
            "totalLines": (int,),
        },
    )
    if data is None or file is None:
        return None
    return ToolOutput(number(file["content"].split("\n"), file["startLine"]), data=data)


def write_response(response: Any, message: Callable[[bool, str], str]) -> ToolOutput | None:
    """`message(created, path)` is the Write tool's sentence."""
    data = _fields(
        response,
        {
            "type": (str,),
            "filePath": (str,),
            "content": (str,),
            "structuredPatch": (list,),
            "originalFile": (str, type(None)),
        },
    )
    if data is None or data["type"] not in ("create", "update"):
        return None
    return ToolOutput(message(data["type"] == "create", data["filePath"]), data=data)


def edit_response(response: Any, message: Callable[[str, bool], str]) -> ToolOutput | None:
    """`message(path, replace_all)` is the Edit tool's sentence."""
    data = _fields(
        response,
        {
            "filePath": (str,),
            "oldString": (str,),
            "newString": (str,),
            "originalFile": (str, type(None)),
            "structuredPatch": (list,),
            "userModified": (bool,),
            "replaceAll": (bool,),
        },
    )
    if data is None:
        return None
    return ToolOutput(message(data["filePath"], data["replaceAll"]), data=data)
