"""Files that may hold hook output or environment are 0600 in 0700 folders."""

from __future__ import annotations

import stat
from pathlib import Path

from .conftest import Harness, cmd, group


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_env_files_are_private(h: Harness) -> None:
    h.hooks(group("SessionStart", cmd('echo "export TOKEN=t" >> "$CLAUDE_ENV_FILE"')))
    verdict = await h.fire("SessionStart", source="startup")
    [path] = verdict.effects.env_files
    env_file = Path(path)
    assert env_file.read_text() == "export TOKEN=t\n"
    assert mode(env_file) == 0o600
    assert mode(env_file.parent) == 0o700
    assert mode(env_file.parent.parent) == 0o700


async def test_saved_long_output_is_private(h: Harness) -> None:
    text = "s" * 10_001
    h.hooks(group("UserPromptSubmit", cmd(h.emit({"systemMessage": text}))))
    verdict = await h.fire("UserPromptSubmit", prompt="p")
    [message] = verdict.system_messages
    saved = Path(message.rsplit("saved to ", 1)[1].rstrip("]"))
    assert saved.read_text() == text
    assert mode(saved) == 0o600
    assert mode(saved.parent) == 0o700
