"""A hook module compiled before is read back from the user's cache, and the cache never
answers for bytes it was not made from: an edit is compiled fresh even when it keeps the size
and times, and an entry that is a link, another user's, open to others, in a folder open to
others, cut short, not code or compiled for another file is passed over for the file itself;
in a home folder that is not this user's nothing is written."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookwright.config import hook_code_cache
from hookwright.dialects.native import _import_from

GUARD = "def guard(inp):\n    return 'real'\n"
FORGED = "def guard(inp):\n    return 'forged'\n"
#: One process loading `guard:guard` from the folder argv[1]: what it returns and whether the
#: hook file was compiled from source.
LOAD = (
    "import builtins, json, sys\n"
    "from pathlib import Path\n"
    "from hookwright.dialects.native import _import_from\n"
    "compiled, compile_source = [], builtins.compile\n"
    "def compile(source, filename, *args, **kwargs):\n"
    "    compiled.append(str(filename))\n"
    "    return compile_source(source, filename, *args, **kwargs)\n"
    "builtins.compile = compile\n"
    "value = _import_from(Path(sys.argv[1]), 'guard:guard')(None)\n"
    "hook = str(Path(sys.argv[1]) / 'guard.py')\n"
    "print(json.dumps({'value': value, 'compiled': hook in compiled}))\n"
)


def load_in_process(folder: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", LOAD, str(folder)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, object] = json.loads(done.stdout)
    return answer


@pytest.fixture
def hook_file(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "project"
    folder.mkdir()
    path = folder / "guard.py"
    path.write_text(GUARD)
    before = set(sys.modules)
    yield path
    for name in set(sys.modules) - before:  # each load below is a fresh import of the file
        del sys.modules[name]


def loaded(path: Path) -> object:
    for name in [name for name in sys.modules if name.startswith("_hookwright_user_")]:
        del sys.modules[name]
    return _import_from(path.parent, "guard:guard")(None)


def entry_of(path: Path, text: str) -> Path:
    key = hook_code_cache.entry_key(text.encode(), str(path))
    return hook_code_cache.cache_dir(Path.home()) / f"{key}.marshal"


def forge(path: Path, text: str, payload: str, *, compiled_as: str | None = None) -> Path:
    """An entry for `path` holding `text` whose code is `payload` (what an attacker would
    plant)."""
    entry = entry_of(path, text)
    entry.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    entry.parent.chmod(0o700)
    entry.write_bytes(marshal.dumps(compile(payload, compiled_as or str(path), "exec")))
    entry.chmod(0o600)
    return entry


def test_a_hook_compiled_before_is_not_compiled_again(hook_file: Path) -> None:
    assert load_in_process(hook_file.parent) == {"value": "real", "compiled": True}
    assert load_in_process(hook_file.parent) == {"value": "real", "compiled": False}
    entry = entry_of(hook_file, GUARD)
    assert entry.stat().st_mode & 0o777 == 0o600
    assert entry.parent.stat().st_mode & 0o777 == 0o700


def test_an_edit_keeping_size_and_times_is_compiled_fresh(hook_file: Path) -> None:
    assert loaded(hook_file) == "real"
    before = hook_file.stat()
    hook_file.write_text(GUARD.replace("real", "new!"))
    os.utime(hook_file, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert hook_file.stat().st_size == before.st_size
    assert load_in_process(hook_file.parent) == {"value": "new!", "compiled": True}


def test_a_planted_entry_is_what_a_cache_holds(hook_file: Path) -> None:
    """The control for the hostile cases below: a private entry of this user is run."""
    forge(hook_file, GUARD, FORGED)
    assert loaded(hook_file) == "forged"


def test_a_link_in_place_of_the_entry_is_not_followed(hook_file: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.marshal"
    elsewhere.write_bytes(marshal.dumps(compile(FORGED, str(hook_file), "exec")))
    elsewhere.chmod(0o600)
    entry = entry_of(hook_file, GUARD)
    entry.parent.mkdir(parents=True, mode=0o700)
    entry.symlink_to(elsewhere)
    assert loaded(hook_file) == "real"
    assert not entry.is_symlink()  # replaced by an entry of its own
    assert loaded(hook_file) == "real"


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user needs root")
def test_another_users_entry_is_passed_over(hook_file: Path) -> None:
    os.chown(forge(hook_file, GUARD, FORGED), 65534, 65534)
    assert loaded(hook_file) == "real"


def test_an_entry_open_to_others_is_passed_over(hook_file: Path) -> None:
    forge(hook_file, GUARD, FORGED).chmod(0o644)
    assert loaded(hook_file) == "real"


def test_a_folder_open_to_others_is_neither_read_nor_written(hook_file: Path) -> None:
    entry = forge(hook_file, GUARD, FORGED)
    planted = entry.read_bytes()
    entry.parent.chmod(0o755)
    assert loaded(hook_file) == "real"
    assert entry.read_bytes() == planted  # left as found


@pytest.mark.parametrize("damage", ["truncated", "not code", "garbage"])
def test_a_damaged_entry_is_compiled_again(hook_file: Path, damage: str) -> None:
    entry = forge(hook_file, GUARD, FORGED)
    raw = entry.read_bytes()
    entry.write_bytes(
        {"truncated": raw[: len(raw) // 2], "not code": marshal.dumps({"x": 1})}.get(
            damage, b"\xff" * 40
        )
    )
    assert loaded(hook_file) == "real"
    assert loaded(hook_file) == "real"  # from the entry written in its place


def test_code_compiled_for_another_file_is_passed_over(hook_file: Path) -> None:
    forge(hook_file, GUARD, FORGED, compiled_as="/elsewhere/guard.py")
    assert loaded(hook_file) == "real"


@pytest.mark.skipif(os.getuid() != 0, reason="giving a folder to another user needs root")
def test_a_home_of_another_user_gets_no_entry(hook_file: Path) -> None:
    home = Path.home()
    home.mkdir(parents=True, exist_ok=True)
    os.chown(home, 65534, 65534)
    assert loaded(hook_file) == "real"
    assert not hook_code_cache.cache_dir(home).exists()
