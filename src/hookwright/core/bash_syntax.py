"""The tree-sitter-bash parser, shared by the `if` rules and the shell actions, and the
unquoting of one shell word."""

from __future__ import annotations

import functools
import re
import threading
from typing import Any, Final

__all__ = [
    "bash_bytes",
    "node_text",
    "parse_bash",
    "parsed_bash",
    "query_matches",
    "unescape_word",
    "unquote_word",
]

_ts_lock = threading.Lock()
_ts_parser: Any = None

_WORD_ESCAPE: Final = re.compile(r"\\(.)", re.DOTALL)
_DQUOTE_ESCAPE: Final = re.compile(r"\\([$`\"\\\n])")


#: Every byte past ASCII read as a word character: tree-sitter-bash's lexer reads out of
#: bounds on some non-ASCII code points after some tokens (``{`` then U+FFFFF, ``\\`` then
#: U+54327) and crashes the process, while bash itself splits words on ASCII bytes only.
_ASCII_WORDS: Final = bytes(range(128)) + b"x" * 128


def parse_bash(source: bytes) -> Any:
    """The tree-sitter-bash syntax tree of `source` (one parser, shared under a lock).

    A command is the model's text, so hostile: the parser reads a copy whose bytes past ASCII
    are word characters, the same length, so its nodes' offsets are `source`'s. Read a node's
    text from `source` by those offsets (`node_text`), never from the node."""
    global _ts_parser
    if not source.isascii():
        source = source.translate(_ASCII_WORDS)
    with _ts_lock:
        if _ts_parser is None:
            import tree_sitter
            import tree_sitter_bash

            _ts_parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
        return _ts_parser.parse(source)


@functools.lru_cache(maxsize=64)
def parsed_bash(command: str) -> Any:
    """The syntax tree of `command`, kept for the next reader: an `if` rule's analysis of a
    Bash call and the call's actions read one parse (trees are never changed). Its nodes'
    text is read from `bash_bytes(command)`."""
    return parse_bash(bash_bytes(command))


def bash_bytes(command: str) -> bytes:
    """The bytes the syntax tree's offsets index."""
    return command.encode("utf-8", "surrogatepass")


@functools.lru_cache(maxsize=8)
def _query(source: str) -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Query(tree_sitter.Language(tree_sitter_bash.language()), source)


def query_matches(node: Any, query: str) -> list[tuple[int, dict[str, list[Any]]]]:
    """The matches of a tree-sitter `query` below `node`, in source order: (pattern index,
    nodes by capture name). The tree is searched in C, with no Python walk over every node."""
    import tree_sitter

    matches: list[tuple[int, dict[str, list[Any]]]] = tree_sitter.QueryCursor(
        _query(query)
    ).matches(node)
    return matches


def node_text(node: Any, source: bytes) -> str:
    """`node`'s text in `source`, the bytes it was parsed from."""
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def unescape_word(text: str) -> str:
    """An unquoted word's text as the shell reads it: backslash escapes and line
    continuations removed."""
    if "\\" not in text:
        return text
    return _WORD_ESCAPE.sub(r"\1", text.replace("\\\n", ""))


def unquote_word(node: Any, source: bytes) -> str:
    """Best-effort shell unquoting of one word, so ``"git" pu\\sh`` compares as ``git push``.

    Anything holding an expansion keeps its source text (the expansion fail-safe covers it).
    """
    kind = node.type
    if kind == "word":
        return unescape_word(node_text(node, source))
    if kind == "raw_string":
        return node_text(node, source)[1:-1]
    if kind == "string":
        if all(child.type == "string_content" for child in node.named_children):
            return _DQUOTE_ESCAPE.sub(r"\1", node_text(node, source)[1:-1])
        return node_text(node, source)
    if kind in ("concatenation", "command_name"):
        return "".join(unquote_word(child, source) for child in node.children)
    return node_text(node, source)
