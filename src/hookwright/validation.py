"""Describing what is wrong with user input the same way everywhere: the field path of a
pydantic error location (`hooks[3].timeout`) and the JSON type name of a value."""

from __future__ import annotations

import json
from collections.abc import Iterable


def field_path(loc: Iterable[int | str], base: str = "") -> str:
    """`("handler", "timeout_seconds")` -> `handler.timeout_seconds`; indices as `[n]`; `base`
    is the path of the object the location is relative to. A key that is empty or holds a
    space, a control character, `.` or a bracket is quoted (`["a\\nb"]`), so the path stays
    one unambiguous line."""
    out = base
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif not _plain_key(part):
            out += f"[{json.dumps(part)}]"
        else:
            out += f".{part}" if out else part
    return out


def _plain_key(key: str) -> bool:
    return key.isprintable() and not any(char in key for char in " .[]") and key != ""


def json_type_name(value: object) -> str:
    """The JSON name of a decoded value's type (`null`, `boolean`, `number`, ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__
