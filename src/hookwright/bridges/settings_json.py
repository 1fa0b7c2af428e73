"""A Claude Code settings file read as strict JSON and changed in its ``hooks`` member only.

Claude Code reads its settings with JavaScript's ``JSON.parse`` and loses every rule in them
when that fails, so what hookwright reads must be what Claude Code reads, and what it writes
must stay readable: a number that is not finite (``1e400``, Python's ``NaN`` and ``Infinity``),
text holding a lone surrogate (``"\\ud800"``), a ``hooks`` that is not an object or an event
under it that is not a list is a one-line `DocumentError` naming the field. Duplicate names
keep JSON's usual meaning (the last one counts).

A change replaces the text of the (last) ``hooks`` member, inserts one after the last member,
or removes it; every other byte of the file is kept. The new member follows the file's own
layout: its indentation unit, line ends and separators.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from hookwright.config.safeparse import MAX_DEPTH, MAX_INT_DIGITS, MAX_TEXT_CHARS, TOO_DEEP

HOOKS = "hooks"
_WS = re.compile(r"[ \t\r\n]*")
_BLANKS = re.compile(r"[ \t]*")
_SURROGATE = re.compile("[\ud800-\udfff]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
#: How much of one name an error line shows.
_SHOWN = 60


class DocumentError(ValueError):
    """Settings that are not strict JSON of the right shape: one line naming the file."""


class _NotFinite:
    """A number JSON readers turn into Infinity (or refuse), kept as its text to name it."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class _Decoder(json.JSONDecoder):
    """Keeps each number that is not finite as a `_NotFinite`, and a list of them all: one
    that a later duplicate name hides still makes the file unreadable (``NaN``) or is still
    in it for the next reader to choke on."""

    def __init__(self) -> None:
        super().__init__(parse_float=self._number, parse_constant=self._keep)
        self.not_finite: list[_NotFinite] = []

    def _keep(self, text: str) -> _NotFinite:
        found = _NotFinite(text)
        self.not_finite.append(found)
        return found

    def _number(self, text: str) -> float | _NotFinite:
        value = float(text)
        return value if math.isfinite(value) else self._keep(text)


#: Finds where a value of a validated text ends.
_SCANNER = json.JSONDecoder()


@dataclass(frozen=True, slots=True)
class Settings:
    """A settings file's text, its parsed object and its ``hooks`` member (None: absent)."""

    text: str
    data: dict[str, Any]
    hooks: dict[str, list[Any]] | None


EMPTY = Settings("", {}, None)


def parse_settings(raw: bytes, *, where: str) -> Settings:
    """`raw` as settings, or a `DocumentError` naming `where` and the field at fault."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DocumentError(f"{where} is not valid UTF-8 (at byte {exc.start})") from None
    if not _WS.fullmatch(text):
        return _parse_text(text, where)
    return Settings(text, {}, None)


def _parse_text(text: str, where: str) -> Settings:
    if len(text) > MAX_TEXT_CHARS:
        raise DocumentError(f"{where} is longer than {MAX_TEXT_CHARS:,} characters")
    decoder = _Decoder()
    try:
        data = decoder.decode(text)
    except json.JSONDecodeError as exc:
        at = f"line {exc.lineno} column {exc.colno}"
        raise DocumentError(f"{where} is not valid JSON: {exc.msg} ({at})") from None
    except ValueError:
        raise DocumentError(f"{where}: a number has more than {MAX_INT_DIGITS} digits") from None
    except RecursionError:
        raise DocumentError(f"{where}: {TOO_DEEP}") from None
    _check_values(data, where)
    if decoder.not_finite:
        shown = _clip(decoder.not_finite[0].text)
        raise DocumentError(f"{where} holds {shown} under a repeated name, not a finite number")
    if not isinstance(data, dict):
        raise DocumentError(f"{where} is not a JSON object (found {_kind(data)})")
    return Settings(text, data, _hooks_of(data, where))


def _hooks_of(data: dict[str, Any], where: str) -> dict[str, list[Any]] | None:
    if HOOKS not in data:
        return None
    hooks = data[HOOKS]
    if not isinstance(hooks, dict):
        raise DocumentError(f"{where}: hooks must be an object, found {_kind(hooks)}")
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            field = field_name((HOOKS, event))
            raise DocumentError(f"{where}: {field} must be a list, found {_kind(groups)}")
    return hooks


def _check_values(value: Any, where: str) -> None:
    """Every value walked without recursion: nesting, finite numbers, whole characters."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, dict | list) and len(path) >= MAX_DEPTH:
            raise DocumentError(f"{where}: {TOO_DEEP}")
        if isinstance(item, _NotFinite):
            shown = _clip(item.text)
            raise DocumentError(f"{where}: {field_name(path)} is {shown}, not a finite number")
        if isinstance(item, str):
            _check_text(item, path, where)
        elif isinstance(item, dict):
            for key, child in item.items():
                _check_text(key, (*path, key), where)
                stack.append((child, (*path, key)))
        elif isinstance(item, list):
            stack.extend((child, (*path, index)) for index, child in enumerate(item))


def _check_text(text: str, path: tuple[str | int, ...], where: str) -> None:
    found = _SURROGATE.search(text)
    if found:
        code = f"\\u{ord(found.group()):04x}"
        raise DocumentError(
            f"{where}: {field_name(path)} holds a lone surrogate ({code}), which is not text"
        )


