"""Decisions for the checkpoints Claude Code added after 2.1.240, gated by the session's Claude
Code profile: a model switch (PreModelSwitch, PostModelSwitch) and a skill's shell command
(PreSkillShellCommand).

A profile that lacks an event fires nothing for it: the switch happens, the command runs, as
in that version of Claude Code. Measured with Claude Code 2.1.332 (``claude -p "/model X"`` and
a skill whose text holds ``!`cmd` ``): a PreModelSwitch deny or ask cancels the switch (ask,
without a person to confirm, too), allow skips the confirmation; PostModelSwitch context is
for the new model; a PreSkillShellCommand deny, ask, defer or any ``updatedInput`` keeps the
command from running (the dialect answers each as a deny).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from hookwright.core.results import Decision, Verdict
from hookwright.host.notes import model_notes

SwitchAction = Literal["switch", "deny", "ask", "allow"]


@dataclass(frozen=True, slots=True)
class ModelSwitchDecision:
    """What the PreModelSwitch hooks said: ``switch`` (no hook decided: the host's own
    confirmation, if any, applies), ``allow`` (switch without confirming), ``ask`` (switch only
    once a person confirms) or ``deny`` (keep the model); `reason` is the hook's."""

    action: SwitchAction
    reason: str | None = None

    @property
    def refused(self) -> bool:
        return self.action == "deny"


@dataclass(frozen=True, slots=True)
class SkillShellDecision:
    """Whether a skill's shell command may run; `reason` says why not."""

    run: bool
    reason: str | None = None


def model_switch_decision(verdict: Verdict) -> ModelSwitchDecision:
    if verdict.blocked:
        return ModelSwitchDecision("deny", verdict.reason)
    if verdict.decision is Decision.ask:
        return ModelSwitchDecision("ask", verdict.reason)
    if verdict.decision is Decision.allow:
        return ModelSwitchDecision("allow", verdict.reason)
    return ModelSwitchDecision("switch")


def skill_shell_decision(verdict: Verdict) -> SkillShellDecision:
    """Anything but no decision or allow stops the command; so does a rewrite, never run."""
    stopped = verdict.decision not in (None, Decision.allow) or verdict.updated_input is not None
    if stopped:
        return SkillShellDecision(False, verdict.reason or "Blocked by hook")
    return SkillShellDecision(True)


def switch_context(verdict: Verdict) -> tuple[str, ...]:
    """The PostModelSwitch hooks' context, for the new model's next request."""
    return tuple(model_notes(verdict.results))


@dataclass(frozen=True, slots=True)
class ResumeCost:
    """What resuming a session costs, for SessionStart (``source: "resume"``) under a Claude
    Code version that sends it: seconds since the session's last model answer, the context
    tokens that answer left, whether the prompt cache has likely expired, the estimated price
    of writing that context to the cache again."""

    seconds_since_last_response: int
    context_tokens: int
    prompt_cache_likely_expired: bool
    estimated_cache_write_usd: float

    def payload(self) -> dict[str, Any]:
        """The event fields, in Claude Code's order."""
        return {
            "seconds_since_last_response": self.seconds_since_last_response,
            "context_tokens": self.context_tokens,
            "prompt_cache_likely_expired": self.prompt_cache_likely_expired,
            "estimated_cache_write_usd": self.estimated_cache_write_usd,
        }


def switch_payload(
    from_model: str,
    to_model: str,
    requested: str | None,
    source: str,
    context_tokens: int,
    cache_write: tuple[float, str],
    *,
    cache_warm: bool = False,
) -> dict[str, Any]:
    """The event fields, in Claude Code's order. `cache_write` is the estimate of writing
    `context_tokens` to the new model's cache and the pricing it came from (the version's
    catalog, or its default price); `cache_warm`: the session's model answered within the
    cache's lifetime (Claude Code reads so whatever the answer's usage says about caching)."""
    usd, pricing = cache_write
    return {
        "from_model": from_model,
        "to_model": to_model,
        "requested_model": requested,
        "source": source,
        "context_tokens": context_tokens,
        "prompt_cache_warm": cache_warm,
        "cache_ttl": "5m",
        "estimated_cache_write_usd": usd,
        "pricing": pricing,
    }


__all__ = [
    "ModelSwitchDecision",
    "ResumeCost",
    "SkillShellDecision",
    "model_switch_decision",
    "skill_shell_decision",
    "switch_context",
    "switch_payload",
]
