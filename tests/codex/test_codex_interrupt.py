"""Codex's Interrupt event in the reference agent: Ctrl-C (a real SIGINT) to `python -m
hookwright run` while a tool runs ends the turn, kills the tool, and runs the Interrupt hooks
with the bytes Codex CLI 0.171.0 sends them, after the transcript records the interruption and
before SessionEnd (conformance case `interrupt_mid_tool_call` measures the same in Codex)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.codex.project import bash, command, script, write_project
from tests.procs import running

from hookwright.dialects.codex.layers import MANAGED_DIR_ENV
from terminal import Terminal

#: Logs its stdin, and the transcript as it stood then, under the hook's name.
LOG = (
    "python3 -c 'import json,sys,pathlib; raw=sys.stdin.buffer.read(); "
    'name=sys.argv[1]; pathlib.Path(name + ".json").write_bytes(raw); '
    'pathlib.Path(name + ".transcript").write_text(pathlib.Path(json.loads(raw)["transcript_path"]).read_text()); '  # noqa: E501
    'pathlib.Path("order.txt").open("a").write(name + "\\n")'
    "' "
)
ANSWER = json.dumps({"systemMessage": "MARK the turn was interrupted"})


def _start(home: Path, project: Path, model: Path) -> subprocess.Popen[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("OPENAI_", "ANTHROPIC_", "HOOKWRIGHT_"))
    }
    env.update(
        HOME=str(home),
        CODEX_HOME=str(home / ".codex"),
        COLUMNS="200",
        **{MANAGED_DIR_ENV: os.environ[MANAGED_DIR_ENV]},
    )
    argv = ["run", "go", "--project", str(project), "--trust", "--model", f"scripted:{model}"]
    return subprocess.Popen(
        [sys.executable, "-m", "hookwright", *argv, "--permission-mode", "bypassPermissions"],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _wait_for(path: Path, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while not path.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert path.exists(), process.communicate()


def _ctrl_c_once(path: Path, process: subprocess.Popen[str]) -> tuple[str, str]:
    """SIGINT to `process` once `path` exists (half a second later, as a person would), and
    what it printed; the process is killed if the test fails before it ends."""
    try:
        _wait_for(path, process)
        time.sleep(0.5)
        process.send_signal(signal.SIGINT)
        return process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()


def test_ctrl_c_during_a_tool_call_runs_the_interrupt_hooks_with_codex_bytes(
    tmp_path: Path,
) -> None:
    hooks = {
        "PreToolUse": command(LOG + "pre", "Bash"),
        "PostToolUse": command(LOG + "post", "Bash"),
        "Stop": command(LOG + "stop"),
        "Interrupt": [
            *command(LOG + f"interrupt; echo '{ANSWER}'", timeout=30),
            {"hooks": [{"type": "command", "command": LOG + "interrupt-default"}]},
        ],
        "SessionEnd": command(LOG + "end"),
    }
    home, project = write_project(tmp_path, hooks)
    tool = "echo $$ > tool.pid; sleep 30; touch made.txt"
    model = script(tmp_path / "s.json", [bash(tool), {"content": "not reached"}])
    process = _start(home, project, model)
    out, err = _ctrl_c_once(project / "tool.pid", process)
    assert process.returncode == 130, err
    order = (project / "order.txt").read_text().split()
    assert order[:1] == ["pre"] and order[-1] == "end"
    assert sorted(order[1:-1]) == ["interrupt", "interrupt-default"]
    raw = (project / "interrupt.json").read_bytes()
    assert raw == (project / "interrupt-default.json").read_bytes()
    assert not raw.endswith(b"\n")
    seen = json.loads(raw)
    pre = json.loads((project / "pre.json").read_bytes())
    assert raw == json.dumps(seen, separators=(",", ":")).encode()
    assert seen == {
        "session_id": pre["session_id"],
        "turn_id": pre["turn_id"],
        "transcript_path": pre["transcript_path"],
        "cwd": str(project),
        "hook_event_name": "Interrupt",
        "permission_mode": "bypassPermissions",
    }
    assert "[Request interrupted by user]" in (project / "interrupt.transcript").read_text()
    assert "MARK the turn was interrupted" in out
    assert json.loads((project / "end.json").read_bytes())["reason"] == "other"
    assert not running(int((project / "tool.pid").read_text()))
    assert not (project / "made.txt").exists()


#: A SessionStart hook that logs, then waits far longer than any test: only Ctrl-C ends it.
SLOW_START = LOG + "start; echo $$ > start.pid; exec sleep 60"


def _start_project(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(home, project, model): a slow SessionStart hook, and every hook that could follow it
    logging what it read."""
    hooks = {
        "SessionStart": command(SLOW_START, timeout=120),
        "UserPromptSubmit": command(LOG + "prompt"),
        "Stop": command(LOG + "stop"),
        "Interrupt": [{"hooks": [{"type": "command", "command": LOG + "interrupt"}]}],
        "SessionEnd": command(LOG + "end"),
    }
    home, project = write_project(tmp_path, hooks)
    model = script(tmp_path / "s.json", [{"content": "MODEL ANSWERED"}])
    return home, project, model


def _assert_interrupted_start(project: Path, out: str) -> None:
    """What Codex CLI 0.171.0 does on SIGINT during a SessionStart hook (conformance case
    `interrupt_during_session_start`): the hook is killed, no prompt is submitted, the
    Interrupt hooks run, naming a turn, then SessionEnd."""
    assert (project / "order.txt").read_text().split() == ["start", "interrupt", "end"]
    start = json.loads((project / "start.json").read_bytes())
    seen = json.loads((project / "interrupt.json").read_bytes())
    assert seen == {
        "session_id": start["session_id"],
        "turn_id": seen["turn_id"],
        "transcript_path": start["transcript_path"],
        "cwd": str(project),
        "hook_event_name": "Interrupt",
        "permission_mode": start["permission_mode"],
    }
    assert seen["turn_id"]
    assert "MODEL ANSWERED" not in out
    assert not running(int((project / "start.pid").read_text()))


def test_ctrl_c_during_session_start_runs_the_interrupt_hooks_as_codex_does(
    tmp_path: Path,
) -> None:
    home, project, model = _start_project(tmp_path)
    process = _start(home, project, model)
    out, err = _ctrl_c_once(project / "start.pid", process)
    assert process.returncode == 130, err
    assert "Traceback" not in err
    _assert_interrupted_start(project, out)
    assert json.loads((project / "end.json").read_bytes())["reason"] == "other"


def test_ctrl_c_during_session_start_in_chat_interrupts_and_ends_the_session(
    tmp_path: Path,
) -> None:
    home, project, model = _start_project(tmp_path)
    argv = ["chat", "--project", str(project), "--trust", "--model", f"scripted:{model}"]
    codex_home = {"CODEX_HOME": str(home / ".codex"), MANAGED_DIR_ENV: os.environ[MANAGED_DIR_ENV]}
    term = Terminal(argv, home, project, extra_env=codex_home)
    try:
        deadline = time.monotonic() + 60
        while not (project / "start.pid").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        term.proc.send_signal(signal.SIGINT)
        term.send("hello")
    finally:
        code = term.close()
    assert code == 0, term.output
    assert "Traceback" not in term.output
    _assert_interrupted_start(project, term.output)
    assert not (project / "prompt.json").exists()
    assert json.loads((project / "end.json").read_bytes())["reason"] == "prompt_input_exit"
