"""The one way hookwright writes a file for the user (`hookwright.config.private_files`): a
temporary file created exclusively next to the target, 0600 from its first byte, renamed onto the
target; folders it creates 0700; links at any name it uses replaced or refused, never followed. Each
attack plants links at the names the code would use and checks that the file they point at keeps its
bytes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_runner import run_cli
from hookwright import Event, HookEngine, HookInput, HookResult
from hookwright.config.private_files import (
    TEMP_SUFFIX,
    append_private,
    open_private,
    replacing,
    touch_private,
    write_private,
)
from hookwright.monitor.audit import rotate
from hookwright.runtime.permissions import PermissionPolicy

VICTIM_BYTES = b'{"permissions": {"deny": ["Bash(rm *)"]}}\n'


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A file of the user's that no write may reach: 0644, known bytes."""
    path = tmp_path / "victim" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(VICTIM_BYTES)
    path.chmod(0o644)
    return path


def untouched(victim: Path) -> bool:
    return victim.read_bytes() == VICTIM_BYTES and mode(victim) == 0o644


@pytest.fixture
def open_umask() -> Iterator[None]:
    """umask 0: whatever mode hookwright ends up with is the one it asked for."""
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


def temps_in(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if p.name.endswith(TEMP_SUFFIX)]


def test_the_temporary_file_is_0600_before_its_first_byte(tmp_path: Path, open_umask: None) -> None:
    target = tmp_path / "settings.json"
    with replacing(target, mode=0o644) as out:
        [temp] = temps_in(tmp_path)
        assert temp.name.startswith(".settings.json.") and temp.parent == tmp_path
        assert stat.S_IMODE(os.fstat(out.fileno()).st_mode) == 0o600
        assert mode(temp) == 0o600 and stat.S_ISREG(os.lstat(temp).st_mode)
        assert not target.exists()
        out.write(b"{}")
        out.flush()
        assert mode(temp) == 0o600
    assert target.read_bytes() == b"{}" and mode(target) == 0o644
    assert temps_in(tmp_path) == []


def test_folders_it_creates_are_0700_and_files_0600(tmp_path: Path, open_umask: None) -> None:
    target = tmp_path / "a" / "b" / "c" / "token.json"
    write_private(target, b"secret")
    assert [mode(p) for p in (target.parent, target.parent.parent, tmp_path / "a")] == [0o700] * 3
    assert mode(target) == 0o600 and target.read_bytes() == b"secret"


