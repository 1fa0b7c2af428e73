"""One Codex CLI hook event answered by a project's other hooks (`hookwright hook codex`):
Codex's stdin in, the JSON a Codex command hook prints out.

The same bridge as Claude Code's (`claude_hook`), with Codex's words: the project is opened
without its Codex hooks (Codex runs those itself), so a Claude Code guard, an OpenHarness hook
and a Python hook of the project govern Codex; the answer is Codex's (`dialects.codex.verdict`),
which prints nothing for a verdict that changes nothing. Codex names no project directory, so
the project is `--project`, else the input's `cwd`.

The files an organization requires of Codex (its managed requirements and config, the
workspace's cloud-managed copy) are read still, though their hooks are Codex's: where
hookwright cannot read one (a copy another user may write, one that expired since Codex
started) and the failure policy fails its hooks closed, the relay refuses as every host does
(`host.open.ProjectRefused`): a gate event is refused in Codex's wording with the line as the
reason, any other event shows the line (`claude_hook.failure`)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from hookwright.bridges.claude_hook import (
    HooksFailed,
    Relayed,
    failure,
    parse_input,
    project_for,
    relay_once,
    settle,
)
from hookwright.core.home import user_home
from hookwright.dialects.codex.verdict import encode_output_json
from hookwright.host.open import store_policy
from hookwright.transports.marker import MARKER

#: The dialect the bridge leaves to Codex itself.
EXCLUDED = frozenset({"codex"})


def answer(raw: bytes, project: Path | None) -> bytes:
    """The bytes to print for one Codex hook input; raises `HookInputError` on a bad input
    and `HooksFailed` when a config file's hooks did not load on a gate event nothing
    blocked (`claude_hook.not_loaded`)."""
    if os.environ.get(MARKER):
        return b""
    event, hook_input = parse_input(raw)
    root = project_for(project, hook_input)
    home = user_home()
    policy = store_policy(home)  # read once: the session opens with it
    trusted = policy is not None and policy.trusts(root)
    try:
        relayed = asyncio.run(
            relay_once(
                root,
                home,
                event,
                hook_input,
                EXCLUDED,
                host="hook codex",
                required_of=EXCLUDED,
                trust=policy,
            )
        )
    except Exception as exc:
        relayed = Relayed(failure(event, exc))
    verdict, failed = settle(relayed, root, trusted, failed_hooks=False)
    if failed is not None:
        raise HooksFailed(failed)
    return encode_output_json(verdict)
