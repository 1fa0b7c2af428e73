"""Codex CLI hooks: the user's and the project's `.codex` layers (`hooks.json` and inline
`[hooks]` in `config.toml`), Codex's review of each hook, and its stdin/stdout/exit-code
contract for command hooks (Codex CLI 0.171.0).

Importing `hookwright.dialects.codex.loader` registers the ``codex`` source. The wire both
ways: `encode_input` / `encode_stdin` (what a hook reads) and `trusted_hash` / `review_key`
(what Codex records once a hook is reviewed).
"""

from __future__ import annotations

from hookwright.dialects.codex.review import review_key, trusted_hash
from hookwright.dialects.codex.stdin import encode_input, encode_stdin

__all__ = ["encode_input", "encode_stdin", "review_key", "trusted_hash"]
