"""Claude Code's refusal of a tool input its schema does not take, before any hook runs.

Claude Code parses a call's input with the tool's schema first; when that fails, no hook runs,
the model reads ``<tool_use_error>InputValidationError: ...</tool_use_error>`` and
PostToolBatch reads the same text (measured with 2.1.240 and 2.1.332). The text lists three
kinds of issue, each kind in its own group and in this order: required keys missing (the
schema's order), keys the schema does not have (the model's order), values of the wrong type
(the schema's order)::

    Bash failed due to the following issues:
    The required parameter `command` is missing
    An unexpected parameter `zeta` was provided
    The parameter `timeout` type is expected as `number` but provided as `string`

A value a key with a fixed set of options does not take (Agent's `model`, `isolation`; any
value but the options, null and numbers included) is refused too. When such values are all
that is wrong, Claude Code shows its schema library's issues as they are: the JSON of a list
of ``{"code": "invalid_value", "values": [...], "path": [KEY], "message": ...}``, indented by
two spaces. Beside the other kinds, 2.1.332 adds a line ``The parameter `KEY` is invalid:
MESSAGE`` for each after them, and 2.1.240 leaves them out (measured with both;
`ClaudeCodeProfile.lists_invalid_values`).

Before that, a number written as a string (``"5000"``) for a numeric key is read as the
number, and hooks see the number (measured with both); a boolean is not a number there.

Bash and Read add no limit beyond Claude Code's schema: an empty command, a timeout of 0, a
negative Read offset reach PreToolUse as in Claude Code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from pydantic import BaseModel, ValidationError

from hookwright.core.validation import json_type_name
from hookwright.runtime.tools.input_order import INPUT_ORDER

#: pydantic's type errors and the type Claude Code names for them (its schema's: integers are
#: numbers there; a float for an integer field is not a type error in Claude Code).
EXPECTED: Final[Mapping[str, str]] = {
    "string_type": "string",
    "int_type": "number",
    "int_parsing": "number",
    "float_type": "number",
    "float_parsing": "number",
    "bool_type": "boolean",
    "bool_parsing": "boolean",
    "list_type": "array",
    "dict_type": "object",
    "model_type": "object",
    "model_attributes_type": "object",
}

#: The keys of Claude Code's tools that take one of a fixed set of values, and those values in
#: its schema's order (the same in 2.1.240 and 2.1.332).
OPTIONS: Final[Mapping[str, Mapping[str, tuple[str, ...]]]] = {
    "Agent": {
        "model": ("sonnet", "opus", "haiku", "fable"),
        "isolation": ("worktree", "remote"),
    },
}

#: A number written as a string, as Claude Code reads it for a numeric key.
NUMBER: Final = re.compile(r"-?\d+(?:\.\d+)?")

#: The JSON schema's type words as Claude Code names them.
SCHEMA_TYPES: Final[Mapping[str, str]] = {"integer": "number"}


def schema_refusal(
    tool: str,
    model: type[BaseModel],
    arguments: Mapping[str, Any],
    *,
    lists_invalid_values: bool = True,
) -> str | None:
    """Claude Code's refusal of `arguments` for `tool` (None: its schema takes them, or `tool`
    is not one of Claude Code's); with `lists_invalid_values`, values outside a key's options
    are listed beside the other kinds of issue."""
    if tool not in INPUT_ORDER:
        return None
    invalid = _invalid_values(tool, arguments)
    lines = _issue_lines(tool, model, arguments, {key for key, _ in invalid})
    if invalid and not lines:
        raw = [_invalid_issue(key, options) for key, options in invalid]
        return "InputValidationError: " + json.dumps(raw, indent=2, ensure_ascii=False)
    if lists_invalid_values:
        lines += [
            f"The parameter `{key}` is invalid: {_invalid_message(options)}"
            for key, options in invalid
        ]
    if not lines:
        return None
    issues = "issue" if len(lines) == 1 else "issues"
    return f"InputValidationError: {tool} failed due to the following {issues}:\n" + "\n".join(
        lines
    )


def _issue_lines(
    tool: str, model: type[BaseModel], arguments: Mapping[str, Any], invalid: set[str]
) -> list[str]:
    """The lines of the missing, unexpected and wrongly typed keys, each kind in its order
    (a key whose value is outside its options is not among them)."""
    missing: list[tuple[int, str]] = []
    unexpected: list[str] = []
    wrong: list[tuple[int, str]] = []
    try:
        model.model_validate_json(json.dumps(dict(arguments)), strict=True)
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            loc, kind = error["loc"], error["type"]
            if loc and loc[0] in invalid:
                continue
            rank = _rank(tool, loc)
            if kind == "missing":
                missing.append((rank, f"The required parameter `{_path(loc)}` is missing"))
            elif kind == "extra_forbidden":
                unexpected.append(f"An unexpected parameter `{loc[-1]}` was provided")
            elif kind in EXPECTED:
                wrong.append((rank, _wrong_type(loc, EXPECTED[kind], error["input"])))
    wrong.extend(_nulls(tool, model, arguments, invalid))
    return [
        *(line for _, line in sorted(missing, key=lambda item: item[0])),
        *unexpected,
        *(line for _, line in sorted(wrong, key=lambda item: item[0])),
    ]


def _invalid_values(tool: str, arguments: Mapping[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    """The keys of `arguments` whose value is not one of the key's options, in the schema's
    order, with those options."""
    options = OPTIONS.get(tool, {})
    return [
        (key, options[key])
        for key in INPUT_ORDER[tool]
        if key in options and key in arguments and arguments[key] not in options[key]
    ]


def _invalid_message(options: Sequence[str]) -> str:
    return "Invalid option: expected one of " + "|".join(json.dumps(o) for o in options)


def _invalid_issue(key: str, options: Sequence[str]) -> dict[str, Any]:
    """One issue as Claude Code's schema library writes it."""
    return {
        "code": "invalid_value",
        "values": list(options),
        "path": [key],
        "message": _invalid_message(options),
    }