def field_name(path: tuple[str | int, ...]) -> str:
    """`hooks.Stop`, `env["A B"]`, `permissions.allow[2]`: on one line, escapes shown."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _NAME.match(part):
            out += f".{part}" if out else part
        else:
            out += f"[{_clip(json.dumps(part))}]"
    return out or "the document"


def _clip(text: str) -> str:
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "..."


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float | _NotFinite):
        return "number"
    if isinstance(value, str):
        return "string"
    return "list" if isinstance(value, list) else "object"


# Splicing ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Member:
    """One member of the top-level object, by position: `lead` is just after the `{` or `,`
    before it, `colon` the position of its `:`."""

    key: str
    lead: int
    key_start: int
    colon: int
    value_start: int
    value_end: int


@dataclass(frozen=True, slots=True)
class _Layout:
    opening: int
    closing: int
    members: tuple[_Member, ...]


@dataclass(frozen=True, slots=True)
class _Style:
    """How the file lays out its top level: line end (None: all on one line), the
    indentation of a member and of each nesting level, and the separators."""

    newline: str | None
    member_indent: str
    unit: str
    key_sep: str
    item_sep: str


def with_hooks(settings: Settings, hooks: dict[str, list[Any]] | None) -> str:
    """`settings`' text with its ``hooks`` member replaced by `hooks` (inserted when absent),
    or removed when `hooks` is None."""
    text = settings.text
    if _WS.fullmatch(text):
        if hooks is None:
            return text
        text = "{}" + (text or "\n")
    layout = _layout(text)
    found = [member for member in layout.members if member.key == HOOKS]
    if hooks is None:
        return _removed(text, layout, found[-1]) if found else text
    style = _style(text, layout)
    if found:
        member = found[-1]
        value = _dump(hooks, style, _line_indent(text, member.key_start))
        return text[: member.value_start] + value + text[member.value_end :]
    return _inserted(text, layout, style, hooks)


def _skip(text: str, at: int) -> int:
    """The first position from `at` that is not JSON whitespace."""
    found = _WS.match(text, at)
    return found.end() if found else at


def _layout(text: str) -> _Layout:
    """The members of `text`'s top-level object (text already parsed as one)."""
    opening = _skip(text, 0)
    at = _skip(text, opening + 1)
    members: list[_Member] = []
    lead = opening + 1
    while text[at] != "}":
        key, after_key = _SCANNER.raw_decode(text, at)
        colon = _skip(text, after_key)
        value_start = _skip(text, colon + 1)
        value_end = _SCANNER.raw_decode(text, value_start)[1]
        members.append(_Member(key, lead, at, colon, value_start, value_end))
        at = _skip(text, value_end)
        if text[at] == ",":
            lead = at + 1
            at = _skip(text, lead)
    return _Layout(opening, at, tuple(members))


def _line_indent(text: str, at: int) -> str:
    """The spaces and tabs that begin the line holding position `at`."""
    start = text.rfind("\n", 0, at) + 1
    found = _BLANKS.match(text, start, at)
    return found.group() if found else ""


def _style(text: str, layout: _Layout) -> _Style:
    """The layout of the last member on a line of its own, else of a one-line object; an
    empty object gets Claude Code's own (two spaces)."""
    base = _line_indent(text, layout.opening)
    members = layout.members
    if not members:
        return _Style(_newline(text), base + "  ", "  ", ": ", ",")
    after_colon = text[members[-1].colon + 1 : members[-1].value_start]
    key_sep = ":" + after_colon if _BLANKS.fullmatch(after_colon) else ": "
    on_lines = [text[m.lead : m.key_start] for m in members if "\n" in text[m.lead : m.key_start]]
    if on_lines:
        indent = on_lines[-1].rsplit("\n", 1)[1]
        unit = indent[len(base) :] if indent.startswith(base) else indent
        return _Style(_newline(on_lines[-1]), indent, unit, key_sep, ",")
    if len(members) > 1:
        between = text[members[-1].lead : members[-1].key_start]
        return _Style(None, "", "", key_sep, "," + between)
    return _Style(None, "", "", key_sep, "," if key_sep == ":" else ", ")


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _dump(hooks: dict[str, list[Any]], style: _Style, indent: str) -> str:
    """`hooks` as JSON text in `style`, its lines indented under a member at `indent`."""
    if style.newline is None:
        return json.dumps(
            hooks, ensure_ascii=False, allow_nan=False, separators=(style.item_sep, style.key_sep)
        )
    separators = (",", style.key_sep)
    text = json.dumps(
        hooks, ensure_ascii=False, allow_nan=False, indent=style.unit, separators=separators
    )
    return text.replace("\n", style.newline + indent)


def _inserted(text: str, layout: _Layout, style: _Style, hooks: dict[str, list[Any]]) -> str:
    value = _dump(hooks, style, style.member_indent)
    member = f'"{HOOKS}"{style.key_sep}{value}'
    if not layout.members:
        base = _line_indent(text, layout.opening)
        inner = f"{style.newline}{style.member_indent}{member}{style.newline}{base}"
        return text[: layout.opening + 1] + inner + text[layout.closing :]
    lead = style.item_sep[1:] if style.newline is None else style.newline + style.member_indent
    at = layout.members[-1].value_end
    return f"{text[:at]},{lead}{member}{text[at:]}"


def _removed(text: str, layout: _Layout, member: _Member) -> str:
    members = layout.members
    index = members.index(member)
    if len(members) == 1:
        return text[: layout.opening + 1] + text[layout.closing :]
    if index > 0:
        return text[: members[index - 1].value_end] + text[member.value_end :]
    return text[: member.key_start] + text[members[1].key_start :]
