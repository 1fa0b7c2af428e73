"""Describing what is wrong with user input the same way everywhere: the field path of a
pydantic error location (`hooks[3].timeout`) and the JSON type name of a value."""

from __future__ import annotations

import json
from collections.abc import Iterable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pydantic import BaseModel


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


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """`` (did you mean 'matcher'?)`` for the closest known name (a different case counts as
    closest; a word close to the part of a name before its first `_` names that name), or an
    empty string."""
    import difflib

    names = list(dict.fromkeys(known))
    same_case = [name for name in names if name.lower() == word.lower() and name != word]
    close = same_case or difflib.get_close_matches(word, names, n=1, cutoff=0.75)
    if not close:
        # `timout` or `timeout` for `timeout_seconds`: a word close to a name's first part.
        stems = {name.split("_")[0]: name for name in reversed(names) if "_" in name}
        stem = difflib.get_close_matches(word, [s for s in stems if len(s) > 3], n=1, cutoff=0.75)
        close = [stems[stem[0]]] if stem else []
    return f" (did you mean {close[0]!r}?)" if close else ""


def unknown_field(key: object, known: Iterable[str]) -> str:
    """The message for a key no model of the file has."""
    return "unknown field" + (did_you_mean(key, known) if isinstance(key, str) else "")


def quoted_value(value: object, limit: int = 60) -> str:
    """`value` as the JSON a user wrote, on one line and cut to `limit` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except ValueError:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def unknown_key(key: str, value: object, known: Iterable[str]) -> tuple[str, bool]:
    """The message for an unknown `key` holding `value` (`unknown field (did you mean
    'matcher'?) with value "Bash"`), and whether it resembles a known key (a typo)."""
    hint = did_you_mean(key, known)
    return f"unknown field{hint} with value {quoted_value(value)}", bool(hint)


def model_keys(model: type[BaseModel]) -> set[str]:
    """Every field name and alias of `model` and of the models nested in it."""
    import typing

    from pydantic import BaseModel

    keys: set[str] = set()
    pending: list[Any] = [model]
    seen: set[Any] = set()
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            for name, info in current.model_fields.items():
                keys.update(k for k in (name, info.alias) if k)
                pending.append(info.annotation)
        else:
            pending.extend(typing.get_args(current))
    return keys


def pydantic_message(error: Any, model: type[BaseModel]) -> str:
    """A pydantic error's message; an unknown key says which known one it resembles."""
    if error["type"] == "extra_forbidden" and error["loc"]:
        key = error["loc"][-1]
        return f"{unknown_field(key, model_keys(model))} with value {quoted_value(error['input'])}"
    return str(error["msg"])
