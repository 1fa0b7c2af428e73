"""A hook entry's `statusMessage` is shown while the hook runs, as Claude Code shows it in its
terminal UI: a line when output is not a live terminal, the spinner's text in a terminal, and
the `status` of the `hooks_running` event in `--json`. Each hook here waits until the test
has seen its message, so the message is shown while it runs, not after."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from bounds import SLOW
from terminal import Terminal

MESSAGE = "Checking the command with the policy server…"
WAITER = (
    "import os, sys, time\n"
    "sys.stdin.read()\n"
    f"deadline = time.monotonic() + {SLOW}\n"
    "while not os.path.exists(sys.argv[1]) and time.monotonic() < deadline:\n"
    "    time.sleep(0.02)\n"
)


class Project:
    def __init__(self, tmp: Path, home: Path) -> None:
        self.tmp, self.home = tmp, home
        self.root = tmp / "project"
        (self.root / ".claude").mkdir(parents=True)
        self.release = tmp / "release"
        waiter = tmp / "waiter.py"
        waiter.write_text(WAITER)
        waiting = {
            "type": "command",
            "command": f'"{sys.executable}" "{waiter}" "{self.release}"',
            "statusMessage": MESSAGE,
        }
        never = {"type": "command", "command": "true", "statusMessage": "Never shown"}
        hooks = {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [waiting]},
                {"matcher": "Write", "hooks": [never]},
            ]
        }
        (self.root / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
        script = tmp / "model.yaml"
        turns = [
            {"tool_calls": [{"name": "Bash", "arguments": {"command": "echo $((6 * 7))"}}]},
            {"content": "finished"},
        ]
        script.write_text(yaml.safe_dump({"turns": turns}))
        self.args = [
            "run",
            "go",
            "--project",
            str(self.root),
            "--model",
            f"scripted:{script}",
            "--permission-mode",
            "bypassPermissions",
            "--trust",
        ]

    def env(self) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("OPENAI_", "ANTHROPIC_", "HOOKWRIGHT_"))
        }
        return {**env, "HOME": str(self.home), "COLUMNS": "200"}


@pytest.fixture
def project(tmp_path: Path, isolated_home: Path) -> Iterator[Project]:
    proj = Project(tmp_path, isolated_home)
    yield proj
    proj.release.touch()  # a failed test still lets its hook end


def lines_until(proc: subprocess.Popen[str], wanted: str) -> list[str]:
    """Read stdout lines until one contains `wanted` (the hook is still waiting then)."""
    assert proc.stdout is not None
    seen: list[str] = []
    for line in proc.stdout:
        seen.append(line.rstrip("\n"))
        if wanted in line:
            return seen
    raise AssertionError(f"{wanted!r} never shown; output: {seen}")


@pytest.mark.parametrize("json_out", [False, True])
def test_the_status_message_is_shown_while_the_hook_runs(project: Project, json_out: bool) -> None:
    args = [*project.args, "--json"] if json_out else project.args
    proc = subprocess.Popen(
        [sys.executable, "-m", "hookwright", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=project.env(),
    )
    try:
        before = lines_until(proc, MESSAGE)
        assert not project.release.exists()
        assert not any("tool_result" in line or "⎿" in line for line in before)
        project.release.touch()
        rest, err = proc.communicate(timeout=SLOW)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    output = "\n".join([*before, rest])
    assert ('"content": "42"' if json_out else "⎿ 42") in rest
    assert "Never shown" not in output
    if json_out:
        running = [json.loads(line) for line in before if '"hooks_running"' in line]
        assert running[-1] == {
            "type": "hooks_running",
            "event": "PreToolUse",
            "count": 1,
            "status": [MESSAGE],
        }
    else:
        assert before[-1] == f"⋯ {MESSAGE}"


def test_a_terminal_shows_the_status_message_in_the_spinner(project: Project) -> None:
    term = Terminal(project.args, project.home, project.tmp, {"TERM": "xterm-256color"})
    try:
        term.expect(MESSAGE)
        assert not project.release.exists()
        project.release.touch()
        term.expect("finished")
    finally:
        project.release.touch()
        code = term.close()
    assert code == 0, term.output
    assert f"⋯ {MESSAGE}" not in term.output
