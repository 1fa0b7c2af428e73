"""Claude Code's `noOutputExpected`: whether a Bash command is one that normally prints nothing.

Measured against Claude Code 2.1.240: every top-level statement of the script (the parts of
`&&`, `||`, `|`, `;`, `&` and newline lists, redirections ignored, comments skipped) must be a
plain command whose first word, exactly as written, is one of :data:`QUIET_COMMANDS`. A quoted
or escaped name (`'mkdir'`, `\\mkdir`), a path (`/bin/mkdir`), a leading assignment
(`FOO=1 touch x`), a subshell, a block or any other compound statement makes it false; what is
inside a `$(...)` argument is not looked at. A script that does not parse is false.
"""

from __future__ import annotations

from typing import Any, Final

from hookwright.core.matching import parse_bash

QUIET_COMMANDS: Final = frozenset(
    {
        "cd",
        "chgrp",
        "chmod",
        "chown",
        "cp",
        "export",
        "ln",
        "mkdir",
        "mv",
        "rm",
        "rmdir",
        "touch",
        "unset",
        "wait",
    }
)
_LISTS: Final = frozenset({"program", "list", "pipeline"})
_COMMANDS: Final = frozenset({"command", "declaration_command", "unset_command"})


def no_output_expected(command: str) -> bool:
    tree = parse_bash(command.encode("utf-8", "surrogatepass"))
    if tree.root_node.has_error:
        return False
    statements = _statements(tree.root_node)
    return bool(statements) and all(_is_quiet(node) for node in statements)


def _statements(node: Any) -> list[Any]:
    """The leaves of the statement lists under `node` (comments dropped)."""
    if node.type not in _LISTS:
        return [node]
    found: list[Any] = []
    for child in node.named_children:
        if child.type != "comment":
            found.extend(_statements(child))
    return found


def _is_quiet(node: Any) -> bool:
    if node.type == "redirected_statement":
        body = node.child_by_field_name("body")
        return body is not None and _is_quiet(body)
    if node.type not in _COMMANDS:
        return False
    text: bytes = node.text
    words = text.decode("utf-8", "replace").split()
    return bool(words) and words[0] in QUIET_COMMANDS
