"""Which Claude Code CLI a claude-agent-sdk session will start, and its version: the SDK's
initialize refuses a CLI that does not honour a hook matcher's ``onFailure``, so the adapter
reads the version first and leaves the field out (with a warning) for an older CLI."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import claude_agent_sdk
from claude_agent_sdk import ClaudeAgentOptions

#: The first Claude Code CLI that honours ``onFailure`` on hook matchers.
ON_FAILURE_MINIMUM = (2, 1, 295)
VERSION_TIMEOUT = 20.0
Version = tuple[int, int, int]
BUNDLED = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"


def parse_version(text: str) -> Version | None:
    match = re.search(r"(\d{1,9})\.(\d{1,9})\.(\d{1,9})", text)
    if match is None:
        return None
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def shown(version: Version) -> str:
    return ".".join(map(str, version))


def cli_path(options: ClaudeAgentOptions) -> str | None:
    """The CLI the SDK's own transport would start: `options.cli_path`, the SDK's bundled
    CLI, or ``claude`` on the PATH."""
    if options.cli_path is not None:
        return str(options.cli_path)
    if BUNDLED.is_file():
        return str(BUNDLED)
    return shutil.which("claude")


def probe(options: ClaudeAgentOptions) -> Version | None:
    """The version ``<cli> --version`` prints; None when there is no CLI to ask or it does
    not answer with one."""
    path = cli_path(options)
    if path is None:
        return None
    recorded = Path(path).with_name("claude.version")  # the SDK's record beside its bundled CLI
    if Path(path) == BUNDLED and recorded.is_file():
        return parse_version(recorded.read_text(encoding="utf-8", errors="replace"))
    try:
        done = subprocess.run(
            [path, "--version"],
            capture_output=True,
            text=True,
            timeout=VERSION_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return parse_version(done.stdout) if done.returncode == 0 else None
