"""Settings in, settings out, through `install|uninstall claude-code`: strict JSON (what Claude
Code cannot read is a one-line error and the file is left alone), only the `hooks` member
changes, and uninstall gives back the bytes install found."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from cli_runner import run_cli


def hookwright(*args: str) -> subprocess.CompletedProcess[str]:
    """The command line in this test's environment (the spawned install and its files are
    `test_install_files.py`'s)."""
    return run_cli(list(args), dict(os.environ), timeout=60)


def settings_in(project: Path, raw: bytes) -> Path:
    path = project / ".claude" / "settings.local.json"
    path.parent.mkdir()
    path.write_bytes(raw)
    return path


def round_trip(project: Path, raw: bytes) -> tuple[bytes, bytes]:
    """The file's bytes after install, then after uninstall."""
    path = settings_in(project, raw)
    done = hookwright("install", "claude-code", "--project", str(project))
    assert done.returncode == 0, done.stderr
    installed = path.read_bytes()
    done = hookwright("uninstall", "claude-code", "--project", str(project))
    assert done.returncode == 0, done.stderr
    return installed, path.read_bytes()


REFUSED = [
    (b'{"env": {"N": 1e400}}', "env.N is 1e400, not a finite number"),
    (b'{"x": [1, -1E999]}', "x[1] is -1E999, not a finite number"),
    (b'{"timeout": NaN}', "timeout is NaN, not a finite number"),
    (b'{"a": {"b": Infinity}}', "a.b is Infinity, not a finite number"),
    (b'{"env": {"A": "x\\ud800"}}', "env.A holds a lone surrogate (\\ud800)"),
    (b'{"\\udfff": 1}', '["\\udfff"] holds a lone surrogate (\\udfff)'),
    (b'{"hooks": null}', "hooks must be an object, found null"),
    (b'{"hooks": ["Stop"]}', "hooks must be an object, found list"),
    (b'{"hooks": {"Stop": null}}', "hooks.Stop must be a list, found null"),
    (b'{"hooks": {"Stop": "true"}}', "hooks.Stop must be a list, found string"),
    (b'{"hooks": {"Stop": {"hooks": []}}}', "hooks.Stop must be a list, found object"),
    (b'{"hooks": {"Stop": 3}}', "hooks.Stop must be a list, found number"),
    (b'{"hooks": {"My Event\\n": true}}', 'hooks["My Event\\n"] must be a list, found boolean'),
    (b'{"a": ' + b"[" * 200 + b"]" * 200 + b"}", "nesting is deeper than 200 levels"),
    (b"\xef\xbb\xbf{}", "is not valid JSON"),
    (b'{"a": "\xff"}', "is not valid UTF-8 (at byte 7)"),
]


@pytest.mark.parametrize(("raw", "message"), REFUSED)
def test_what_claude_code_cannot_read_is_one_line_and_left_alone(
    tmp_path: Path, isolated_home: Path, raw: bytes, message: str
) -> None:
    path = settings_in(tmp_path, raw)
    for command in ("install", "uninstall"):
        done = hookwright(command, "claude-code", "--project", str(tmp_path))
        assert done.returncode == 2 and done.stdout == ""
        [line] = done.stderr.splitlines()
        assert line.startswith(f"hookwright: error: {path}")
        assert message in line
        assert path.read_bytes() == raw
    assert not (isolated_home / ".hookwright").exists()


def test_only_the_hooks_member_changes(tmp_path: Path) -> None:
    before_hooks = (
        b'{\n    "env": {"A":   "1",  "B": 1.50e2, "C": "\\u00e9\xc3\xa9"},\n    "hooks": '
    )
    after_hooks = b',\n    "model": "opus",   "n": 12345678901234567890123\n}\r\n'
    raw = before_hooks + b'{"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}'
    raw += after_hooks
    installed, restored = round_trip(tmp_path, raw)
    assert installed.startswith(before_hooks) and installed.endswith(after_hooks)
    hooks = json.loads(installed)["hooks"]
    assert hooks["Stop"][0] == {"hooks": [{"type": "command", "command": "true"}]}
    assert b'\n    "hooks": {\n        "Stop": [\n            {\n' in installed
    assert restored == raw


