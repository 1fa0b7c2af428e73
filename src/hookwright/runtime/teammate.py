"""A session run as a member of an agent team: TeammateIdle fires when it is about to stop.

Claude Code starts a teammate as a process of its own (`--agent-name`, `--team-name`) with
`CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS` on; once its Stop hooks let it stop, TeammateIdle
fires with `teammate_name` and `team_name`. A blocking hook (exit code 2, `decision:
"block"`) keeps it working with ``TeammateIdle hook feedback:\\n<reason>`` as Stop feedback
is worded, at most the Stop block cap times in a row. A failing hook never blocks, whatever
its `onFailure` says. Measured in Claude Code 2.1.332.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from hookwright.core.results import Decision, Verdict
from hookwright.host.claude_profile import stop_feedback
from hookwright.host.open import ClaudeCodeProfile

TEAMS_VARIABLE = "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS"
_ON = frozenset({"1", "true", "yes", "on"})
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


@dataclass(frozen=True, slots=True)
class Teammate:
    name: str
    team: str


def parse_teammate(text: str) -> Teammate:
    """``NAME@TEAM`` as a teammate; ValueError naming the option and the bad part."""
    name, at, team = text.partition("@")
    for part, what in ((name, "name"), (team, "team")):
        if not at or not _NAME.fullmatch(part):
            raise ValueError(
                f"--teammate {text!r}: expected NAME@TEAM, the {what} made of letters, digits, "
                "'-' and '_'"
            )
    return Teammate(name, team)


def teams_enabled(env: Mapping[str, str]) -> bool:
    return env.get(TEAMS_VARIABLE, "").strip().lower() in _ON


def idle_feedback(profile: ClaudeCodeProfile, verdict: Verdict) -> list[str]:
    """The user message per blocking TeammateIdle hook that keeps the teammate working."""
    return [
        stop_feedback(profile, result, event="TeammateIdle")
        for result in verdict.results
        if result.decision is Decision.block
    ]
