"""The daemon's answer for a loaded project that nothing changed for is told by its watch
alone (no resolution of the folder, no look at the trust store per event): what that must
still see at the very next event, on `WarmProjects` itself (a real project, real files, the
user's audit written to the test's folder)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from hookwright.bridges.projects import WarmProjects
from hookwright.config.trust import TrustStore

HOOKS_YAML = "hooks:\n  - name: count\n    event: UserPromptSubmit\n    call: count:count\n"
COUNT_PY = """\
from hookwright import add_context

CALLS = []


def count(inp):
    CALLS.append(1)
    return add_context(f"{NAME}: call {len(CALLS)}")
"""


def _project(root: Path, name: str) -> Path:
    (root / ".hookwright").mkdir(parents=True)
    (root / ".hookwright" / "hooks.yaml").write_text(HOOKS_YAML)
    (root / ".hookwright" / "count.py").write_text(f"NAME = {name!r}\n" + COUNT_PY)
    return root


def _body(cwd: Path) -> bytes:
    data = {
        "session_id": "s-1",
        "transcript_path": str(cwd / "t.jsonl"),
        "cwd": str(cwd),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "hi",
    }
    return json.dumps(data).encode()


async def _contexts(warm: WarmProjects, cwd: Path, count: int) -> list[str | None]:
    found: list[str | None] = []
    for _ in range(count):
        reply = await warm.answer(_body(cwd), None, None)
        assert reply.exit == 0, reply.stderr
        found.append(
            json.loads(reply.stdout).get("hookSpecificOutput", {}).get("additionalContext")
        )
    return found


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".hookwright").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("HOOKWRIGHT_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    return home


def test_trust_changes_take_effect_at_the_next_event_and_keep_the_session(
    tmp_path: Path, home: Path
) -> None:
    project = _project(tmp_path / "work" / "a", "A")
    store = TrustStore(home)
    store.trust(project)

    async def scenario() -> list[str | None]:
        warm = WarmProjects(home)
        try:
            seen = await _contexts(warm, project, 2)
            store.trust(tmp_path / "another")  # the project's session is kept
            seen += await _contexts(warm, project, 1)
            store.untrust(project)
            seen += await _contexts(warm, project, 1)
            assert warm.projects == []
            store.trust(project)
            seen += await _contexts(warm, project, 1)
            return seen
        finally:
            await warm.aclose()

    assert asyncio.run(scenario()) == ["A: call 1", "A: call 2", "A: call 3", None, "A: call 1"]


def test_a_project_named_through_a_retargeted_link_is_the_new_one(
    tmp_path: Path, home: Path
) -> None:
    first, second = _project(tmp_path / "a", "A"), _project(tmp_path / "b", "B")
    for project in (first, second):
        TrustStore(home).trust(project)
    link = tmp_path / "current"
    link.symlink_to(first)

    async def scenario() -> list[str | None]:
        warm = WarmProjects(home)
        try:
            seen = await _contexts(warm, link, 2)
            link.unlink()
            link.symlink_to(second)
            return seen + await _contexts(warm, link, 1)
        finally:
            await warm.aclose()

    assert asyncio.run(scenario()) == ["A: call 1", "A: call 2", "B: call 1"]


def test_a_project_folder_replaced_from_above_is_loaded_afresh(tmp_path: Path, home: Path) -> None:
    project = _project(tmp_path / "work" / "p", "OLD")
    TrustStore(home).trust(project)

    async def scenario() -> list[str | None]:
        warm = WarmProjects(home)
        try:
            seen = await _contexts(warm, project, 2)
            (tmp_path / "work").rename(tmp_path / "work-old")
            _project(project, "NEW")
            return seen + await _contexts(warm, project, 1)
        finally:
            await warm.aclose()

    assert asyncio.run(scenario()) == ["OLD: call 1", "OLD: call 2", "NEW: call 1"]
