"""`hooks test --from-transcript` replays a call recorded by `hookwright run`; `hookwright audit`
reads what the run's hooks did; both as real subprocesses."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bounds import GENEROUS_BOUND
from cli_runner import run_hookwright

RECORDER = """\
import json, sys
from pathlib import Path
def record(inp):
    with open(Path(__file__).parent / "seen.jsonl", "a") as fh:
        fh.write(json.dumps(inp.to_wire()) + "\\n")
    return None
def dry_run(inp):
    return {"updated_input": {"command": inp.tool_input["command"] + " --dry-run"}}
"""

SCRIPT = """\
turns:
  - content: listing
    tool_calls: [{name: Bash, arguments: {command: "echo first"}}]
  - content: pushing
    tool_calls: [{name: Bash, arguments: {command: "echo push"}}]
  - content: done
"""


def project_with_recorder(root: Path) -> Path:
    (root / ".hookwright").mkdir(parents=True)
    (root / ".hookwright" / "rec.py").write_text(RECORDER)
    (root / ".hookwright" / "hooks.yaml").write_text(
        "hooks:\n"
        "  - {name: recorder, event: PreToolUse, call: 'rec:record'}\n"
        "  - {name: dry, event: PreToolUse, if: 'Bash(echo push*)', call: 'rec:dry_run'}\n"
        "  - {name: after, event: PostToolUse, call: 'rec:record'}\n"
    )
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(echo *)"]}})
    )
    (root / "script.yaml").write_text(SCRIPT)
    return root


def run_session(project: Path, home: Path) -> list[dict[str, Any]]:
    proc = run_hookwright(
        "run",
        "go",
        "-p",
        str(project),
        "--trust",
        "--json",
        "--model",
        f"scripted:{project / 'script.yaml'}",
        home=home,
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def seen(project: Path) -> list[dict[str, Any]]:
    path = project / ".hookwright" / "seen.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_recorded_call_is_replayed_to_the_hooks(tmp_path: Path, isolated_home: Path) -> None:
    project = project_with_recorder(tmp_path / "proj")
    events = run_session(project, isolated_home)
    start = events[0]
    calls = [e for e in events if e["type"] == "tool_call"]
    first_id = calls[0]["id"]
    (project / ".hookwright" / "seen.jsonl").unlink()
    proc = run_hookwright(
        "hooks",
        "test",
        "PreToolUse",
        "-p",
        str(project),
        "--from-transcript",
        start["transcript"],
        "--tool-use",
        first_id,
        home=isolated_home,
    )
    assert proc.returncode == 0, proc.stderr
    [replayed] = seen(project)
    assert replayed["tool_name"] == "Bash"
    assert replayed["tool_input"] == {"command": "echo first"}
    assert replayed["tool_use_id"] == first_id
    assert replayed["session_id"] == start["session_id"]
    assert replayed["transcript_path"] == start["transcript"]
    last = run_hookwright(
        "hooks",
        "test",
        "PreToolUse",
        "-p",
        str(project),
        "--from-transcript",
        start["transcript"],
        home=isolated_home,
    )
    verdict = json.loads(last.stdout)
    assert verdict["updated_input"] == {"command": "echo push --dry-run"}


def test_post_tool_use_replay_carries_the_result(tmp_path: Path, isolated_home: Path) -> None:
    """The replayed tool_response is the structured Bash result the transcript recorded, the
    same object the live PostToolUse hook read during the run, not only the text."""
    project = project_with_recorder(tmp_path / "proj")
    start = run_session(project, isolated_home)[0]
    live = [r for r in seen(project) if r["hook_event_name"] == "PostToolUse"]
    (project / ".hookwright" / "seen.jsonl").unlink()
    proc = run_hookwright(
        "hooks",
        "test",
        "PostToolUse",
        "-p",
        str(project),
        "--from-transcript",
        start["transcript"],
        home=isolated_home,
    )
    assert proc.returncode == 0, proc.stderr
    [replayed] = seen(project)
    assert replayed["tool_input"] == {"command": "echo push"}
    assert replayed["tool_response"] == {
        "stdout": "push --dry-run",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    assert replayed["tool_response"] == live[-1]["tool_response"]
    recorded = [
        json.loads(line)
        for line in Path(start["transcript"]).read_text().splitlines()
        if '"toolUseResult"' in line
    ]
    assert replayed["tool_response"] == recorded[-1]["toolUseResult"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tool-use", "toolu_nope"], "has no tool call 'toolu_nope' (the last ones: "),
        (["--event-is-stop"], "--from-transcript replays a tool call"),
    ],
)
def test_replay_errors_are_one_line(
    args: list[str], message: str, tmp_path: Path, isolated_home: Path
) -> None:
    project = project_with_recorder(tmp_path / "proj")
    start = run_session(project, isolated_home)[0]
    event = "Stop" if args == ["--event-is-stop"] else "PreToolUse"
    extra = [] if args == ["--event-is-stop"] else args
    proc = run_hookwright(
        "hooks",
        "test",
        event,
        "-p",
        str(project),
        "--from-transcript",
        start["transcript"],
        *extra,
        home=isolated_home,
    )
    assert proc.returncode == 2
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith("hookwright: error: ") and message in line


def test_replay_of_a_missing_transcript(tmp_path: Path, isolated_home: Path) -> None:
    proc = run_hookwright(
        "hooks",
        "test",
        "PreToolUse",
        "-p",
        str(tmp_path),
        "--from-transcript",
        str(tmp_path / "none.jsonl"),
        home=isolated_home,
    )
    assert proc.returncode == 2
    assert "no transcript at" in proc.stderr


def audit_file(home: Path) -> Path:
    return home / ".hookwright" / "audit.jsonl"


def test_audit_records_of_a_run_say_what_ran(tmp_path: Path, isolated_home: Path) -> None:
    project = project_with_recorder(tmp_path / "proj")
    events = run_session(project, isolated_home)
    session = events[0]["session_id"]
    push_id = [e for e in events if e["type"] == "tool_call"][1]["id"]
    proc = run_hookwright("audit", "--session", session[:8], "--json", home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    [dry] = [r for r in records if r["hook"] == "dry"]
    assert dry["tool_name"] == "Bash" and dry["tool_use_id"] == push_id
    assert dry["turn_id"].startswith("turn-")
    assert dry["effect"] == "rewrite input"
    assert dry["tool_input"] == {"command": "echo push"}
    assert dry["executed_input"] == {"command": "echo push --dry-run"}
    after = [r for r in records if r["hook"] == "after" and r["tool_use_id"] == push_id]
    assert after[0]["tool_input"] == {"command": "echo push --dry-run"}
    text = run_hookwright("audit", "-s", session, home=isolated_home).stdout
    assert (
        f"{session[:8]} PreToolUse dry (Python, .hookwright/hooks.yaml): rewrote Bash echo push → "
        in text
    )
    assert "echo push --dry-run" in text
    other = run_hookwright("audit", "--session", "no-such-session", home=isolated_home)
    assert other.stdout == ""


def test_audit_skips_lines_that_are_not_records(isolated_home: Path) -> None:
    path = audit_file(isolated_home)
    path.parent.mkdir(parents=True)
    record = {
        "ts": 0,
        "event": "Stop",
        "hook": "h",
        "dialect": "python",
        "source": "x",
        "status": "ok",
        "effect": None,
        "session_id": "s1",
    }
    path.write_text("not json\n[1]\n" + json.dumps(record) + "\n")
    (path.parent / "audit.jsonl.1").write_text(json.dumps({**record, "hook": "older"}) + "\n")
    proc = run_hookwright("audit", "--json", home=isolated_home)
    assert [json.loads(line)["hook"] for line in proc.stdout.splitlines()] == ["older", "h"]
    assert "2 lines" in proc.stderr and "were skipped" in proc.stderr


def test_audit_without_a_file(isolated_home: Path) -> None:
    proc = run_hookwright("audit", home=isolated_home)
    assert proc.returncode == 0
    assert "no audit records yet" in proc.stderr


def line_reader(proc: subprocess.Popen[str]) -> Callable[[], str]:
    """Lines of the process's stdout, each waited for at most a minute (never a hang)."""
    lines: queue.Queue[str] = queue.Queue()
    stdout = proc.stdout
    assert stdout is not None

    def pump() -> None:
        for line in stdout:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    return lambda: lines.get(timeout=60)


