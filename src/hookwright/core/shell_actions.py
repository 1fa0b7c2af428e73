"""A shell command's canonical actions, read from its tree-sitter-bash syntax tree.

Every simple command is a :class:`ProcExec`; what the command does to files and the network is
read from the program and its words (`hookwright.core.programs`: ``tee``, ``sed -i``, ``cp``,
``mv``, ``rm``, ``perl -i``, ``python -c "open(..., 'w')"``, ``curl``, ...), from its
redirections (``>``, ``>>``, ``<``) and, for a shell given a script (``bash -c '...'``,
``sh <<EOF``, ``eval``), from that script, parsed the same way. ``env``/``sudo``/``xargs``/
``nice``/``timeout``/... prefixes are looked through. After a ``cd`` to a known folder,
relative paths resolve against both the old and the new folder (whether the ``cd`` ran in a
subshell is not tracked).

What cannot be understood is never nothing: a command that does not parse, whose program is an
expansion, or a shell reading its script from a pipe, is a ``ProcExec`` with ``opaque=True``.
"""

from __future__ import annotations

import functools
from typing import Any, Final

from hookwright.core.actions import Action, FileRead, FileWrite, ProcExec
from hookwright.core.bash_syntax import parse_bash, unquote_word
from hookwright.core.programs import command_actions
from hookwright.core.shell_scope import Scope, Stdin, Word

__all__ = ["shell_actions"]

_EXPANSIONS: Final = frozenset({"command_substitution", "simple_expansion", "expansion"})
#: Nodes that hold no command nor redirection: the walk does not go into them.
_LEAVES: Final = frozenset(
    {"word", "raw_string", "number", "variable_name", "command_name", "file_descriptor"}
    | {"string_content", "special_variable_name", "comment", "ansi_c_string", "heredoc_start"}
)
_WRITE_REDIRECTS: Final = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})


def shell_actions(command: str, cwd: str, home: str) -> tuple[Action, ...]:
    """The actions of a shell command run in `cwd` (absolute); never empty: a command that
    runs no program (an assignment, a comment) is one ``ProcExec`` with an empty argv."""
    return _cached(command, cwd, home)


@functools.lru_cache(maxsize=1024)
def _cached(command: str, cwd: str, home: str) -> tuple[Action, ...]:
    scope = Scope(cwd, home, script_actions, command_actions)
    script_actions(command, scope)
    return tuple(dict.fromkeys(scope.out)) or (ProcExec(()),)


def script_actions(script: str, scope: Scope) -> None:
    """Append the actions of `script` to the scope's; a script that does not parse cleanly is
    one opaque ``ProcExec``."""
    root = parse_bash(script.encode("utf-8", "surrogatepass")).root_node
    if root.has_error:
        scope.out.append(ProcExec((script,), opaque=True))
        return
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "command":
            _command(node, scope)
        elif kind == "file_redirect":
            _redirect(node, scope)
        if kind not in _LEAVES:
            stack.extend(reversed(node.named_children))


def word_of(node: Any) -> Word:
    """The shell word of a syntax node (dynamic when it holds an expansion)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in _EXPANSIONS:
            text: bytes = node.text
            return Word(text.decode("utf-8", "replace"), dynamic=True)
        stack.extend(current.children)
    return Word(unquote_word(node))


def _command(node: Any, scope: Scope) -> None:
    name = node.child_by_field_name("name")
    if name is None:
        return
    words = [word_of(name)] + [word_of(arg) for arg in node.children_by_field_name("argument")]
    command_actions(words, scope, Stdin(_stdin_script(node), _piped(node)))


def _redirect(node: Any, scope: Scope) -> None:
    operator = next((child.type for child in node.children if not child.is_named), "")
    targets = node.children_by_field_name("destination")
    if not targets or targets[0].type == "number":
        return
    target = word_of(targets[0])
    if target.text == "-":
        return
    if operator in _WRITE_REDIRECTS:
        scope.file(FileWrite, target)
    elif operator == "<":
        scope.file(FileRead, target)


def _stdin_script(node: Any) -> str | None:
    """The text a command reads on its standard input from a heredoc or a here-string."""
    holders = [node]
    parent = node.parent
    if parent is not None and parent.type == "redirected_statement":
        holders.append(parent)
    for holder in holders:
        for child in holder.children:
            if child.type == "herestring_redirect" and child.named_children:
                return word_of(child.named_children[-1]).text
            if child.type == "heredoc_redirect":
                for part in child.children:
                    if part.type == "heredoc_body":
                        body: bytes = part.text
                        return body.decode("utf-8", "replace")
    return None


def _piped(node: Any) -> bool:
    """Whether the command reads a pipe (it is not the first command of a pipeline)."""
    parent = node.parent
    if parent is not None and parent.type == "redirected_statement":
        node, parent = parent, parent.parent
    return parent is not None and parent.type == "pipeline" and parent.children[0].id != node.id
