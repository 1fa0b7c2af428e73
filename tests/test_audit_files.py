"""The audit file: 0600 in a 0700 folder, rotated by size."""

from __future__ import annotations

import json
import stat
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
