"""Claude Code hooks: settings and plugin sources, the stdin/stdout/exit-code contract, and
command, http, prompt and agent handlers with Claude Code's exact semantics.

What a host uses:

* loading: importing `hookwright.dialects.claude_code.loader` registers the ``claude_code``
  source loader; `LoaderOptions` / `make_loader` for non-default options; `load_policy(ctx)`
  for the settings' policy;
* `load_frontmatter_hooks(path, "skill"|"agent", scope, policy=...)` when a skill is invoked or
  a subagent starts;
* `async_inbox(engine)`: where asynchronous hooks deliver their context on the next turn and
  their asyncRewake wake-ups (see `inbox`);
* `set_prompt_evaluator` / `set_agent_evaluator`: the models prompt and agent hooks use;
* the wire both ways: `encode_input` / `encode_stdin` / `encode_body` (what a hook reads, an
  allow-list per event in Claude Code's bytes) and `encode_output` / `encode_output_json` (a
  verdict as the JSON a hook answering Claude Code would print);
* verdict extras a host acts on: ``env_file`` (list of CLAUDE_ENV_FILE paths to source before
  each Bash command), ``worktree_path``, ``compact_instructions``, ``updated_permissions``,
  ``retry``, ``watch_paths``, ``session_title``, ``initial_user_message``,
  ``suppress_original_prompt``, ``reload_skills``, ``display_content``, ``elicitation``,
  ``classifier_context``, ``terminal_sequence``, ``script_missing``.
"""

from __future__ import annotations

from hookwright.dialects.claude_code.answer import encode_output, encode_output_json
from hookwright.dialects.claude_code.codec import decode_command, decode_http
from hookwright.dialects.claude_code.frontmatter import load_frontmatter_hooks
from hookwright.dialects.claude_code.inbox import AsyncDelivery, AsyncInbox, default_inbox
from hookwright.dialects.claude_code.loader import LoaderOptions, load, load_policy, make_loader
from hookwright.dialects.claude_code.prompt import (
    Evaluator,
    decode_prompt_reply,
    set_agent_evaluator,
    set_prompt_evaluator,
)
from hookwright.dialects.claude_code.sources import Policy
from hookwright.dialects.claude_code.specs import watched_file_names
from hookwright.dialects.claude_code.stdin import (
    EVENT_FIELDS,
    PERMISSION_MODE_EVENTS,
    encode_body,
    encode_input,
    encode_stdin,
)
from hookwright.engine import HookEngine


def async_inbox(engine: HookEngine | None = None) -> AsyncInbox:
    """The inbox Claude Code async hooks report to (loaded without a custom inbox).

    Given an engine, completions are also written to that engine's audit.
    """
    inbox = default_inbox()
    if engine is not None:
        inbox.bind_audit(engine.audit)
    return inbox


__all__ = [
    "EVENT_FIELDS",
    "PERMISSION_MODE_EVENTS",
    "AsyncDelivery",
    "AsyncInbox",
    "Evaluator",
    "LoaderOptions",
    "Policy",
    "async_inbox",
    "decode_command",
    "decode_http",
    "decode_prompt_reply",
    "encode_body",
    "encode_input",
    "encode_output",
    "encode_output_json",
    "encode_stdin",
    "load",
    "load_frontmatter_hooks",
    "load_policy",
    "make_loader",
    "set_agent_evaluator",
    "set_prompt_evaluator",
    "watched_file_names",
]
