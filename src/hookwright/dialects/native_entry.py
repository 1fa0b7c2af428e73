"""One hook of `.hookwright/hooks.yaml` as discovery keeps it, and its plain reading.

`plain_entry` accepts only an entry written in the plainest form (each key spelt as the docs
spell it, each value of its own YAML type, nothing the schema would convert), for which the
schema (`hookwright.dialects.native_schema`) gives the same entry; anything else, valid or
not, is left to the schema, which validates and explains it.
`tests/dialects/test_native_entry.py` holds the two to that."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from hookwright.core.events import resolve_event

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, Literal, TypeAlias

#: `module:function` (dots allowed in both), as the schema checks `call`.
CALL_PATTERN: Final = r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$"
#: The part of `CALL_PATTERN` the plain reading accepts: ASCII names only (the schema's own
#: engine decides anything wider).
_PLAIN_CALL: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*:[A-Za-z_][A-Za-z0-9_.]*")
_LARGEST_PLAIN_INT: Final = 2**63 - 1

OnError: TypeAlias = "Literal['continue', 'block']"
NativeMode: TypeAlias = "Literal['parallel', 'chain', 'shadow']"


@dataclass(frozen=True, slots=True)
class NativeEntry:
    """One entry of a ``hooks.yaml`` as written, checked against its schema."""

    name: str
    event: str
    call: str
    matcher: str | None = None
    if_: str | None = None
    priority: int = 0
    timeout: float | None = None
    on_error: OnError = "continue"
    #: `shadow`: run as `parallel`, its answer recorded and reported, never applied.
    mode: NativeMode = "parallel"
    enabled: bool = True
    description: str | None = None


def _text(value: Any) -> bool:
    return type(value) is str


def _optional_text(value: Any) -> bool:
    return value is None or type(value) is str


def _known_event(value: Any) -> bool:
    try:
        resolve_event(value)
    except Exception:  # whatever the schema's validator would raise, the schema says
        return False
    return True


def _valid_if(value: Any) -> bool:
    if value is None:
        return True
    from hookwright.core.matching import IfRule  # loaded by the first hook with an `if`

    try:
        IfRule.parse(value)
    except Exception:  # whatever the schema's validator would raise, the schema says
        return False
    return True


#: Each key the plain reading accepts, and the test its value must pass.
_PLAIN_VALUES: Final[dict[str, Callable[[Any], bool]]] = {
    "name": lambda v: _text(v) and len(v) > 0,
    "event": lambda v: _text(v) and _known_event(v),
    "call": lambda v: _text(v) and _PLAIN_CALL.fullmatch(v) is not None,
    "matcher": _optional_text,
    "if": lambda v: _optional_text(v) and _valid_if(v),
    "priority": lambda v: type(v) is int and abs(v) <= _LARGEST_PLAIN_INT,
    "timeout": lambda v: v is None or (type(v) in (int, float) and v > 0),
    "on_error": lambda v: v in ("continue", "block") and _text(v),
    "mode": lambda v: v in ("parallel", "chain", "shadow") and _text(v),
    "enabled": lambda v: type(v) is bool,
    "description": _optional_text,
}


def plain_entry(raw: Any) -> NativeEntry | None:
    """`raw` as an entry when it is in the plainest form (see the module docstring); None
    leaves it to the schema."""
    if type(raw) is not dict or not {"name", "event", "call"} <= raw.keys():
        return None
    for key, value in raw.items():
        check = _PLAIN_VALUES.get(key) if type(key) is str else None
        if check is None or not check(value):
            return None
    values = {("if_" if key == "if" else key): value for key, value in raw.items()}
    timeout = values.get("timeout")
    if timeout is not None:
        values["timeout"] = float(timeout)
    return NativeEntry(**values)
