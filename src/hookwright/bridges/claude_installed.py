"""Which Claude Code CLI `install claude-code` writes for: the version given, or the one
`claude --version` prints, found on PATH.

The version's profile (`hookwright.dialects.claude_profiles`) decides whether the
installed hooks carry ``"onFailure": "block"`` (Claude Code 2.1.295 and later), which makes a
hook that cannot answer (a dead daemon, a client that crashes) block the action instead of
letting it through.

Finding the version runs a program named by PATH, which a repository can influence (a
relative entry such as ``.`` or ``bin`` is a folder of whatever project the shell is in). So
only absolute PATH entries are searched, a `claude` inside the project being installed into
is never run, and the one found runs without a shell, in ``/``, with no input and a deadline.
Which CLI runs a hook is `hookwright.bridges.claude_version`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hookwright.dialects.claude_profiles import PROFILES, ClaudeCodeProfile, profile_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hookwright.bridges.claude_version import Version

#: The first Claude Code CLI with `onFailure` on settings hooks (the oldest such profile).
ON_FAILURE_SINCE = next(profile.version for profile in PROFILES if profile.on_failure)
#: How long `claude --version` may take, in seconds.
PROBE_TIMEOUT = 15.0
NEUTRAL_CWD = "/"
#: ``X.Y.Z``, compiled at its first use (`re` keeps it), not at import.
_VERSION = r"\b(\d+)\.(\d+)\.(\d+)\b"


@dataclass(frozen=True, slots=True)
class Found:
    """The CLI's version (None: unknown) and where it came from, for the user."""

    version: Version | None
    source: str

    @property
    def profile(self) -> ClaudeCodeProfile:
        """The profile this CLI behaves as (the newest when the version is unknown)."""
        return profile_for(self.version)

    @property
    def blocks_on_failure(self) -> bool:
        return self.version is not None and self.profile.on_failure

    @property
    def shown(self) -> str:
        return "unknown" if self.version is None else ".".join(map(str, self.version))


def parse_version(text: str) -> Version | None:
    """The first ``X.Y.Z`` in `text` (``2.1.332 (Claude Code)``), or None."""
    match = re.search(_VERSION, text)
    if match is None:
        return None
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def find_claude(environ: Mapping[str, str], avoid: Path | None) -> Path | None:
    """The first executable `claude` in an absolute PATH entry, never one inside `avoid`."""
    for entry in environ.get("PATH", "").split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue
        candidate = Path(entry) / "claude"
        try:
            real = candidate.resolve(strict=True)
        except (OSError, RuntimeError):
            continue
        inside = avoid is not None and (
            candidate.is_relative_to(avoid) or real.is_relative_to(avoid)
        )
        if inside or not real.is_file() or not os.access(real, os.X_OK):
            continue
        return candidate
    return None


def probe(claude: Path) -> Version | None:
    """What `claude --version` prints, parsed; None when it does not run or says no version."""
    import subprocess  # only here: a process answering one event never probes

    try:
        done = subprocess.run(
            [str(claude), "--version"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            cwd=NEUTRAL_CWD,
            timeout=PROBE_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return parse_version(done.stdout[:4096].decode("utf-8", errors="replace"))


def installed_version(given: str | None, environ: Mapping[str, str], project: Path | None) -> Found:
    """The version named by `given` (``--claude-code-version``), else the probed one."""
    if given is not None:
        return Found(parse_version(given), "--claude-code-version")
    claude = find_claude(environ, project)
    if claude is None:
        return Found(None, "no `claude` on PATH")
    return Found(probe(claude), str(claude))
