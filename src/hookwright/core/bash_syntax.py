"""The tree-sitter-bash parser, shared by the `if` rules and the shell actions, and the
unquoting of one shell word."""

from __future__ import annotations

import re
import threading
from typing import Any, Final

__all__ = ["parse_bash", "unquote_word"]

_ts_lock = threading.Lock()
_ts_parser: Any = None

_WORD_ESCAPE: Final = re.compile(r"\\(.)", re.DOTALL)
_DQUOTE_ESCAPE: Final = re.compile(r"\\([$`\"\\\n])")


def parse_bash(source: bytes) -> Any:
    """The tree-sitter-bash syntax tree of `source` (one parser, shared under a lock)."""
    global _ts_parser
    with _ts_lock:
        if _ts_parser is None:
            import tree_sitter
            import tree_sitter_bash

            _ts_parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
        return _ts_parser.parse(source)


def _node_text(node: Any) -> str:
    text: bytes = node.text
    return text.decode("utf-8", "replace")


def unquote_word(node: Any) -> str:
    """Best-effort shell unquoting of one word, so ``"git" pu\\sh`` compares as ``git push``.

    Anything holding an expansion keeps its source text (the expansion fail-safe covers it).
    """
    kind = node.type
    if kind == "word":
        return _WORD_ESCAPE.sub(r"\1", _node_text(node).replace("\\\n", ""))
    if kind == "raw_string":
        return _node_text(node)[1:-1]
    if kind == "string":
        if all(child.type == "string_content" for child in node.named_children):
            return _DQUOTE_ESCAPE.sub(r"\1", _node_text(node)[1:-1])
        return _node_text(node)
    if kind in ("concatenation", "command_name"):
        return "".join(unquote_word(child) for child in node.children)
    return _node_text(node)