def test_a_missing_hooks_member_is_inserted_in_the_files_style(tmp_path: Path) -> None:
    raw = b'{\r\n\t"model": "opus",\r\n\t"permissions": {"allow": []}\r\n}\r\n'
    installed, restored = round_trip(tmp_path, raw)
    start = b'{\r\n\t"model": "opus",\r\n\t"permissions": {"allow": []},\r\n\t"hooks": {\r\n\t\t"'
    assert installed.startswith(start) and installed.endswith(b"\r\n\t}\r\n}\r\n")
    assert b"\n " not in installed
    assert restored == raw


def test_a_one_line_file_stays_on_one_line(tmp_path: Path) -> None:
    raw = b'{"model":"opus"}'
    installed, restored = round_trip(tmp_path, raw)
    assert installed.startswith(b'{"model":"opus","hooks":{"SessionStart":[{"hooks":[{')
    assert b"\n" not in installed and restored == raw


def test_empty_hooks_come_back_as_they_were(tmp_path: Path) -> None:
    raw = b'{"hooks": {}}'
    installed, restored = round_trip(tmp_path, raw)
    assert installed.startswith(b'{"hooks": {"SessionStart": [{"hooks": [{"type": "command"')
    assert restored == raw


def test_empty_hooks_stay_when_the_file_changed_since_install(tmp_path: Path) -> None:
    path = settings_in(tmp_path, b'{"hooks": {"Stop": []}}\n')
    assert hookwright("install", "claude-code", "--project", str(tmp_path)).returncode == 0
    edited = path.read_bytes().replace(b"{", b'{"model": "opus", ', 1)
    path.write_bytes(edited)
    assert hookwright("uninstall", "claude-code", "--project", str(tmp_path)).returncode == 0
    assert path.read_bytes() == b'{"model": "opus", "hooks": {"Stop": []}}\n'


def test_a_hooks_member_install_added_leaves_with_it(tmp_path: Path) -> None:
    path = settings_in(tmp_path, b'{\n  "model": "opus"\n}\n')
    assert hookwright("install", "claude-code", "--project", str(tmp_path)).returncode == 0
    path.write_bytes(path.read_bytes().replace(b'"opus"', b'"sonnet"'))
    assert hookwright("uninstall", "claude-code", "--project", str(tmp_path)).returncode == 0
    assert path.read_bytes() == b'{\n  "model": "sonnet"\n}\n'


def test_duplicate_hooks_members_keep_json_meaning(tmp_path: Path) -> None:
    """The last `hooks` counts (for Python and for JavaScript): that one is changed, the
    earlier one keeps its bytes."""
    first = b'{"hooks": {"Stop": "ignored by every reader"}, "model": "opus", "hooks": '
    raw = first + b"{}}"
    installed, restored = round_trip(tmp_path, raw)
    assert installed.startswith(first) and "Stop" in json.loads(installed)["hooks"]
    assert restored == raw


def test_numbers_strings_and_nesting_outside_hooks_keep_their_bytes(tmp_path: Path) -> None:
    rest = (
        b'"a": 1.0, "b": -0, "c": 1E+2, "d": 123456789012345678901234567890, '
        b'"e": "\\ud83d\\ude00 \xf0\x9f\x98\x80 \\/ \\u0000", "f": [[[{"g": null}]]], '
        b'"deep": ' + b"[" * 199 + b"]" * 199
    )
    raw = b"{" + rest + b"}"
    installed, restored = round_trip(tmp_path, raw)
    assert installed.startswith(b"{" + rest + b', "hooks": {')
    assert restored == raw
