"""What `install|uninstall claude-code` writes, where and how: every file 0600 (folders 0700)
from its first byte, no link at any name followed, a dotfiles link kept a link, a link out
of the project refused. Each attack plants links at the names the installer would use and
checks, through the real commands, that the file they point at keeps its bytes."""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_runner import run_cli
from hookwright.bridges.claude_client import runtime_dir
from hookwright.bridges.claude_settings import _backup_path
from hookwright.config.private_files import TEMP_SUFFIX

VICTIM_BYTES = b'{\n  "permissions": {"deny": ["Bash(rm *)"]}\n}\n'


def hookwright(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(list(args), dict(os.environ), timeout=60)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def snapshot(*roots: Path) -> dict[str, tuple[int, bytes]]:
    """Every name under `roots` (links not followed): its mode and bytes (a link's target)."""
    seen: dict[str, tuple[int, bytes]] = {}
    for root in roots:
        for folder, dirs, files in os.walk(root):
            for name in [*dirs, *files]:
                path = Path(folder, name)
                info = os.lstat(path)
                if stat.S_ISLNK(info.st_mode):
                    content = os.fsencode(os.readlink(path))
                elif stat.S_ISREG(info.st_mode):
                    content = path.read_bytes()
                else:
                    content = b""
                seen[str(path)] = (info.st_mode, content)
    return seen


@pytest.fixture(autouse=True)
def open_umask() -> Iterator[None]:
    """umask 0 for the commands too: the modes seen are the ones hookwright asked for."""
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return root


@pytest.fixture
def user_settings(isolated_home: Path) -> Path:
    """The user's own Claude Code settings, with a deny rule a repository would like gone."""
    path = isolated_home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(VICTIM_BYTES)
    path.chmod(0o644)
    return path


def test_every_file_install_writes_is_private(project: Path, isolated_home: Path) -> None:
    done = hookwright("install", "claude-code", "--project", str(project), "--mode", "http")
    assert done.returncode == 0, done.stderr
    settings = project / ".claude" / "settings.local.json"
    state = isolated_home / ".hookwright"
    backup = _backup_path(settings, isolated_home)
    assert [mode(p) for p in (settings.parent, state, backup.parent)] == [0o700] * 3
    assert [mode(p) for p in (settings, backup, state / "daemon.json")] == [0o600] * 3
    leftovers = [p for p in (*settings.parent.iterdir(), *state.rglob("*")) if "tmp" in p.name]
    assert leftovers == []


def test_links_at_every_name_install_uses_are_never_followed(
    project: Path, isolated_home: Path, user_settings: Path
) -> None:
    """The repository commits links at the temporary names (old and new style) and the user's
    state folder holds links at the backup and token names: all point at the user's settings."""
    claude = project / ".claude"
    claude.mkdir()
    settings = claude / "settings.local.json"
    state = isolated_home / ".hookwright"
    backup = _backup_path(settings, isolated_home)
    backup.parent.mkdir(parents=True)
    planted = [
        claude / f".settings.local.json{TEMP_SUFFIX}",
        claude / ".settings.local.json.tmp",
        backup,
        backup.with_name(f".{backup.name}{TEMP_SUFFIX}"),
        state / "daemon.json",
        state / ".daemon.json.tmp",
        state / f".daemon.json{TEMP_SUFFIX}",
    ]
    for link in planted:
        link.symlink_to(user_settings)
    for install_mode in ("http", "command"):
        done = hookwright(
            "install", "claude-code", "--project", str(project), "--mode", install_mode
        )
        assert done.returncode == 0, done.stderr
        assert user_settings.read_bytes() == VICTIM_BYTES and mode(user_settings) == 0o644
    assert not settings.is_symlink() and mode(settings) == 0o600
    assert not backup.is_symlink() and mode(backup) == 0o600
    assert not (state / "daemon.json").is_symlink() and mode(state / "daemon.json") == 0o600
    done = hookwright("uninstall", "claude-code", "--project", str(project))
    assert done.returncode == 0, done.stderr
    assert user_settings.read_bytes() == VICTIM_BYTES and mode(user_settings) == 0o644
    assert not settings.exists()


def test_a_settings_link_leaving_the_project_is_refused(
    project: Path, isolated_home: Path, user_settings: Path
) -> None:
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.symlink_to(Path("..", "..", "..", isolated_home.name, ".claude", "settings.json"))
    assert settings.resolve() == user_settings.resolve()
    before = snapshot(project, isolated_home)
    for command in ("install", "uninstall"):
        done = hookwright(command, "claude-code", "--project", str(project))
        assert done.returncode == 2
        [line] = done.stderr.splitlines()
        assert line.startswith("hookwright: error: ")
        assert f"{settings} is a link leaving the project" in line
        assert snapshot(project, isolated_home) == before


def test_a_claude_folder_leaving_the_project_is_refused(
    project: Path, isolated_home: Path, user_settings: Path
) -> None:
    (project / ".claude").symlink_to(user_settings.parent)
    before = snapshot(project, isolated_home)
    for command, *extra in (["install", "--mode", "http"], ["uninstall"]):
        done = hookwright(command, "claude-code", "--project", str(project), *extra)
        assert done.returncode == 2
        [line] = done.stderr.splitlines()
        assert f"{project / '.claude'} is a link leaving the project" in line
        assert snapshot(project, isolated_home) == before


@pytest.fixture
def dotfiles_link(isolated_home: Path) -> Path:
    """`~/.claude/settings.json`, a link into the user's dotfiles folder (0644 there)."""
    target = isolated_home / "dotfiles" / "claude.json"
    target.parent.mkdir()
    target.write_bytes(VICTIM_BYTES)
    target.chmod(0o644)
    link = isolated_home / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(Path("..", "dotfiles", "claude.json"))
    return link


@pytest.mark.parametrize("install_mode", ["command", "http"])
def test_a_dotfiles_link_is_edited_at_its_target_and_stays_a_link(
    dotfiles_link: Path, install_mode: str
) -> None:
    target = dotfiles_link.resolve()
    done = hookwright("install", "claude-code", "--user", "--mode", install_mode)
    assert done.returncode == 0, done.stderr
    assert os.readlink(dotfiles_link) == os.path.join("..", "dotfiles", "claude.json")
    edited = target.read_bytes()
    assert edited.startswith(VICTIM_BYTES[:-3]) and b'"hooks": {' in edited
    assert mode(target) == (0o600 if install_mode == "http" else 0o644)
    assert [p.name for p in target.parent.iterdir()] == ["claude.json"]
    done = hookwright("uninstall", "claude-code", "--user")
    assert done.returncode == 0, done.stderr
    assert os.readlink(dotfiles_link) == os.path.join("..", "dotfiles", "claude.json")
    assert target.read_bytes() == VICTIM_BYTES and mode(target) == 0o644


def test_a_link_inside_the_project_is_followed(project: Path) -> None:
    shared = project / "config" / "claude-local.json"
    shared.parent.mkdir()
    shared.write_bytes(b'{"model": "opus"}')
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.symlink_to(Path("..", "config", "claude-local.json"))
    assert hookwright("install", "claude-code", "--project", str(project)).returncode == 0
    assert settings.is_symlink() and b'"hooks": {' in shared.read_bytes()
    assert hookwright("uninstall", "claude-code", "--project", str(project)).returncode == 0
    assert settings.is_symlink() and shared.read_bytes() == b'{"model": "opus"}'


def refused(dotfiles_link: Path, message: str) -> None:
    before = snapshot(dotfiles_link.parent.parent)
    for command in ("install", "uninstall"):
        done = hookwright(command, "claude-code", "--user")
        assert done.returncode == 2
        [line] = done.stderr.splitlines()
        assert line.startswith(f"hookwright: error: {dotfiles_link} (a link to ")
        assert line.endswith(message)
        assert snapshot(dotfiles_link.parent.parent) == before


def test_a_link_to_a_missing_file_is_refused(dotfiles_link: Path) -> None:
    target = dotfiles_link.resolve()
    target.unlink()
    before = snapshot(dotfiles_link.parent.parent)
    done = hookwright("install", "claude-code", "--user")
    assert done.returncode == 2
    assert done.stderr == (
        f"hookwright: error: {dotfiles_link} is a link to {target}, which does not exist\n"
    )
    assert snapshot(dotfiles_link.parent.parent) == before


def test_a_link_to_something_not_a_regular_file_is_refused(dotfiles_link: Path) -> None:
    target = dotfiles_link.resolve()
    target.unlink()
    os.mkfifo(target)
    refused(dotfiles_link, ") is not a regular file")


def test_a_link_to_another_users_file_is_refused(dotfiles_link: Path) -> None:
    if os.getuid() != 0:
        pytest.skip("making a file of another user needs root")
    os.chown(dotfiles_link.resolve(), 65534, 65534)
    refused(dotfiles_link, ") belongs to another user (uid 65534)")


def test_the_daemon_pid_file_is_private_and_never_written_through_a_link(
    isolated_home: Path, user_settings: Path
) -> None:
    pid_file = runtime_dir(isolated_home) / "daemon.pid"
    pid_file.symlink_to(user_settings)
    started = hookwright("daemon", "start")
    assert started.returncode == 0, started.stderr
    try:
        assert user_settings.read_bytes() == VICTIM_BYTES and mode(user_settings) == 0o644
        assert not pid_file.is_symlink() and mode(pid_file) == 0o600
        assert int(pid_file.read_text()) > 0
    finally:
        hookwright("daemon", "stop")


def test_a_token_that_cannot_be_stored_is_one_line_and_nothing_is_written(
    project: Path, isolated_home: Path
) -> None:
    (isolated_home / ".hookwright").write_bytes(b"not a folder")
    before = snapshot(project, isolated_home)
    done = hookwright("install", "claude-code", "--project", str(project), "--mode", "http")
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith("hookwright: error: cannot store the daemon's endpoint")
    assert snapshot(project, isolated_home) == before
