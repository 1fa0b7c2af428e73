"""Claude Code hooks: settings and plugin sources, the stdin/stdout/exit-code contract, and
command, http, prompt and agent handlers with Claude Code's exact semantics.

What a host uses:

* loading: importing `hookwright.dialects.claude_code.loader` registers the ``claude_code``
  source loader; `LoaderOptions` / `make_loader` for non-default options; `load_policy(ctx)`
  for the settings' policy;
* `load_frontmatter_hooks(path, "skill"|"agent", scope, policy=...)` when a skill is invoked or
  a subagent starts;
* the engine's `services` (`hookwright.services.Services`): `inbox` (`hookwright.inbox`), where
  asynchronous hooks deliver their context for the next turn and their asyncRewake wake-ups,
  and `evaluator`, the model prompt and agent hooks use;
* verdict extras a host acts on: ``env_file`` (list of CLAUDE_ENV_FILE paths to source before
  each Bash command), ``worktree_path``, ``compact_instructions``, ``updated_permissions``,
  ``retry``, ``watch_paths``, ``session_title``, ``initial_user_message``,
  ``suppress_original_prompt``, ``reload_skills``, ``display_content``, ``elicitation``,
  ``classifier_context``, ``terminal_sequence``, ``script_missing``.
"""

from __future__ import annotations

from hookwright.dialects.claude_code.codec import (
    INTERNAL_FIELDS,
    decode_command,
    decode_http,
    encode_input,
    encode_stdin,
)
from hookwright.dialects.claude_code.frontmatter import load_frontmatter_hooks
from hookwright.dialects.claude_code.loader import LoaderOptions, load, load_policy, make_loader
from hookwright.dialects.claude_code.prompt import decode_prompt_reply
from hookwright.dialects.claude_code.sources import Policy
from hookwright.dialects.claude_code.specs import watched_file_names

__all__ = [
    "INTERNAL_FIELDS",
    "LoaderOptions",
    "Policy",
    "decode_command",
    "decode_http",
    "decode_prompt_reply",
    "encode_input",
    "encode_stdin",
    "load",
    "load_frontmatter_hooks",
    "load_policy",
    "make_loader",
    "watched_file_names",
]
