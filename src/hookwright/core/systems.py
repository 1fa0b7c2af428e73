"""Each hook system's name as its users say it (Claude Code, PicoClaw, OpenHarness, skill,
Python), for every view that names a hook: the terminal, the summary, the page, `hooks list`,
the audit viewer and the debug trace. `hookwright.host.labels` builds a hook's whole label on it;
the mapping sits here, at the bottom, so the debug trace (`monitor`) reads the same words."""

from __future__ import annotations

#: A dialect's name -> the system's name as its users say it.
SYSTEMS = {
    "claude_code": "Claude Code",
    "picoclaw": "PicoClaw",
    "openharness": "OpenHarness",
    "skill": "skill",
    "native": "Python",
    "python": "Python",
    "gemini": "Gemini CLI",
    "codex": "Codex",
}


def system_name(dialect: str) -> str:
    return SYSTEMS.get(dialect, dialect)
