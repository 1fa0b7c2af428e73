"""`hookwright install gemini`: a command hook per relayed event in a Gemini CLI
`settings.json` (a project's ``.gemini/settings.json``, or the user's
``~/.gemini/settings.json``), each running `hookwright hook gemini`.

Gemini's ``hooks`` member has Claude Code's shape (event -> matcher groups -> hooks), so the
file is edited by the Claude Code installer's rules (`claude_settings.install_groups` /
`uninstall`: strict JSON, only ``hooks`` rewritten, never through a link, a project's link
never leading out of it, the bytes and mode before install written back by an uninstall that
leaves the same settings). Gemini itself also reads comments in its settings files; a file
with comments is refused in one line, unchanged, and so is a file every user may write.

Gemini loads a project's settings hooks only in a folder it trusts (`gemini -p` elsewhere
exits 55): `gemini_trust_problem` says what the user must do."""

from __future__ import annotations

import shlex
import stat
import sys
from pathlib import Path
from typing import Any, Final

from hookwright.bridges.claude_settings import SettingsError, Target, install_groups, uninstall
from hookwright.bridges.gemini_hook import RELAYED
from hookwright.dialects.gemini.trust import folder_trusted, trusted_folders_file

#: Milliseconds Gemini gives each event (a fresh interpreter opens the project each time).
TIMEOUT_MS: Final = 30_000
#: The name Gemini shows for the hook (and what `hooksConfig.disabled` would list).
NAME: Final = "hookwright"


def target(project: Path | None, home: Path) -> Target:
    """``--project DIR``: DIR's ``.gemini/settings.json``; else the user's."""
    if project is None:
        return Target(home / ".gemini" / "settings.json", None)
    project = project.resolve()
    return Target(project / ".gemini" / "settings.json", project)


def hook_command() -> str:
    """Isolated (`-I`): the project folder Gemini runs it in is not on its import path."""
    return shlex.join([sys.executable, "-I", "-m", "hookwright", "hook", "gemini"])


def refuse_shared(where: Target) -> None:
    """A settings file every user may write is refused: anyone could take the guard out
    again, and install would keep its mode. (The file's owner is checked where it is read.)"""
    try:
        info = where.settings.stat()
    except (OSError, RuntimeError):
        return
    if info.st_mode & stat.S_IWOTH:
        raise SettingsError(
            f"{where.settings} is writable by every user (anyone could take the hooks out): "
            "make it private (chmod o-w) first"
        )


def install_gemini(where: Target, home: Path) -> bool:
    """Add hookwright's hooks; False when exactly these were already there."""
    refuse_shared(where)
    hook: dict[str, Any] = {
        "type": "command",
        "name": NAME,
        "command": hook_command(),
        "timeout": TIMEOUT_MS,
    }
    return install_groups(where, home, lambda: dict.fromkeys(RELAYED, hook))


def uninstall_gemini(where: Target, home: Path) -> bool:
    """Take out what `install_gemini` added; False when nothing of it was there."""
    refuse_shared(where)
    return uninstall(where, home)


def gemini_trust_problem(project: Path, home: Path) -> str | None:
    """Why Gemini CLI will not run `project`'s settings hooks (None: it trusts the folder)."""
    trusted, problem = folder_trusted(home, project)
    if trusted:
        return None
    store = trusted_folders_file(home)
    if problem is not None:
        return f"Gemini CLI's trusted folders cannot be read ({problem})"
    return (
        f"Gemini CLI does not trust {project}: it loads no hook of the folder there "
        f"(`gemini -p` exits 55); trust the folder when Gemini asks, or with /permissions "
        f'in Gemini, or add "{project}": "TRUST_FOLDER" to {store}'
    )
