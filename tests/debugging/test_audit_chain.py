"""The audit as a team reads it: records written by a real `hookwright run` say when (ISO
8601 UTC), where and by whom; `hookwright audit verify` finds an edited, a deleted and a
moved record; rotation by size and by age carries the chain; the filters, the summary and
the exports select and count what they say."""

from __future__ import annotations

import csv
import io
import json
import os
import random
import shutil
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from claude_pin import MEASURED_ON, PIN_ENV
from cli_runner import run_cli
from hookwright import Event, HookEngine, HookInput, HookResult, __version__
from hookwright.core.audit_record import AuditRecord, iso_utc
from hookwright.monitor.audit import AuditLog, rotate
from hookwright.monitor.audit_chain import ChainedFile, RotationRule, record_time

GUARD = "grep -q 'rm ' && { echo 'no rm' >&2; exit 2; } || exit 0"
SCRIPT = """
turns:
  - tool_calls:
      - name: Bash
        arguments: {command: "echo one"}
  - tool_calls:
      - name: Bash
        arguments: {command: "rm -rf build"}
  - tool_calls:
      - name: Bash
        arguments: {command: "echo three"}
  - content: done
"""


def hookwright(
    audit: Path, *args: str, home: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m hookwright ARGS` writing its audit to `audit`, under `home` when given (the
    test's own HOME otherwise)."""
    env = {**os.environ, "HOOKWRIGHT_AUDIT_LOG": str(audit)}
    if home is not None:
        env.update({"HOME": str(home), PIN_ENV: MEASURED_ON})
    return run_cli(list(args), env)


def run_session(tmp_path: Path, audit: Path, home: Path) -> Path:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / "build").mkdir()
    hook = {"type": "command", "command": GUARD}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    script = tmp_path / "script.yaml"
    script.write_text(SCRIPT)
    model = f"scripted:{script}"
    done = hookwright(audit, "run", "-p", str(project), "-m", model, "--trust", "go", home=home)
    assert done.returncode == 0, done.stderr
    return project


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(audit file, project) after one real session, run once for the module's tests that read
    it: 6 records (3 hook runs, 3 permission outcomes)."""
    root = tmp_path_factory.mktemp("session")
    home = root / "home"
    home.mkdir()
    audit = root / "audit.jsonl"
    project = run_session(root, audit, home)
    assert len(audit.read_bytes().splitlines()) == 6
    return audit, project


@pytest.fixture
def recorded(session: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    """The session's audit file copied for this test (which may edit it), and its project."""
    audit = tmp_path / "audit.jsonl"
    shutil.copyfile(session[0], audit)
    return audit, session[1]


def rewrite(audit: Path, change: Any) -> None:
    lines = audit.read_bytes().splitlines(keepends=True)
    audit.write_bytes(b"".join(change(lines)))


def test_records_carry_iso_time_project_host_user_model_and_version(
    recorded: tuple[Path, Path],
) -> None:
    audit, project = recorded
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    first = records[0]
    assert first["ts"].endswith("Z") and first["ts"][10] == "T"
    assert abs(time.time() - (record_time(first["ts"]) or 0)) < 300
    assert {r["project"] for r in records} == {str(project.resolve())}
    assert {r["host"] for r in records} == {"reference agent"}
    assert {r["model"] for r in records} == {"scripted"}
    assert {r["hookwright_version"] for r in records} == {__version__}
    assert all(r["user"] for r in records)
    assert first["genesis"] == "" and all("genesis" not in r for r in records[1:])


def test_verify_holds_on_the_written_file(recorded: tuple[Path, Path]) -> None:
    audit, _ = recorded
    done = hookwright(audit, "audit", "verify")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("ok: 6 records in 1 file chained")


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda ls: [ls[0], ls[1].replace(b'"deny"', b'"allow"', 1), *ls[2:]], 3),
        (lambda ls: [*ls[:2], *ls[3:]], 3),
        (lambda ls: [ls[0], ls[2], ls[1], *ls[3:]], 2),
        (lambda ls: ls[1:], 1),
    ],
    ids=["edited", "deleted", "reordered", "first-deleted"],
)
def test_verify_names_the_first_broken_record(
    recorded: tuple[Path, Path], change: Any, where: int
) -> None:
    audit, _ = recorded
    rewrite(audit, change)
    done = hookwright(audit, "audit", "verify")
    assert done.returncode == 1
    assert done.stdout.startswith(f"broken: {audit}:{where}: "), done.stdout


def test_filters_summary_and_exports(recorded: tuple[Path, Path]) -> None:
    audit, project = recorded
    denied = hookwright(audit, "audit", "--decision", "deny", "--event", "PreToolUse", "--json")
    rows = [json.loads(line) for line in denied.stdout.splitlines()]
    assert [r["tool_input"] for r in rows] == [{"command": "rm -rf build"}]
    hook = f"command:{GUARD}"
    summary = hookwright(audit, "audit", "--summary", "--format", "jsonl", "--hook", hook)
    counts = {r["decision"]: r["count"] for r in map(json.loads, summary.stdout.splitlines())}
    # one deny: the permission outcome the guard decided (`permission.by` "hook", same call,
    # same decision) restates the guard's own record, so the summary counts that decision once
    assert counts == {"deny": 1, "none": 2}
    exported = hookwright(audit, "audit", "--format", "csv", "--project", str(project.parent))
    table = list(csv.DictReader(io.StringIO(exported.stdout)))
    assert len(table) == 6 and table[0]["host"] == "reference agent"
    assert hookwright(audit, "audit", "--since", "1h").stdout.count("\n") == 6
    assert hookwright(audit, "audit", "--until", "2000-01-01").stdout == ""
    assert hookwright(audit, "audit", "--tier", "managed").stdout == ""


def test_no_match_and_bad_lines_are_one_line_each(recorded: tuple[Path, Path]) -> None:
    audit, _ = recorded
    nope = hookwright(audit, "audit", "--session", "nope")
    assert nope.returncode == 0 and nope.stdout == ""
    assert nope.stderr == (
        "hookwright: no audit records match --session nope "
        f"(6 records read from {audit} and its rotated files)\n"
    )
    rewrite(audit, lambda ls: [ls[0], b"not json\n", b'{"x": 1}\n', *ls[1:]])
    shown = hookwright(audit, "audit")
    assert shown.stdout.count("\n") == 6 and "None" not in shown.stdout
    assert shown.stderr.splitlines() == [
        f"hookwright: warning: {audit}:2: not an audit record, skipped",
        f"hookwright: warning: {audit}:3: not an audit record, skipped",
        f"hookwright: warning: 2 lines of {audit} and its rotated files are not audit "
        "records and were skipped",
    ]
    bad = hookwright(audit, "audit", "--since", "yesterday")
    assert bad.returncode == 2 and bad.stderr.startswith("hookwright: error: --since: ")


def test_older_records_with_unix_time_are_read_and_counted_as_unchained(
    tmp_path: Path,
) -> None:
    audit = tmp_path / "audit.jsonl"
    old = {"ts": 1795000000.5, "event": "Stop", "hook": "h", "session_id": "s", "effect": None}
    audit.write_text(json.dumps(old) + "\n")
    log = AuditLog(audit)
    log.note(AuditRecord(1795000001.0, "Stop", "n", "x", "host", "ok", None, 0.0, *[None] * 6))
    log.close()
    shown = hookwright(audit, "audit", "--since", "2026-11-18")
    assert shown.stdout.count("\n") == 2 and shown.stdout.startswith("2026-11-")
    done = hookwright(audit, "audit", "verify")
    assert done.returncode == 0 and "1 older record without a chain" in done.stdout


def fire(engine: HookEngine, count: int) -> None:
    for index in range(count):
        engine.dispatch_sync(HookInput(Event.Stop, session_id=f"s{index}"))
        engine.audit.flush()


def test_rotation_by_size_carries_the_chain_across_files(tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    engine = HookEngine(audit_path=None)
    engine.audit = AuditLog(audit, max_bytes=1500, keep=3)
    engine.add(lambda inp: HookResult(reason="r" * 100), Event.Stop, name="h")
    fire(engine, 8)
    engine.close()
    assert (tmp_path / "audit.jsonl.3").exists()
    done = hookwright(audit, "audit", "verify")
    assert done.returncode == 0 and "in 4 files" in done.stdout, done.stdout
    older = tmp_path / "audit.jsonl.1"
    older.write_bytes(b"".join(older.read_bytes().splitlines(keepends=True)[:-1]))
    broken = hookwright(audit, "audit", "verify")
    assert broken.returncode == 1
    assert broken.stdout.startswith(f"broken: {audit}:1: does not continue the file before it")


def test_rotation_by_age_and_by_day(tmp_path: Path) -> None:
    """A file whose first record is older than `max_age`, or of another UTC day, is rotated
    at the next write; the new file continues the chain."""
    for name, options in (("aged", {"max_age": 60.0}), ("daily", {"daily": True})):
        audit = tmp_path / name / "audit.jsonl"
        log = AuditLog(audit, **options)  # type: ignore[arg-type]
        yesterday = time.time() - 86400
        log.note(AuditRecord(yesterday, "Stop", "old", "x", "host", "ok", None, 0.0, *[None] * 6))
        log.flush()
        log.note(AuditRecord(time.time(), "Stop", "new", "x", "host", "ok", None, 0.0, *[None] * 6))
        log.close()
        assert json.loads((tmp_path / name / "audit.jsonl.1").read_text())["hook"] == "old"
        assert json.loads(audit.read_text())["hook"] == "new"
        assert hookwright(audit, "audit", "verify").returncode == 0


def test_rotation_by_time_off_keeps_one_file(tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    log = AuditLog(audit, max_age=0, daily=False)
    log.note(AuditRecord(1.0, "Stop", "old", "x", "host", "ok", None, 0.0, *[None] * 6))
    log.flush()
    log.note(AuditRecord(time.time(), "Stop", "new", "x", "host", "ok", None, 0.0, *[None] * 6))
    log.close()
    assert [p.name for p in tmp_path.iterdir()] == ["audit.jsonl"]


def test_two_processes_appending_keep_one_chain(tmp_path: Path) -> None:
    """Each process holds the file's lock while it chains and writes its lines."""
    audit = tmp_path / "audit.jsonl"
    code = (
        "import sys\n"
        "from hookwright import Event, HookEngine, HookInput\n"
        "engine = HookEngine(audit_path=sys.argv[1])\n"
        "engine.add(lambda inp: None, Event.Stop, name=sys.argv[2])\n"
        "for i in range(300):\n"
        "    engine.dispatch_sync(HookInput(Event.Stop, session_id=str(i)))\n"
        "    if i % 7 == 0: engine.audit.flush()\n"
        "engine.close()\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(audit), name]) for name in ("a", "b")
    ]
    assert [proc.wait(timeout=120) for proc in procs] == [0, 0]
    assert len(audit.read_bytes().splitlines()) == 600
    done = hookwright(audit, "audit", "verify")
    assert done.returncode == 0, done.stdout


def test_the_written_time_is_read_back_as_datetime_reads_it() -> None:
    """The rotation by age reads the first record's `ts` without `datetime` when it is in the
    form the writer uses: the same seconds, to the microsecond; any other text goes to
    `datetime` (or is no time)."""
    rng = random.Random(7)
    for _ in range(5000):
        text = iso_utc(rng.uniform(-2_000_000_000, 250_000_000_000))
        expected = datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
        assert record_time(text) == expected, text
    for leap in ("2024-02-29T23:59:59.999999Z", "2000-02-29T00:00:00.000000Z"):
        assert record_time(leap) == datetime.fromisoformat(leap[:-1] + "+00:00").timestamp()
    for odd in (
        "2026-02-30T00:00:00.000000Z",
        "1900-02-29T00:00:00.000000Z",
        "0000-01-01T00:00:00.000000Z",
        "2026-01-01T24:00:00.000000Z",
        "２026-01-01T00:00:00.000000Z",
    ):
        assert record_time(odd) is None, odd
    assert record_time("2026-01-01T00:00:00+00:00") == 1767225600.0


def _stop_record(hook: str) -> AuditRecord:
    return AuditRecord(time.time(), "Stop", hook, "x", "host", "ok", None, 0.0, *[None] * 6)


def test_an_open_audit_file_replaced_by_a_link_is_not_written_through(tmp_path: Path) -> None:
    """The writer keeps the file open between batches; a link put at its name meanwhile is
    neither followed nor is the file it had open written: the record is a logged error."""
    audit, moved, target = tmp_path / "audit.jsonl", tmp_path / "moved", tmp_path / "target"
    log = AuditLog(audit, flush_interval=60.0)  # the writer wakes only when flushed
    log.note(_stop_record("first"))
    log.flush()
    os.replace(audit, moved)
    target.write_bytes(b"theirs\n")
    audit.symlink_to(target)
    log.note(_stop_record("second"))
    log.close()
    assert target.read_bytes() == b"theirs\n"
    assert [json.loads(line)["hook"] for line in moved.read_bytes().splitlines()] == ["first"]
    assert audit.is_symlink()


def test_two_logs_rotating_one_file_in_turn_keep_one_chain(tmp_path: Path) -> None:
    """Two audits of one process on one file, each keeping it open while it writes: each
    finds the file the other rotated away and writes to the new one."""
    audit = tmp_path / "audit.jsonl"
    logs = [AuditLog(audit, max_bytes=1200, keep=20, flush_interval=60.0) for _ in range(2)]
    for index in range(12):
        log = logs[index % 2]
        log.note(_stop_record(f"r{index}"))
        log.flush()
    for log in logs:
        log.close()
    rotated = sorted(tmp_path.glob("audit.jsonl.*"), key=lambda path: -int(path.suffix[1:]))
    files = [*rotated, audit]
    hooks = [json.loads(line)["hook"] for path in files for line in path.read_bytes().splitlines()]
    assert hooks == [f"r{index}" for index in range(12)] and len(files) > 3
    done = hookwright(audit, "audit", "verify")
    assert done.returncode == 0, done.stdout


def test_a_closed_log_leaves_no_descriptor_open(tmp_path: Path) -> None:
    before = set(os.listdir("/proc/self/fd"))
    log = AuditLog(tmp_path / "audit.jsonl", flush_interval=60.0)
    log.note(_stop_record("one"))
    log.flush()
    log.close()
    assert set(os.listdir("/proc/self/fd")) <= before


def test_a_forked_process_appends_through_its_own_descriptor(tmp_path: Path) -> None:
    """A process forked while the file is open does not share the parent's descriptor (whose
    lock would then be both processes' at once): both append at the same time, one chain."""
    audit = tmp_path / "audit.jsonl"
    chained = ChainedFile(audit, RotationRule(max_bytes=0, keep=0), rotate)
    chained.append([b'{"hook": "first"'])
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's exit status is the assertion
        try:
            for _ in range(300):
                chained.append([b'{"hook": "child", "pad": "' + b"c" * 2000 + b'"'])
        finally:
            os._exit(0)
    for _ in range(300):
        chained.append([b'{"hook": "parent", "pad": "' + b"p" * 2000 + b'"'])
    chained.release()
    assert os.waitpid(pid, 0)[1] == 0
    assert len(audit.read_bytes().splitlines()) == 601
    done = hookwright(audit, "audit", "verify")
    assert done.returncode == 0, done.stdout
