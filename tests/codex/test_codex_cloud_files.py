"""Hostile files where Codex keeps the sign-in (``auth.json``) and the workspace's signed
bundle (``cloud-config-bundle-cache.json``): each is refused or followed with one line naming
the file, never a hang, a traceback or a file another user could have written taken as the
organization's. (Codex CLI 0.171.0 itself reads either file without a bound and checks no
owner: a FIFO hangs it, another user's copy is trusted.)"""

from __future__ import annotations

import base64
import grp
import json
import os
import pwd
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.cli_runner import run_hookwright
from tests.codex.test_codex_cloud import GUARD, auth_json, cache
from tests.codex.test_codex_layers import bound

from hookwright.config.loading import Diagnostic
from hookwright.config.safeparse import MAX_TEXT_CHARS
from hookwright.dialects.codex.cloud import CACHE_FILE

AUTH = "auth.json"


def _elsewhere(file: Path) -> None:
    target = file.parent.parent / "elsewhere" / file.name
    target.parent.mkdir()
    file.rename(target)
    file.symlink_to(target)


def _replace(file: Path, make: Callable[[Path], None]) -> None:
    file.unlink()
    make(file)


def _other_owner(file: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    os.chown(file, 65534, 65534)


def _shared_group(file: Path) -> None:
    """Writable by a group other users are in (``nogroup``)."""
    if os.geteuid() != 0:
        pytest.skip("giving a file to another group needs root")
    os.chown(file, -1, 65534)
    file.chmod(0o660)


def _huge(file: Path) -> None:
    with file.open("a") as out:
        out.write(" " * MAX_TEXT_CHARS)


#: attack -> (how it is made, why the one error line says it is not read)
ATTACKS: dict[str, tuple[Callable[[Path], None], str]] = {
    "link_to_dev_zero": (
        lambda f: _replace(f, lambda p: p.symlink_to("/dev/zero")),
        "cannot read: not a regular file",
    ),
    "link_loop": (
        lambda f: _replace(f, lambda p: p.symlink_to(p)),
        "cannot read: Too many levels of symbolic links",
    ),
    "fifo": (lambda f: _replace(f, os.mkfifo), "cannot read: not a regular file"),
    "directory": (lambda f: _replace(f, os.mkdir), "cannot read: not a regular file"),
    "other_owner": (_other_owner, "cannot read: it belongs to another user (uid 65534)"),
    "world_writable": (
        lambda f: f.chmod(0o666),
        "cannot read: other users may write it (mode 666): make it private with chmod go-w",
    ),
    "group_writable": (_shared_group, "cannot read: other users may write it (mode 660)"),
    "huge": (_huge, f"file is larger than {MAX_TEXT_CHARS:,} bytes"),
}


def workspace(tmp_path: Path) -> tuple[Path, Path]:
    """(home, project): a Business sign-in whose fresh copy holds the workspace's guard."""
    home, project = tmp_path / "home", tmp_path / "project"
    codex_home = home / ".codex"
    auth_json(codex_home, "business")
    cache(codex_home, GUARD)
    (project / ".codex").mkdir(parents=True)
    return home, project


def said_about(diagnostics: list[Diagnostic], file: Path) -> list[Diagnostic]:
    return [d for d in diagnostics if d.file == str(file)]


def guards(home: Path, project: Path) -> tuple[list[str], list[Diagnostic]]:
    result = bound(home, project)
    commands = [spec.description or spec.name for spec in result.specs if spec.source == "managed"]
    return commands, result.diagnostics


@pytest.mark.parametrize("target", [CACHE_FILE, AUTH])
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_hostile_file_is_refused_in_one_line_and_its_guard_not_taken(
    tmp_path: Path, managed_dir: Path, target: str, attack: str
) -> None:
    home, project = workspace(tmp_path)
    file = home / ".codex" / target
    make, reason = ATTACKS[attack]
    make(file)
    commands, diagnostics = guards(home, project)
    assert commands == []  # the workspace's guard is not taken from it
    said = said_about(diagnostics, file)
    assert len(said) == 1, diagnostics
    assert said[0].severity == "error" and said[0].required
    assert f"({reason}" in said[0].message
    if target == AUTH:
        assert said[0].message.startswith(f"not read ({reason}")
        assert "or sign in again with `codex login`" in said[0].message
    else:
        assert "start Codex online once to refresh the copy" in said[0].message
    assert [d for d in diagnostics if d.severity == "error"] == said


@pytest.mark.parametrize("target", [CACHE_FILE, AUTH])
def test_a_link_to_the_user_s_own_file_elsewhere_is_followed_and_said(
    tmp_path: Path, managed_dir: Path, target: str
) -> None:
    """Codex follows the link; hookwright too, checking the file it names, and says where
    the sign-in or the workspace's config was read from."""
    home, project = workspace(tmp_path)
    file = home / ".codex" / target
    _elsewhere(file)
    commands, diagnostics = guards(home, project)
    assert len(commands) == 1
    said = said_about(diagnostics, file)
    assert len(said) == 1 and said[0].severity == "warning" and not said[0].required
    assert f"is a link to {tmp_path / 'home' / 'elsewhere' / target}: " in said[0].message


def test_a_file_writable_by_the_user_s_own_group_is_read(tmp_path: Path, managed_dir: Path) -> None:
    """Codex writes its files under the user's umask: 002 where each user has a group of
    their own, so the copy is group-writable, and no one else is in that group."""
    user, group = pwd.getpwuid(os.geteuid()), grp.getgrgid(os.getegid())
    if group.gr_name != user.pw_name or set(group.gr_mem) - {user.pw_name}:
        pytest.skip("the user has no group of their own here")
    home, project = workspace(tmp_path)
    for name in (CACHE_FILE, AUTH):
        os.chown(home / ".codex" / name, -1, user.pw_gid)
        (home / ".codex" / name).chmod(0o664)
    commands, diagnostics = guards(home, project)
    assert len(commands) == 1
    assert [d for d in diagnostics if ".codex" in d.file] == []


def test_a_link_to_another_user_s_file_is_refused(tmp_path: Path, managed_dir: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    home, project = workspace(tmp_path)
    file = home / ".codex" / CACHE_FILE
    _elsewhere(file)
    os.chown(file.resolve(), 65534, 65534)
    commands, diagnostics = guards(home, project)
    assert commands == []
    said = said_about(diagnostics, file)
    assert len(said) == 1 and "it belongs to another user (uid 65534)" in said[0].message


@pytest.mark.parametrize("target", [CACHE_FILE, AUTH])
def test_validate_answers_on_a_fifo_without_hanging(
    tmp_path: Path, managed_dir: Path, target: str
) -> None:
    home, project = workspace(tmp_path)
    file = home / ".codex" / target
    file.unlink()
    os.mkfifo(file)
    env = {"CODEX_HOME": str(home / ".codex"), "HOOKWRIGHT_CODEX_MANAGED_DIR": str(managed_dir)}
    done = run_hookwright(
        "hooks", "validate", "--project", str(project), home=home, env=env, timeout=60
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stdout.splitlines() if "cannot read: not a regular file" in line]
    assert len(lines) == 1 and str(file) in done.stdout


def test_an_id_token_nested_past_the_bound_is_no_identity(
    tmp_path: Path, managed_dir: Path
) -> None:
    """A token whose claims nest deeper than any parser bound: no traceback, no plan, so no
    cloud config is looked for (as for any token without claims)."""
    home, project = workspace(tmp_path)
    file = home / ".codex" / AUTH
    deep = base64.urlsafe_b64encode(b"[" * 100_000 + b"]" * 100_000).rstrip(b"=").decode()
    data = json.loads(file.read_text())
    data["tokens"]["id_token"] = f"e30.{deep}.signature"
    file.write_text(json.dumps(data))
    commands, diagnostics = guards(home, project)
    assert commands == [] and said_about(diagnostics, file) == []
    assert said_about(diagnostics, home / ".codex" / CACHE_FILE) == []