def with_numbers(
    tool: str, model: type[BaseModel], arguments: Mapping[str, Any]
) -> Mapping[str, Any]:
    """`arguments` with a number written as a string read as the number for the numeric keys
    of Claude Code's `tool` (the same mapping when there is none)."""
    if tool not in INPUT_ORDER or not any(isinstance(v, str) for v in arguments.values()):
        return arguments
    numeric = {key for key, kinds in _types(model).items() if {"integer", "number"} & set(kinds)}
    read = {
        key: _number(value) if key in numeric and isinstance(value, str) else value
        for key, value in arguments.items()
    }
    return read if read != arguments else arguments


def _number(text: str) -> Any:
    if not NUMBER.fullmatch(text):
        return text
    value = float(text)
    return int(value) if value.is_integer() and "." not in text else value


def _types(model: type[BaseModel]) -> dict[str, list[str]]:
    """The JSON types each top-level key of `model` takes."""
    properties: Mapping[str, Any] = model.model_json_schema().get("properties", {})
    return {
        key: [
            kind
            for item in schema.get("anyOf", [schema])
            if isinstance(kind := item.get("type"), str)
        ]
        for key, schema in properties.items()
    }


def _nulls(
    tool: str, model: type[BaseModel], arguments: Mapping[str, Any], skipped: set[str]
) -> list[tuple[int, str]]:
    """A null for an optional key the model takes: Claude Code's optional keys take no null
    (a key in `skipped` is reported otherwise)."""
    if all(value is not None for value in arguments.values()):
        return []
    types = _types(model)
    found: list[tuple[int, str]] = []
    for key, value in arguments.items():
        kinds = types.get(key, [])
        named = [kind for kind in kinds if kind != "null"]
        if value is None and named and "null" in kinds and key not in skipped:
            expected = SCHEMA_TYPES.get(named[0], named[0])
            found.append((_rank(tool, (key,)), _wrong_type((key,), expected, None)))
    return found


def _wrong_type(loc: Sequence[int | str], expected: str, value: Any) -> str:
    return (
        f"The parameter `{_path(loc)}` type is expected as `{expected}` "
        f"but provided as `{json_type_name(value)}`"
    )


def _rank(tool: str, loc: Sequence[int | str]) -> int:
    """Where the top-level key of `loc` is in Claude Code's schema for `tool`."""
    order = INPUT_ORDER[tool]
    return order.index(loc[0]) if loc and loc[0] in order else len(order)


def _path(loc: Sequence[int | str]) -> str:
    """`edits[0].old_string`, as Claude Code writes an issue's path."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text = f"{text}.{part}" if text else part
    return text