#: Runs the rest of its argv with SIGINT at its default, as a terminal's foreground process has
#: it, also when the tests run with SIGINT ignored (started in the background), which an
#: exec'd interpreter would inherit and keep.
INTERRUPTIBLE = (
    "import os, signal, sys\n"
    "signal.signal(signal.SIGINT, signal.SIG_DFL)\n"
    "os.execv(sys.argv[1], sys.argv[1:])\n"
)
FOLLOW = [sys.executable, "-m", "hookwright", "audit", "--follow", "--json"]


def test_audit_follow_prints_records_as_they_are_written(
    tmp_path: Path, isolated_home: Path
) -> None:
    path = audit_file(isolated_home)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"event": "Stop", "hook": "before", "session_id": "s"}) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKWRIGHT_")}
    proc = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTIBLE, *FOLLOW],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**env, "HOME": str(isolated_home)},
    )
    read_line = line_reader(proc)
    try:
        assert json.loads(read_line())["hook"] == "before"
        with path.open("a") as fh:
            fh.write(json.dumps({"event": "Stop", "hook": "appended", "session_id": "s"}))
            fh.flush()
            time.sleep(0.5)
            fh.write("\n")
        assert json.loads(read_line())["hook"] == "appended"
        os.replace(path, path.with_name("audit.jsonl.1"))
        path.write_text(json.dumps({"event": "Stop", "hook": "rotated", "session_id": "s"}) + "\n")
        assert json.loads(read_line())["hook"] == "rotated"
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=GENEROUS_BOUND * 4)
        finally:
            if proc.poll() is None:  # never leave the follower behind, whatever failed
                proc.kill()
                proc.wait()
            assert proc.stdout is not None and proc.stderr is not None
            proc.stdout.close()
            proc.stderr.close()
    assert proc.returncode == 0


def test_a_session_id_from_the_sessions_list_replays_like_its_transcript(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = project_with_recorder(tmp_path / "proj")
    start = run_session(project, isolated_home)[0]
    listed = run_hookwright("sessions", "-p", str(project), "--json", home=isolated_home)
    [session] = json.loads(listed.stdout)
    assert session["session_id"] == start["session_id"]
    (project / ".hookwright" / "seen.jsonl").unlink()
    args = ["hooks", "test", "PreToolUse", "-p", str(project), "--from-transcript"]
    by_id = run_hookwright(*args, session["session_id"], home=isolated_home)
    assert by_id.returncode == 0, by_id.stderr
    [replayed] = seen(project)
    assert replayed["transcript_path"] == start["transcript"]
    assert replayed["tool_input"] == {"command": "echo push"}
    unknown = run_hookwright(*args, "nope", home=isolated_home)
    assert unknown.returncode != 0
    assert unknown.stderr.strip().endswith(
        f"--from-transcript nope: no such file, nor a session of {project.resolve()} "
        "(see: hookwright sessions)"
    )
