"""Claude Code hooks: settings and plugin sources, the stdin/stdout/exit-code contract, and
command, http, prompt and agent handlers with Claude Code's exact semantics.

What a host uses:

* loading: importing `hookwright.dialects.claude_code.loader` registers the ``claude_code``
  source (`discover`); `LoaderOptions` / `make_loader` for non-default options;
  `load_policy(ctx)` for the settings' policy;
* `load_frontmatter_hooks(path, "skill"|"agent", scope, policy=...)` when a skill is invoked or
  a subagent starts;
* the engine's `services` (`hookwright.engine.services.Services`): `inbox`
  (`hookwright.engine.inbox`), where
  asynchronous hooks deliver their context for the next turn and their asyncRewake wake-ups,
  and `evaluator`, the model prompt and agent hooks use;
* typed effects a host acts on are in `verdict.effects` (`hookwright.core.effects.Effects`):
  env files, worktree path, compaction instructions, permission updates, notices, ...
* the wire both ways: `encode_input` / `encode_stdin` / `encode_body` (what a hook reads, an
  allow-list per event in Claude Code's bytes) and `encode_output` / `encode_output_json` (a
  verdict as the JSON a hook answering Claude Code would print);
"""

from __future__ import annotations

from hookwright.core.lazy_names import lazy_getattr

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hookwright.dialects.claude_code.answer import encode_output, encode_output_json
    from hookwright.dialects.claude_code.codec import decode_command, decode_http
    from hookwright.dialects.claude_code.frontmatter import load_frontmatter_hooks
    from hookwright.dialects.claude_code.loader import (
        LoaderOptions,
        discover,
        load_policy,
        make_loader,
    )
    from hookwright.dialects.claude_code.prompt import decode_prompt_reply
    from hookwright.dialects.claude_code.sources import Policy
    from hookwright.dialects.claude_code.specs import watched_file_names
    from hookwright.dialects.claude_code.stdin import (
        EFFORT_EVENTS,
        EVENT_FIELDS,
        NULL_FIELDS,
        PERMISSION_MODE_EVENTS,
        encode_body,
        encode_input,
        encode_stdin,
    )

#: The module each name above lives in. Names load on first use: answering one event
#: (`hookwright hook claude-code`) needs the answer's encoder, not the settings' validation.
_HOMES = {
    **dict.fromkeys(("encode_output", "encode_output_json"), ".answer"),
    **dict.fromkeys(("decode_command", "decode_http"), ".codec"),
    "load_frontmatter_hooks": ".frontmatter",
    **dict.fromkeys(("LoaderOptions", "discover", "load_policy", "make_loader"), ".loader"),
    "decode_prompt_reply": ".prompt",
    "Policy": ".sources",
    "watched_file_names": ".specs",
    **dict.fromkeys(
        (
            "EFFORT_EVENTS",
            "EVENT_FIELDS",
            "NULL_FIELDS",
            "PERMISSION_MODE_EVENTS",
            "encode_body",
            "encode_input",
            "encode_stdin",
        ),
        ".stdin",
    ),
}


__getattr__ = lazy_getattr(globals(), _HOMES)


__all__ = [
    "EFFORT_EVENTS",
    "EVENT_FIELDS",
    "NULL_FIELDS",
    "PERMISSION_MODE_EVENTS",
    "LoaderOptions",
    "Policy",
    "decode_command",
    "decode_http",
    "decode_prompt_reply",
    "discover",
    "encode_body",
    "encode_input",
    "encode_output",
    "encode_output_json",
    "encode_stdin",
    "load_frontmatter_hooks",
    "load_policy",
    "make_loader",
    "watched_file_names",
]
