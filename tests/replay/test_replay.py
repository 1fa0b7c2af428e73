"""`hookwright replay` over 100 recorded sessions: a handful recorded by real `hookwright run`
sessions with a scripted model, the rest copies of them under new session ids and times. A
stricter candidate hook set is replayed over them: the changed decisions are the ones it
adds, no tool runs (no file of the project changes), and the filters select."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_cli

REAL_RUNS = 5
SESSIONS = 100
OLD_DAY = "2026-01-05"
SCRIPT = """
turns:
  - tool_calls:
      - name: Bash
        arguments: {command: "rm -rf build"}
  - tool_calls:
      - name: Write
        arguments: {file_path: "notes.txt", content: "x"}
  - tool_calls:
      - name: Bash
        arguments: {command: "git status"}
  - tool_calls:
      - name: Read
        arguments: {file_path: "notes.txt"}
  - content: done
"""
GUARDS = """
from hookwright import HookInput, deny


def deny_rm(inp: HookInput):
    return deny("no rm here")


def deny_write(inp: HookInput):
    return deny("writes need review")


def deny_git(inp: HookInput):
    return deny("no git from the agent")
"""
RM_HOOK = """
  - name: no-rm
    event: PreToolUse
    matcher: Bash
    if: "Bash(rm *)"
    call: guards:deny_rm
"""
STRICTER_HOOKS = """
  - name: no-write
    event: PreToolUse
    matcher: Write
    call: guards:deny_write
  - name: no-git
    event: PreToolUse
    matcher: Bash
    if: "Bash(git *)"
    call: guards:deny_git
