"""`claude_hook.real_path`, how the daemon resolves each event's project, says what
`Path.resolve` says, on real folders and links, and sees a link retargeted at once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hookwright.bridges.claude_hook import real_path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "c").mkdir()
    (tmp_path / "x (deleted)").mkdir()
    (tmp_path / "to-b").symlink_to(tmp_path / "a" / "b")
    (tmp_path / "to-to-b").symlink_to("to-b")
    (tmp_path / "a" / "b" / "up").symlink_to("../../c")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "a" / "file").write_text("")
    return tmp_path


@pytest.mark.parametrize(
    "name",
    [
        "a/b",
        "to-b",
        "to-to-b",
        "to-b/..",
        "to-to-b/up",
        "a/b/up/../a/./b",
        "dangling",
        "dangling/below",
        "missing/below",
        "x (deleted)",
        "a/file",
        "a//b/",
    ],
)
def test_real_path_is_what_resolve_says(tree: Path, name: str) -> None:
    assert real_path(f"{tree}/{name}") == Path(f"{tree}/{name}").resolve()


def test_a_relative_path_is_resolved_from_the_working_folder(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree / "a")
    assert real_path("../to-b") == tree / "a" / "b"


def test_a_retargeted_link_names_its_new_target_at_once(tree: Path) -> None:
    link = tree / "project"
    link.symlink_to(tree / "a" / "b")
    assert real_path(str(link)) == tree / "a" / "b"
    os.replace(tree / "to-b", link)  # another link, named as the old one
    (tree / "tmp-link").symlink_to(tree / "c")
    os.replace(tree / "tmp-link", link)
    assert real_path(str(link)) == tree / "c"


def test_a_removed_working_folder_resolves_as_resolve_does(tree: Path) -> None:
    gone = tree / "gone"
    gone.mkdir()
    fd = os.open(gone, os.O_RDONLY)
    try:
        gone.rmdir()
        assert real_path(f"/proc/self/fd/{fd}") == Path(f"/proc/self/fd/{fd}").resolve()
    finally:
        os.close(fd)
