"""Codex's `project_root_markers`: where the project root is, and so which `.codex` folders
above the project are read, as measured in Codex CLI 0.171.0. Through `python -m hookwright
run` and `hooks validate` in `repo/sub/deep`, whose every folder has a logging hook."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.cli_runner import run_hookwright
from tests.codex.project import script
from tests.codex.test_codex_nested import _env, nested, ran, run

EVERY_FOLDER = ["deep", "repo", "sub"]


def markers_in(config: Path, value: str) -> None:
    """`project_root_markers = value` at the top of `config` (before its tables)."""
    before = config.read_text() if config.exists() else ""
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"project_root_markers = {value}\n{before}")


def ran_in_deep(tmp_path: Path, value: str | None) -> list[str]:
    """The folders whose hook ran, with `value` as the user's `project_root_markers` and the
    repository trusted."""
    home, repo, deep, log = nested(tmp_path)
    if value is not None:
        markers_in(home / ".codex" / "config.toml", value)
    assert run_hookwright("trust", str(repo), home=home).returncode == 0
    run(home, deep, script(tmp_path / "s.json", [{"content": "ok"}]))
    return ran(log)


def test_by_default_the_root_is_the_folder_holding_git(tmp_path: Path) -> None:
    assert ran_in_deep(tmp_path, None) == EVERY_FOLDER


def test_an_empty_list_makes_the_project_its_own_root(tmp_path: Path) -> None:
    assert ran_in_deep(tmp_path, "[]") == ["deep"]


def test_a_marker_found_nowhere_leaves_the_project_alone(tmp_path: Path) -> None:
    assert ran_in_deep(tmp_path, '["absent.txt"]') == ["deep"]


def test_a_custom_marker_puts_the_root_where_it_is(tmp_path: Path) -> None:
    (tmp_path / "repo" / "sub").mkdir(parents=True)
    (tmp_path / "repo" / "sub" / "marker.txt").write_text("")
    assert ran_in_deep(tmp_path, '["absent.txt", "marker.txt"]') == ["deep", "sub"]


def test_a_marker_above_the_repository_widens_the_root_but_that_folder_needs_trust(
    tmp_path: Path,
) -> None:
    """As in Codex, the root may lie above the repository; its `.codex` runs only once
    hookwright trusts that folder too."""
    (tmp_path / "marker.txt").write_text("")
    assert ran_in_deep(tmp_path, '["marker.txt"]') == EVERY_FOLDER
    (tmp_path / "ran.log").unlink()
    home, deep = tmp_path / "home", tmp_path / "repo" / "sub" / "deep"
    assert run_hookwright("trust", str(tmp_path), home=home).returncode == 0
    run(home, deep, tmp_path / "s.json")
    assert ran(tmp_path / "ran.log") == ["above", *EVERY_FOLDER]


def test_a_marker_linked_out_of_the_repository_counts_and_its_target_is_not_read(
    tmp_path: Path,
) -> None:
    """Measured: Codex takes a link to an existing folder as the marker; what it leads to is
    never read as a layer."""
    outside = tmp_path / "elsewhere"
    (outside / ".codex").mkdir(parents=True)
    (outside / ".codex" / "hooks.json").write_text('{"hooks": {}}')
    (tmp_path / "repo" / "sub").mkdir(parents=True)
    (tmp_path / "repo" / "sub" / "marker").symlink_to(outside)
    assert ran_in_deep(tmp_path, '["marker"]') == ["deep", "sub"]


def test_a_dangling_marker_link_does_not_count(tmp_path: Path) -> None:
    (tmp_path / "repo" / "sub").mkdir(parents=True)
    (tmp_path / "repo" / "sub" / "marker").symlink_to(tmp_path / "nothing")
    assert ran_in_deep(tmp_path, '["marker"]') == ["deep"]


def test_the_system_config_sets_the_markers_and_the_user_config_wins(
    tmp_path: Path, managed_dir: Path
) -> None:
    markers_in(managed_dir / "config.toml", "[]")
    assert ran_in_deep(tmp_path, None) == ["deep"]
    (tmp_path / "ran.log").unlink()
    markers_in(tmp_path / "home" / ".codex" / "config.toml", '[".git"]')
    run(tmp_path / "home", tmp_path / "repo" / "sub" / "deep", tmp_path / "s.json")
    assert ran(tmp_path / "ran.log") == EVERY_FOLDER


def test_a_project_cannot_move_its_own_root(tmp_path: Path) -> None:
    home, repo, deep, log = nested(tmp_path)
    for folder in (repo, deep):
        markers_in(folder / ".codex" / "config.toml", "[]")
    assert run_hookwright("trust", str(repo), home=home).returncode == 0
    run(home, deep, script(tmp_path / "s.json", [{"content": "ok"}]))
    assert ran(log) == EVERY_FOLDER


@pytest.mark.parametrize("value", ['".git"', "[1]", '{git = ".git"}', '[".git", false]'])
def test_markers_that_are_not_a_list_of_strings_are_one_line_naming_file_and_key(
    tmp_path: Path, value: str
) -> None:
    """Codex refuses to start; hookwright says why in one line and looks for `.git`."""
    home, repo, deep, log = nested(tmp_path)
    config = home / ".codex" / "config.toml"
    markers_in(config, value)
    assert run_hookwright("trust", str(repo), home=home).returncode == 0
    said = run(home, deep, script(tmp_path / "s.json", [{"content": "ok"}]))
    assert ran(log) == EVERY_FOLDER
    lines = [line for line in said.splitlines() if "project_root_markers" in line]
    assert len(lines) == 1
    assert lines[0].startswith(f"error: {config}: project_root_markers: must be a list of strings")
    checked = run_hookwright("hooks", "validate", "--project", str(deep), home=home, env=_env(home))
    assert checked.returncode == 1
    assert "error: project_root_markers: must be a list of strings" in checked.stdout


def test_a_legacy_profile_s_markers_are_not_read_and_its_selector_is_one_error_line(
    tmp_path: Path,
) -> None:
    """Measured on Codex CLI 0.171.0: a ``[profiles.NAME]`` table's markers do not move the
    root, and the selector ``profile = "NAME"`` stops Codex (hookwright reads on, and says so)."""
    home, repo, deep, log = nested(tmp_path)
    config = home / ".codex" / "config.toml"
    config.write_text(
        'profile = "p"\n' + config.read_text() + "[profiles.p]\nproject_root_markers = []\n"
    )
    assert run_hookwright("trust", str(repo), home=home).returncode == 0
    said = run(home, deep, script(tmp_path / "s.json", [{"content": "ok"}]))
    assert ran(log) == EVERY_FOLDER
    [line] = [line for line in said.splitlines() if "legacy selector" in line]
    assert line.startswith(f"error: {config}: profile: the legacy selector 'p' stops Codex CLI")


@pytest.mark.parametrize("link", [False, True])
def test_a_git_folder_without_head_is_no_root(tmp_path: Path, link: bool) -> None:
    """Measured on Codex CLI 0.171.0: a `.git` folder (or a link to one) counts once it
    holds `HEAD`."""
    home, repo, deep, log = nested(tmp_path)
    (repo / ".git" / "HEAD").unlink()
    if link:
        (repo / ".git").rename(tmp_path / "empty")
        (repo / ".git").symlink_to(tmp_path / "empty")
    assert run_hookwright("trust", str(repo), home=home).returncode == 0
    run(home, deep, script(tmp_path / "s.json", [{"content": "ok"}]))
    assert ran(log) == ["deep"]


def test_a_git_file_is_a_root_whatever_it_holds(tmp_path: Path) -> None:
    """A linked worktree's `.git` is a file; Codex 0.171.0 counts even an empty one."""
    home, repo, deep, log = nested(tmp_path)
    (repo / ".git" / "HEAD").unlink()
    (repo / ".git").rmdir()
    (repo / ".git").write_text("")
    assert run_hookwright("trust", str(repo), home=home).returncode == 0
    run(home, deep, script(tmp_path / "s.json", [{"content": "ok"}]))
    assert ran(log) == EVERY_FOLDER
