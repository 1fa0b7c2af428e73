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
from hookwright.core.bash_syntax import (
    bash_bytes,
    node_text,
    parsed_bash,
    query_matches,
    unescape_word,
    unquote_word,
)
from hookwright.core.programs import command_actions
from hookwright.core.shell_scope import Scope, Stdin, Word

__all__ = ["shell_actions"]

_EXPANSIONS: Final = frozenset({"command_substitution", "simple_expansion", "expansion"})
#: Every simple command and file redirection of a script, in source order.
_COMMANDS_AND_REDIRECTS: Final = "[(command) @command (file_redirect) @redirect]"
_WRITE_REDIRECTS: Final = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})


def shell_actions(command: str, cwd: str, home: str) -> tuple[Action, ...]:
    """The actions of a shell command run in `cwd` (absolute); never empty: a command that
    runs no program (an assignment, a comment) is one ``ProcExec`` with an empty argv."""
    return _cached(command, cwd, home)


@functools.lru_cache(maxsize=1024)
def _cached(command: str, cwd: str, home: str) -> tuple[Action, ...]:
    scope = Scope(cwd, home, script_actions, command_actions)
    script_actions(command, scope)
    actions = tuple(dict.fromkeys(scope.out))
    if not actions or not isinstance(actions[0], ProcExec):
        # a redirection alone (``> x``, ``< x``) runs no program: the empty argv says so
        return (ProcExec(()), *actions)
    return actions


def script_actions(script: str, scope: Scope) -> None:
    """Append the actions of `script` to the scope's; a script that does not parse cleanly is
    one opaque ``ProcExec``. The parse is the one an `if` rule's analysis of the same command
    made (`parsed_bash`), and the commands and redirections are found by a query, in C."""
    root = parsed_bash(script).root_node
    if root.has_error:
        scope.out.append(ProcExec((script,), opaque=True))
        return
    source = _Source(script)
    for _, captured in query_matches(root, _COMMANDS_AND_REDIRECTS):
        if "command" in captured:
            _command(captured["command"][0], scope, source)
        else:
            _redirect(captured["redirect"][0], scope, source)


class _Source:
    """A script's text read by the byte offsets of its syntax nodes: an ASCII script's own
    string is sliced (no bytes made, nothing decoded), any other's node bytes decoded."""

    __slots__ = ("data", "text")

    def __init__(self, script: str) -> None:
        self.text = script if script.isascii() else None
        self.data = bash_bytes(script)

    def of(self, node: Any) -> str:
        if self.text is not None:
            return self.text[node.start_byte : node.end_byte]
        return node_text(node, self.data)


def word_of(node: Any, source: _Source) -> Word:
    """The shell word of a syntax node (dynamic when it holds an expansion). A one-token word
    (``ls``, ``'a b'``) is read from the source, with no walk below it."""
    if node.type == "command_name" and node.child_count == 1:
        node = node.children[0]
    kind = node.type
    if kind == "word":
        return Word(unescape_word(source.of(node)))
    if kind == "raw_string":
        return Word(source.of(node)[1:-1])
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in _EXPANSIONS:
            return Word(source.of(node), dynamic=True)
        stack.extend(current.children)
    return Word(unquote_word(node, source.data))


def _command(node: Any, scope: Scope, source: _Source) -> None:
    name = node.child_by_field_name("name")
    if name is None:
        return
    arguments = node.children_by_field_name("argument")
    words = [word_of(name, source)] + [word_of(arg, source) for arg in arguments]
    command_actions(words, scope, Stdin(_stdin_script(node, source), _piped(node)))


def _redirect(node: Any, scope: Scope, source: _Source) -> None:
    operator = next((child.type for child in node.children if not child.is_named), "")
    targets = node.children_by_field_name("destination")
    if not targets or targets[0].type == "number":
        return
    target = word_of(targets[0], source)
    if target.text == "-":
        return
    if operator in _WRITE_REDIRECTS:
        scope.file(FileWrite, target)
    elif operator == "<":
        scope.file(FileRead, target)


def _stdin_script(node: Any, source: _Source) -> str | None:
    """The text a command reads on its standard input from a heredoc or a here-string."""
    holders = [node]
    parent = node.parent
    if parent is not None and parent.type == "redirected_statement":
        holders.append(parent)
    for holder in holders:
        for child in holder.children:
            if child.type == "herestring_redirect" and child.named_children:
                return word_of(child.named_children[-1], source).text
            if child.type == "heredoc_redirect":
                for part in child.children:
                    if part.type == "heredoc_body":
                        return source.of(part)
    return None


def _piped(node: Any) -> bool:
    """Whether the command reads a pipe (it is not the first command of a pipeline)."""
    parent = node.parent
    if parent is not None and parent.type == "redirected_statement":
        node, parent = parent, parent.parent
    return parent is not None and parent.type == "pipeline" and parent.children[0].id != node.id
