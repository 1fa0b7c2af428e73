"""Transcripts, which hold hook output, are 0600 in 0700 folders (hook agents' included)."""

from __future__ import annotations

import stat
from pathlib import Path

from hookwright.engine.services import HookModelRequest
from hookwright.runtime.evaluators import HookModels
from hookwright.runtime.models.scripted import ScriptedModel


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_a_hook_agent_transcript_is_private(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    models = HookModels(ScriptedModel.from_turns([{"content": '{"ok": true}'}]), tmp_path, home)
    request = HookModelRequest("agent", "Is the build green?", None, None, 30)
    answer = await models(request)
    assert answer == '{"ok": true}'
    folder = home / ".hookwright" / "hook-agents"
    [transcript] = list(folder.iterdir())
    assert "Is the build green?" in transcript.read_text()
    assert mode(transcript) == 0o600
    assert mode(folder) == 0o700 and mode(folder.parent) == 0o700
