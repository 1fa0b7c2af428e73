"""The audit file: 0600 in a 0700 folder, rotated by size."""

from __future__ import annotations

import getpass
import json
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from hookwright import Event, HookEngine, HookInput, HookResult
from hookwright.monitor.audit import AuditLog


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def fire(engine: HookEngine, times: int) -> None:
    for index in range(times):
        engine.dispatch_sync(HookInput(Event.Stop, session_id=f"s{index}"))
    engine.audit.flush()


def engine_with(path: Path) -> HookEngine:
    engine = HookEngine(audit_path=path)
    engine.add(lambda inp: HookResult(reason="r" * 100), Event.Stop, name="h")
    return engine


def test_audit_file_and_new_folder_are_private(tmp_path: Path) -> None:
    path = tmp_path / "new" / "deeper" / "audit.jsonl"
    engine = engine_with(path)
    fire(engine, 1)
    engine.close()
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700 and mode(path.parent.parent) == 0o700
    assert json.loads(path.read_text())["hook"] == "h"


def test_audit_rotates_by_size_and_keeps_n_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOOKWRIGHT_AUDIT_MAX_BYTES", "300")
    monkeypatch.setenv("HOOKWRIGHT_AUDIT_KEEP", "2")
    path = tmp_path / "audit.jsonl"
    engine = engine_with(path)
    for index in range(6):
        engine.dispatch_sync(HookInput(Event.Stop, session_id=f"s{index}"))
        engine.audit.flush()
    engine.close()
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2"]
    sessions = [
        json.loads(line)["session_id"]
        for name in ("audit.jsonl.2", "audit.jsonl.1", "audit.jsonl")
        for line in (tmp_path / name).read_text().splitlines()
    ]
    assert sessions == ["s3", "s4", "s5"]
    assert all(mode(tmp_path / name) == 0o600 for name in names)


def test_rotation_off_with_zero(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    engine = HookEngine(audit_path=None)
    engine.audit = AuditLog(path, max_bytes=0)
    engine.add(lambda inp: HookResult(reason="r" * 100), Event.Stop, name="h")
    fire(engine, 5)
    engine.close()
    assert len(path.read_text().splitlines()) == 5


def test_records_are_json_dumps_lines_and_odd_values_do_not_stop_the_writer(
    tmp_path: Path,
) -> None:
    path = tmp_path / "audit.jsonl"
    seen: list[str] = []
    engine = HookEngine(audit_path=path)
    engine.add_audit_callback(lambda record: seen.append(record.hook))
    engine.add(lambda inp: HookResult(reason="naïve \ud800"), Event.Stop, name="odd")
    engine.add(lambda inp: HookResult(patches={"x": {"set": {1}}}), Event.Stop, name="set")
    fire(engine, 2)
    engine.close()
    lines = path.read_text().splitlines()
    assert [json.loads(line)["hook"] for line in lines] == ["odd", "set", "odd", "set"]
    assert lines[0].startswith('{"ts": ') and '"hook": "odd", ' in lines[0]
    assert json.loads(lines[0])["reason"] == "naïve ?"
    assert json.loads(lines[1])["patch"] == {"x": {"set": "{1}"}}
    assert seen == ["odd", "set", "odd", "set"]


def test_a_log_written_on_close_starts_no_writer_and_keeps_every_record(tmp_path: Path) -> None:
    """A process answering one event (`write_on_close`): the records wait for the close and
    are written then by the closing thread, in order, chained as the writer chains them."""
    path = tmp_path / "audit.jsonl"
    engine = engine_with(path)
    engine.audit.write_on_close()
    for index in range(3):
        engine.dispatch_sync(HookInput(Event.Stop, session_id=f"s{index}"))
    assert "hookwright-audit" not in {thread.name for thread in threading.enumerate()}
    assert not path.exists()
    engine.close()
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [record["session_id"] for record in records] == ["s0", "s1", "s2"]
    assert records[1]["prev"] and records[1]["prev"] != records[2]["prev"]
    assert mode(path) == 0o600


#: A process that answers with a log written on close and exits without closing it.
UNCLOSED = """\
import sys
from hookwright import Event, HookEngine, HookInput, HookResult
engine = HookEngine(audit_path=sys.argv[1])
engine.add(lambda inp: HookResult(reason="r"), Event.Stop, name="h")
engine.audit.write_on_close()
engine.dispatch_sync(HookInput(Event.Stop, session_id="left"))
"""


def test_a_log_written_on_close_is_written_at_exit_when_never_closed(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", UNCLOSED, str(path)], capture_output=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(path.read_text())["session_id"] == "left"


@pytest.mark.parametrize("variable", [None, "LOGNAME", "USER", "LNAME", "USERNAME"])
def test_the_records_name_the_user_getpass_names(
    variable: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.delenv(name, raising=False)
    if variable is not None:
        monkeypatch.setenv(variable, f"someone-{variable}")
    assert AuditLog(None).about.user == getpass.getuser()
