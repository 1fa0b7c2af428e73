"""Codex's review of non-managed hooks: a hook runs only once the user reviewed it.

Codex records a review in the user's ``config.toml`` as ``[hooks.state."<key>"] trusted_hash
= "sha256:<hex>"``, where the key is ``<source file>:<event label>:<group>:<handler>`` and the
hash is SHA-256 over the hook's normalised identity: ``{"event_name": <label>, "matcher"?:
<matcher>, "hooks": [{"type": "command", "command": ..., "timeout": <seconds>, "async":
<bool>, "statusMessage"?: ...}]}`` written as compact JSON with sorted keys. A hook whose
command, matcher or timeout changes is unreviewed again; ``enabled = false`` turns a hook off.
Only the user layer's state counts (a project cannot review its own hooks). A plugin's hook
is keyed ``<plugin id>:<file within the plugin>`` and hashed with its command as declared
(before ``${PLUGIN_ROOT}`` is replaced). Managed hooks are not reviewed and cannot be turned
off (`layers`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from hookwright.dialects.codex.config import EVENT_LABELS, CodexHook

Review = Literal["reviewed", "unreviewed", "modified", "disabled"]


@dataclass(frozen=True, slots=True)
class HookState:
    trusted_hash: str | None = None
    enabled: bool | None = None


def review_key(hook: CodexHook) -> str:
    label = EVENT_LABELS[hook.event]
    source = hook.key_source or str(hook.source)
    return f"{source}:{label}:{hook.group_index}:{hook.handler_index}"


def identity(hook: CodexHook) -> dict[str, Any]:
    handler: dict[str, Any] = {
        "type": "command",
        "command": hook.command,
        "timeout": hook.timeout,
        "async": hook.is_async,
    }
    if hook.status_message is not None:
        handler["statusMessage"] = hook.status_message
    group: dict[str, Any] = {"event_name": EVENT_LABELS[hook.event], "hooks": [handler]}
    if hook.matcher is not None:
        group["matcher"] = hook.matcher
    return group


def trusted_hash(hook: CodexHook) -> str:
    """The hash Codex stores for `hook` once it is reviewed."""
    text = json.dumps(identity(hook), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def hook_states(user_config: Mapping[str, Any] | None) -> dict[str, HookState]:
    """``[hooks.state]`` of the user's `config.toml`; malformed entries are skipped."""
    hooks = (user_config or {}).get("hooks")
    table = hooks.get("state") if isinstance(hooks, Mapping) else None
    states: dict[str, HookState] = {}
    if not isinstance(table, Mapping):
        return states
    for key, value in table.items():
        if not isinstance(value, Mapping) or not key.strip():
            continue
        digest, enabled = value.get("trusted_hash"), value.get("enabled")
        if (digest is not None and not isinstance(digest, str)) or (
            enabled is not None and not isinstance(enabled, bool)
        ):
            continue
        states[key.strip()] = HookState(digest, enabled)
    return states


def review_of(hook: CodexHook, states: Mapping[str, HookState]) -> Review:
    state = states.get(review_key(hook), HookState())
    if state.enabled is False:
        return "disabled"
    if state.trusted_hash is None:
        return "unreviewed"
    return "reviewed" if state.trusted_hash == trusted_hash(hook) else "modified"


def review_note(hook: CodexHook, review: Review, said: str = "; not run") -> str:
    """Why a hook does not run, and the exact lines that make Codex (and hookwright) run it;
    `said` follows the why (empty for a line that says "not run" itself)."""
    if review == "disabled":
        return f"turned off in the Codex config ([hooks.state] enabled = false){said}"
    why = "not reviewed" if review == "unreviewed" else "changed since it was reviewed"
    return (
        f"{why} in Codex{said}. Review it with /hooks in Codex, or add to your Codex "
        "config.toml ($CODEX_HOME, else ~/.codex): "
        f'[hooks.state."{review_key(hook)}"] trusted_hash = "{trusted_hash(hook)}"'
    )