"""


def hook_folder(folder: Path, hooks: str) -> Path:
    (folder / ".hookwright").mkdir(parents=True)
    (folder / ".hookwright" / "hooks.yaml").write_text("hooks:\n" + hooks)
    (folder / ".hookwright" / "guards.py").write_text(GUARDS)
    return folder


def hookwright(home: Path, audit: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    env.update({"HOME": str(home), "HOOKWRIGHT_AUDIT_LOG": str(audit), "COLUMNS": "200"})
    return run_cli(list(args), env)


def _retimed(line: dict[str, Any], field: str, session: str, old: bool) -> dict[str, Any]:
    line = {**line}
    if "sessionId" in line:
        line["sessionId"] = session
    if "session_id" in line:
        line["session_id"] = session
    if old and isinstance(line.get(field), str):
        line[field] = OLD_DAY + line[field][10:]
    return line


def copy_session(folder: Path, audit: Path, source: str, session: str, old: bool) -> None:
    """A copy of a recorded session (its transcript and its audit records) under a new id,
    dated `OLD_DAY` when `old`."""
    lines = (folder / f"{source}.jsonl").read_text().splitlines()
    copied = [_retimed(json.loads(line), "timestamp", session, old) for line in lines]
    (folder / f"{session}.jsonl").write_text("".join(json.dumps(c) + "\n" for c in copied))
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    mine = [_retimed(r, "ts", session, old) for r in records if r.get("session_id") == source]
    with audit.open("a") as out:
        out.writelines(json.dumps(record) + "\n" for record in mine)


def snapshot(folder: Path) -> dict[str, tuple[int, bytes]]:
    return {
        str(path.relative_to(folder)): (path.stat().st_mtime_ns, path.read_bytes())
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The project, its 100 recorded sessions, the audit and the candidate folder."""
    root = tmp_path_factory.mktemp("replay")
    home, audit = root / "home", root / "audit.jsonl"
    home.mkdir()
    project = hook_folder(root / "project", RM_HOOK)
    (project / "build").mkdir()
    (root / "script.yaml").write_text(SCRIPT)
    model = f"scripted:{root / 'script.yaml'}"
    for _ in range(REAL_RUNS):
        done = hookwright(
            home, audit, "run", "-p", str(project), "-m", model, "--trust",
            "--permission-mode", "bypassPermissions", "go",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    assert (project / "build").is_dir() and (project / "notes.txt").read_text() == "x"
    (project / "notes.txt").unlink()
    folder = next((home / ".hookwright" / "projects").iterdir())
    real = sorted(path.stem for path in folder.glob("*.jsonl"))
    assert len(real) == REAL_RUNS
    for index in range(SESSIONS - REAL_RUNS):
        copy_session(folder, audit, real[index % REAL_RUNS], f"copy-{index:03d}", index % 2 == 0)
    candidate = hook_folder(root / "candidate", RM_HOOK + STRICTER_HOOKS)
    return {"home": home, "audit": audit, "project": project, "folder": folder,
            "candidate": candidate}  # fmt: skip


def replay(recorded: dict[str, Path], *args: str) -> subprocess.CompletedProcess[str]:
    return hookwright(
        recorded["home"], recorded["audit"], "replay", "-p", str(recorded["project"]),
        "--policy", str(recorded["candidate"]), "--trust", *args,
    )  # fmt: skip


def test_a_stricter_candidate_changes_the_calls_it_adds_and_runs_no_tool(
    recorded: dict[str, Path],
) -> None:
    before = snapshot(recorded["project"])
    done = replay(recorded)
    assert done.returncode == 1, done.stderr
    assert snapshot(recorded["project"]) == before
    assert not (recorded["project"] / "notes.txt").exists()
    lines = done.stdout.splitlines()
    changed = [line for line in lines if "→" in line]
    assert len(changed) == 2 * SESSIONS
    assert sum("Write notes.txt  none → deny  (no-write)" in line for line in changed) == SESSIONS
    assert sum("Bash git status  none → deny  (no-git)" in line for line in changed) == SESSIONS
    assert not any("rm -rf" in line or "Read" in line for line in changed)
    assert "  no-git    100 changed" in lines and "  no-write  100 changed" in lines
    assert lines[-1] == (
        f"{2 * SESSIONS} of {4 * SESSIONS} recorded calls in {SESSIONS} sessions "
        "would be decided differently"
    )


def test_json_is_one_document_and_the_filters_select(recorded: dict[str, Path]) -> None:
    done = replay(recorded, "--json", "--session", "copy-007")
    assert done.returncode == 1, done.stderr
    document = json.loads(done.stdout)
    assert (document["replayed"], document["sessions"], document["changed_count"]) == (4, 1, 2)
    assert document["per_hook"] == {"no-git": 1, "no-write": 1}
    write = next(call for call in document["changed"] if call["tool_name"] == "Write")
    assert (write["old"], write["new"], write["hooks"]) == ("none", "deny", ["no-write"])
    assert write["session_id"] == "copy-007" and write["input"] == "notes.txt"
    recent = json.loads(replay(recorded, "--json", "--since", "2026-06-01").stdout)
    old_copies = (SESSIONS - REAL_RUNS + 1) // 2
    assert recent["sessions"] == SESSIONS - old_copies
    early = json.loads(replay(recorded, "--json", "--until", "2026-06-01").stdout)
    assert early["sessions"] == old_copies


def test_the_same_hooks_change_nothing(recorded: dict[str, Path]) -> None:
    """Replaying the project's own hooks (with no SOURCES: the project's transcripts and the
    audit) reproduces every recorded decision, the rm deny included."""
    done = hookwright(
        recorded["home"], recorded["audit"], "replay", "-p", str(recorded["project"]), "--trust"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"0 of {4 * SESSIONS} recorded calls in {SESSIONS} sessions would be decided differently"
    ]
    assert not list(recorded["project"].rglob("__pycache__"))


def test_dropping_a_hook_names_it(recorded: dict[str, Path], tmp_path: Path) -> None:
    looser = hook_folder(tmp_path / "looser", STRICTER_HOOKS)
    done = hookwright(
        recorded["home"], recorded["audit"], "replay", "-p", str(recorded["project"]),
        "--policy", str(looser), "--trust", "--session", "copy-001", str(recorded["folder"]),
        str(recorded["audit"]),
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "copy-001  PreToolUse Bash rm -rf build  deny → none  (no-rm)" in done.stdout


def test_an_untrusted_candidate_is_refused(recorded: dict[str, Path], tmp_path: Path) -> None:
    candidate = tmp_path / "candidate"
    shutil.copytree(recorded["candidate"], candidate)
    done = hookwright(
        recorded["home"], recorded["audit"], "replay", "-p", str(recorded["project"]),
        "--policy", str(candidate),
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("hookwright: error: 3 hooks of ")
    assert "not trusted" in done.stderr and "--trust" in done.stderr
