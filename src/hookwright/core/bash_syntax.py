"""The tree-sitter-bash parser, shared by the `if` rules and the shell actions, and the
unquoting of one shell word."""

from __future__ import annotations

import functools
import re
import threading
from typing import Any, Final

__all__ = ["parse_bash", "parsed_bash", "query_matches", "unescape_word", "unquote_word"]

_ts_lock = threading.Lock()
_ts_parser: Any = None

_WORD_ESCAPE: Final = re.compile(r"\\(.)", re.DOTALL)
_DQUOTE_ESCAPE: Final = re.compile(r"\\([$`\"\\\n])")


#: The UTF-8 of the code points from U+E0000 up (planes 14 to 16), which tree-sitter-bash's
#: lexer reads out of bounds after some tokens (``{`` then U+FFFFF crashes the process).
_PAST_ITS_TABLES: Final = re.compile(
    rb"\xf3[\xa0-\xbf][\x80-\xbf][\x80-\xbf]|\xf4[\x80-\x8f][\x80-\xbf][\x80-\xbf]"
)
#: What stands in for each: U+10000, as long in UTF-8, so every byte offset stays the same.
_STAND_IN: Final = b"\xf0\x90\x80\x80"


def parse_bash(source: bytes) -> Any:
    """The tree-sitter-bash syntax tree of `source` (one parser, shared under a lock).

    A command is the model's text, so hostile: code points the grammar's lexer cannot take are
    replaced, byte for byte, before it reads them (a word holding one reads U+10000 there)."""
    global _ts_parser
    if b"\xf3" in source or b"\xf4" in source:
        source = _PAST_ITS_TABLES.sub(_STAND_IN, source)
    with _ts_lock:
        if _ts_parser is None:
            import tree_sitter
            import tree_sitter_bash

            _ts_parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
        return _ts_parser.parse(source)


@functools.lru_cache(maxsize=64)
def parsed_bash(command: str) -> Any:
    """The syntax tree of `command`, kept for the next reader: an `if` rule's analysis of a
    Bash call and the call's actions read one parse (trees are never changed)."""
    return parse_bash(command.encode("utf-8", "surrogatepass"))


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


def _node_text(node: Any) -> str:
    text: bytes = node.text
    return text.decode("utf-8", "replace")


def unescape_word(text: str) -> str:
    """An unquoted word's text as the shell reads it: backslash escapes and line
    continuations removed."""
    if "\\" not in text:
        return text
    return _WORD_ESCAPE.sub(r"\1", text.replace("\\\n", ""))


def unquote_word(node: Any) -> str:
    """Best-effort shell unquoting of one word, so ``"git" pu\\sh`` compares as ``git push``.

    Anything holding an expansion keeps its source text (the expansion fail-safe covers it).
    """
    kind = node.type
    if kind == "word":
        return unescape_word(_node_text(node))
    if kind == "raw_string":
        return _node_text(node)[1:-1]
    if kind == "string":
        if all(child.type == "string_content" for child in node.named_children):
            return _DQUOTE_ESCAPE.sub(r"\1", _node_text(node)[1:-1])
        return _node_text(node)
    if kind in ("concatenation", "command_name"):
        return "".join(unquote_word(child) for child in node.children)
    return _node_text(node)
