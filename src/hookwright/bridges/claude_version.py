"""Which Claude Code CLI runs a hook (`calling_version`), for the bridge and the daemon.

Claude Code names itself in its hooks' environment, ``AI_AGENT=claude-code_2-1-332_harness``
(measured with 2.1.240 and 2.1.332): the bridge answers as that version's profile. Where it is
missing (an http hook, an older CLI) the usual choice holds (`choose_profile`: the
environment, the settings files, else the newest profile), with a note saying so. Which CLI
`install claude-code` writes for is `hookwright.bridges.claude_installed`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from hookwright.dialects.claude_profiles import ClaudeCodeProfile, profile_for

#: The variable Claude Code names itself in for the hooks it runs.
AGENT_VARIABLE = "AI_AGENT"
#: Compiled at its first use (`re` keeps it), not at import.
_AGENT = r"claude-code_(\d+)-(\d+)-(\d+)(?:_|$)"

Version = tuple[int, int, int]


def calling_version(environ: Mapping[str, str]) -> Version | None:
    """The version of the Claude Code CLI that runs this hook (`AGENT_VARIABLE`), or None."""
    agent = environ.get(AGENT_VARIABLE, "")
    match = re.match(_AGENT, agent) if agent else None
    if match is None:
        return None
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


@functools.lru_cache(maxsize=64)
def calling_profile(agent: str | None) -> ClaudeCodeProfile | None:
    """The profile of the caller that named itself `agent` (`AGENT_VARIABLE`'s value, as the
    client passes it on); None when it did not say. Remembered: the daemon asks it per
    event, of the few values its callers send."""
    version = calling_version({AGENT_VARIABLE: agent or ""})
    return None if version is None else profile_for(version)


def unknown_caller_note(host: str) -> str:
    """One line for a caller that did not name its version."""
    return (
        f"hookwright {host}: the calling Claude Code did not name its version "
        f"(no ${AGENT_VARIABLE}); its hooks load as the settings choose, else as the newest "
        "profile\n"
    )
