"""A YAML file read before is read back from the user's cache without loading PyYAML, and the
cache never answers for a text it was not made from: an edit is read fresh even when the size
and times are kept, and an entry that is a link, another user's, open to others, in a folder
open to others or naming another text is passed over for the file itself."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hookwright.config import yaml_cache
from hookwright.config.safeparse import read_yaml

HOOKS = "hooks:\n  - name: guard\n    event: PreToolUse\n    call: guard:guard\n"
PARSED = {"hooks": [{"name": "guard", "event": "PreToolUse", "call": "guard:guard"}]}
FORGED = {"hooks": [{"name": "forged", "event": "PreToolUse", "call": "evil:run"}]}
#: One process reading the file: its value and whether PyYAML was loaded, as JSON.
READ = (
    "import json, sys\n"
    "from pathlib import Path\n"
    "from hookwright.config.safeparse import read_yaml\n"
    "value = read_yaml(Path(sys.argv[1]))\n"
    "print(json.dumps({'value': value, 'yaml': 'yaml' in sys.modules}))\n"
)


def read_in_process(path: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", READ, str(path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, object] = json.loads(done.stdout)
    return answer


def entry_of(text: str) -> Path:
    return yaml_cache.cache_dir(Path.home()) / f"{yaml_cache._key(text)}.json"


def forge(text: str, value: object) -> Path:
    """An entry for `text` whose value is `value` (what an attacker would plant)."""
    entry = entry_of(text)
    entry.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    entry.write_text(json.dumps({"key": yaml_cache._key(text), "value": value}))
    entry.chmod(0o600)
    return entry


@pytest.fixture
def hooks_yaml(tmp_path: Path) -> Path:
    path = tmp_path / "hooks.yaml"
    path.write_text(HOOKS)
    return path


def test_a_file_read_before_is_read_without_pyyaml(hooks_yaml: Path) -> None:
    assert read_in_process(hooks_yaml) == {"value": PARSED, "yaml": True}
    assert read_in_process(hooks_yaml) == {"value": PARSED, "yaml": False}
    entry = entry_of(HOOKS)
    assert entry.stat().st_mode & 0o777 == 0o600
    assert entry.parent.stat().st_mode & 0o777 == 0o700


def test_an_edit_keeping_size_and_times_is_read_fresh(hooks_yaml: Path) -> None:
    assert read_yaml(hooks_yaml) == PARSED
    before = hooks_yaml.stat()
    hooks_yaml.write_text(HOOKS.replace("guard:guard", "guard:other"))
    os.utime(hooks_yaml, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert hooks_yaml.stat().st_size == before.st_size
    assert read_in_process(hooks_yaml)["value"] == {
        "hooks": [{"name": "guard", "event": "PreToolUse", "call": "guard:other"}]
    }


def test_a_planted_entry_is_what_a_cache_holds(hooks_yaml: Path) -> None:
    """The control for the hostile cases below: a private entry of this user is read."""
    forge(HOOKS, FORGED)
    assert read_yaml(hooks_yaml) == FORGED


def test_a_link_in_place_of_the_entry_is_not_followed(hooks_yaml: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps({"key": yaml_cache._key(HOOKS), "value": FORGED}))
    elsewhere.chmod(0o600)
    entry = entry_of(HOOKS)
    entry.parent.mkdir(parents=True, mode=0o700)
    entry.symlink_to(elsewhere)
    assert read_yaml(hooks_yaml) == PARSED
    assert not entry.is_symlink()  # replaced by an entry of its own
    assert json.loads(elsewhere.read_text())["value"] == FORGED


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user needs root")
def test_another_users_entry_is_passed_over(hooks_yaml: Path) -> None:
    os.chown(forge(HOOKS, FORGED), 65534, 65534)
    assert read_yaml(hooks_yaml) == PARSED


def test_an_entry_open_to_others_is_passed_over(hooks_yaml: Path) -> None:
    forge(HOOKS, FORGED).chmod(0o644)
    assert read_yaml(hooks_yaml) == PARSED


def test_a_folder_open_to_others_is_neither_read_nor_written(hooks_yaml: Path) -> None:
    entry = forge(HOOKS, FORGED)
    entry.parent.chmod(0o755)
    assert read_yaml(hooks_yaml) == PARSED
    assert json.loads(entry.read_text())["value"] == FORGED  # left as found


@pytest.mark.skipif(os.getuid() != 0, reason="giving a folder to another user needs root")
def test_a_home_of_another_user_gets_no_entry(hooks_yaml: Path) -> None:
    """As under `sudo` keeping HOME: the file is read, nothing is written in that home, and
    an entry planted there (by its owner) is not what the file says."""
    home = Path.home()
    home.mkdir(parents=True, exist_ok=True)
    os.chown(home, 65534, 65534)
    assert read_in_process(hooks_yaml)["value"] == PARSED
    assert not yaml_cache.cache_dir(home).exists()
    forge(HOOKS, FORGED)
    assert read_in_process(hooks_yaml) == {"value": PARSED, "yaml": True}


def test_an_entry_naming_another_text_is_passed_over(hooks_yaml: Path) -> None:
    entry = forge(HOOKS, FORGED)
    entry.write_text(json.dumps({"key": yaml_cache._key("other"), "value": FORGED}))
    assert read_yaml(hooks_yaml) == PARSED


@pytest.mark.parametrize("text", ["when: 2024-01-02\n", "1: one\n", "x: .nan\n"])
def test_a_value_json_would_change_is_not_kept(tmp_path: Path, text: str) -> None:
    path = tmp_path / "f.yaml"
    path.write_text(text)
    read_yaml(path)
    value = read_yaml(path)
    assert not entry_of(text).exists()
    if text.startswith("when"):
        assert isinstance(value["when"], datetime.date)
    elif text.startswith("1"):
        assert value == {1: "one"}


def test_the_folder_is_emptied_when_full(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yaml_cache, "MAX_ENTRIES", 3)
    for number in range(4):
        path = tmp_path / f"{number}.yaml"
        path.write_text(f"n: {number}\n")
        assert read_yaml(path) == {"n": number}
    assert [p.name for p in yaml_cache.cache_dir(Path.home()).iterdir()] == [
        entry_of("n: 3\n").name
    ]
