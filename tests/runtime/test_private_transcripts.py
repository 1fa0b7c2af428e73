"""Transcripts, which hold hook output, are 0600 in 0700 folders (hook agents' included)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from hookwright.engine.hook_requests import HookModelRequest
from hookwright.runtime.evaluators import HookModels
from hookwright.runtime.models.scripted import ScriptedModel
from hookwright.runtime.transcript import Transcript


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


def test_a_transcript_never_writes_through_a_link_at_its_name(tmp_path: Path) -> None:
    """A link planted at the transcript's name (the folder is under the user's home, but a
    repository or another process may have placed it) is refused; its target keeps its bytes."""
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"keep me\n")
    victim.chmod(0o644)
    folder = tmp_path / "sessions"
    folder.mkdir(mode=0o700)
    (folder / "s1.jsonl").symlink_to(victim)
    with pytest.raises(OSError):
        Transcript(folder / "s1.jsonl", "s1", str(tmp_path))
    assert victim.read_bytes() == b"keep me\n" and mode(victim) == 0o644


def test_a_transcript_is_created_private(tmp_path: Path) -> None:
    path = tmp_path / "new" / "s2.jsonl"
    transcript = Transcript(path, "s2", str(tmp_path))
    transcript.close()
    assert mode(path) == 0o600 and mode(path.parent) == 0o700