def test_an_existing_folder_keeps_its_mode(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    write_private(tmp_path / "f", b"x")
    assert mode(tmp_path) == 0o755


def test_a_link_at_the_target_is_replaced_not_followed(tmp_path: Path, victim: Path) -> None:
    target = tmp_path / "settings.json"
    target.symlink_to(victim)
    write_private(target, b"mine")
    assert untouched(victim)
    assert not target.is_symlink() and target.read_bytes() == b"mine" and mode(target) == 0o600


def test_links_at_temporary_names_are_skipped_never_followed(
    tmp_path: Path, victim: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even with a predictable name: each planted link (to the victim, or dangling to a file
    that would be created) makes that name taken; the next free name is used."""
    target = tmp_path / "settings.json"
    names = [tmp_path / f".settings.json.{n}{TEMP_SUFFIX}" for n in range(3)]
    names[0].symlink_to(victim)
    names[1].symlink_to(tmp_path / "created-through-link")
    served = iter(names)
    monkeypatch.setattr("hookwright.config.private_files.temp_path", lambda target: next(served))
    write_private(target, b"mine")
    assert untouched(victim) and not (tmp_path / "created-through-link").exists()
    assert target.read_bytes() == b"mine" and not names[2].exists()
    assert names[0].is_symlink() and names[1].is_symlink()


def test_when_every_temporary_name_is_a_link_nothing_is_written(
    tmp_path: Path, victim: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted = tmp_path / f".settings.json.x{TEMP_SUFFIX}"
    planted.symlink_to(victim)
    monkeypatch.setattr("hookwright.config.private_files.temp_path", lambda target: planted)
    with pytest.raises(FileExistsError):
        write_private(tmp_path / "settings.json", b"mine")
    assert untouched(victim) and not (tmp_path / "settings.json").exists()


def test_a_link_placed_where_a_folder_is_being_made_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folder is found missing, then a link takes its name before `mkdir` (simulated by
    hiding the link from the first look): the write stops, nothing lands behind the link."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "installs").symlink_to(elsewhere)
    real_lexists = os.path.lexists
    monkeypatch.setattr(
        os.path, "lexists", lambda p: Path(p).name != "installs" and real_lexists(p)
    )
    with pytest.raises(FileExistsError):
        write_private(tmp_path / "installs" / "backup.json", b"x")
    assert list(elsewhere.iterdir()) == []


def test_a_failed_write_leaves_the_target_and_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(b"before")
    with pytest.raises(RuntimeError), replacing(target) as out:
        out.write(b"half")
        raise RuntimeError("disk full")
    assert target.read_bytes() == b"before" and temps_in(tmp_path) == []


def test_text_writes_go_the_same_way(tmp_path: Path, victim: Path) -> None:
    target = tmp_path / "out" / "long.txt"
    target.parent.mkdir()
    target.symlink_to(victim)
    with open_private(target) as text:
        text.write("é" * 3)
    assert untouched(victim) and target.read_text(encoding="utf-8") == "ééé"
    assert mode(target) == 0o600


def test_appends_and_touches_refuse_a_link(tmp_path: Path, victim: Path) -> None:
    link = tmp_path / "audit.jsonl"
    link.symlink_to(victim)
    with pytest.raises(OSError):
        append_private(link, [b"line\n"])
    with pytest.raises(OSError):
        touch_private(link)
    assert untouched(victim)


def test_appends_refuse_a_fifo_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "audit.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(OSError):
        append_private(fifo, [b"line\n"])


def test_appends_make_an_existing_file_0600(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_bytes(b"one\n")
    path.chmod(0o644)
    append_private(path, [b"two\n"])
    assert path.read_bytes() == b"one\ntwo\n" and mode(path) == 0o600


def test_an_audit_path_that_is_a_link_is_not_written_through(tmp_path: Path, victim: Path) -> None:
    path = tmp_path / "audit.jsonl"
    path.symlink_to(victim)
    engine = HookEngine(audit_path=path)
    engine.add(lambda inp: HookResult(reason="r"), Event.Stop, name="h")
    engine.dispatch_sync(HookInput(Event.Stop, session_id="s"))
    engine.close()
    assert untouched(victim) and path.is_symlink()


def test_rotation_moves_links_as_names(tmp_path: Path, victim: Path) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_bytes(b"old\n")
    (tmp_path / "audit.jsonl.1").symlink_to(victim)
    rotate(path, keep=2)
    assert untouched(victim)
    assert (tmp_path / "audit.jsonl.2").is_symlink() and (tmp_path / "audit.jsonl.1").read_bytes()
    assert not path.exists()


def hookwright(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(list(args), dict(os.environ), timeout=60)


def test_trust_store_is_private_and_never_written_through_links(
    isolated_home: Path, tmp_path: Path, victim: Path, open_umask: None
) -> None:
    folder = isolated_home / ".hookwright"
    store = folder / "trust.json"
    done = hookwright("trust", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert mode(folder) == 0o700 and mode(store) == 0o600
    victim.write_bytes(b'{"trusted": []}')
    for planted in (store, folder / "trust.tmp", folder / f".trust.json{TEMP_SUFFIX}"):
        planted.unlink(missing_ok=True)
        planted.symlink_to(victim)
    done = hookwright("trust", str(tmp_path / "victim"))
    assert done.returncode == 0, done.stderr
    assert victim.read_bytes() == b'{"trusted": []}'
    assert not store.is_symlink() and mode(store) == 0o600
    assert json.loads(store.read_text())["trusted"] == [str((tmp_path / "victim").resolve())]


def test_persisted_permission_rules_keep_the_file_mode_and_skip_links(
    tmp_path: Path, victim: Path
) -> None:
    settings = tmp_path / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "opus"}')
    settings.chmod(0o640)
    (settings.parent / ".settings.local.json.tmp").symlink_to(victim)
    policy = PermissionPolicy(project_dir=tmp_path)
    update = {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "ls"}]}
    policy.apply_updates([{**update, "behavior": "allow", "destination": "localSettings"}])
    assert untouched(victim) and mode(settings) == 0o640
    saved = json.loads(settings.read_text())
    assert saved == {"model": "opus", "permissions": {"allow": ["Bash(ls)"]}}
