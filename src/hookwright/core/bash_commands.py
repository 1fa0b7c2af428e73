"""The simple commands of a Bash script, read from its syntax tree: what a ``Bash(...)``
permission rule (`core.matching.IfRule`) is matched against, one command at a time.

Loaded by the first rule on a shell command that is matched (a rule on tool names alone, the
usual hook's `if`, never needs it), with the Bash parser it reads the tree from."""

from __future__ import annotations

import functools
from typing import Any, Final, NamedTuple

from hookwright.core.matching import normalise_ws

_EXPANSION_TYPES: Final = frozenset({"command_substitution", "simple_expansion", "expansion"})
_REDIRECT_TYPES: Final = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_DECLARATION_TYPES: Final = frozenset({"declaration_command", "unset_command"})


class _SimpleCommand(NamedTuple):
    start: int
    text: str
    forms: tuple[str, ...]
    """Whitespace-normalised source text, plus its shell-unquoted spelling when different."""


class _BashAnalysis(NamedTuple):
    commands: tuple[_SimpleCommand, ...]
    has_expansion: bool


def _simple_command(node: Any, extra_args: list[Any], source: bytes) -> _SimpleCommand | None:
    parts: list[Any] = []
    for index, child in enumerate(node.children):
        if child.type in _REDIRECT_TYPES or node.field_name_for_child(index) == "redirect":
            continue
        if not parts and child.type == "variable_assignment" and node.type == "command":
            continue
        parts.append(child)
    if not parts:
        return None
    parts.extend(extra_args)
    from hookwright.core.bash_syntax import node_text, unquote_word

    text = " ".join(node_text(part, source) for part in parts)
    normalised = normalise_ws(text)
    unquoted = normalise_ws(" ".join(unquote_word(part, source) for part in parts))
    forms = (normalised,) if unquoted == normalised else (normalised, unquoted)
    return _SimpleCommand(start=parts[0].start_byte, text=text, forms=forms)


@functools.lru_cache(maxsize=512)
def analyse_bash(command: str) -> _BashAnalysis | None:
    from hookwright.core.bash_syntax import bash_bytes, parsed_bash

    root = parsed_bash(command).root_node
    if root.has_error:
        return None
    source = bash_bytes(command)
    found: list[_SimpleCommand] = []
    has_expansion = False
    # tree-sitter-bash attaches words after a redirection target (``ls > out -la``) to the
    # redirect node, although bash passes them to the command as arguments.
    stray_args: dict[int, list[Any]] = {}
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind in _EXPANSION_TYPES:
            has_expansion = True
        elif kind == "redirected_statement":
            body = node.child_by_field_name("body")
            if body is not None and body.type == "command":
                extra: list[Any] = []
                for redirect in node.children_by_field_name("redirect"):
                    if redirect.type == "file_redirect":
                        extra.extend(redirect.children_by_field_name("destination")[1:])
                if extra:
                    stray_args[body.id] = extra
        elif kind == "command" or kind in _DECLARATION_TYPES:
            simple = _simple_command(node, stray_args.get(node.id, []), source)
            if simple is not None:
                found.append(simple)
        stack.extend(reversed(node.children))
    found.sort(key=lambda item: item.start)
    return _BashAnalysis(tuple(found), has_expansion)


def split_bash_commands(command: str) -> list[str] | None:
    """Return the source text of every simple command in a Bash script, in source order.

    Covers the parts of ``&&``/``||``/``;``/``|`` chains, newlines, subshells, blocks and
    control structures, and the commands inside ``$()``, backticks and process substitutions
    wherever they appear (arguments, assignments, redirections). Leading ``VAR=x`` assignments
    and redirections are left out; the parts of a command are joined by single spaces.
    ``export``/``local``/``unset`` statements count as commands; ``[[ ... ]]`` tests do not.
    Returns ``None`` when the script does not parse cleanly.
    """
    analysis = analyse_bash(command)
    if analysis is None:
        return None
    return [simple.text for simple in analysis.commands]
