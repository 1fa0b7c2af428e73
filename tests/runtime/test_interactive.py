"""Interactive runs in a real pseudo-terminal: the trust question and the permission prompt."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path


def write_project(root: Path) -> None:
    hooks = root / ".hookwright"
    hooks.mkdir(parents=True)
    (hooks / "ctx.py").write_text(
        "from hookwright import add_context\n"
        "def facts(inp):\n    return add_context('project hook ran')\n"
    )
    (hooks / "hooks.yaml").write_text(
        "hooks:\n  - {name: facts, event: SessionStart, call: 'ctx:facts'}\n"
    )
    (hooks / "script.yaml").write_text(
        "turns:\n"
        "  - tool_calls: [{name: Bash, arguments: {command: 'echo from-bash > out.txt'}}]\n"
        "  - content: all done\n"
    )


class Terminal:
    def __init__(self, args: list[str], home: Path, cwd: Path) -> None:
        self.master, slave = pty.openpty()
        env = {**os.environ, "HOME": str(home), "COLUMNS": "200", "TERM": "dumb"}
        for key in list(env):
            if key.startswith(("OPENAI_", "ANTHROPIC_", "HOOKWRIGHT_")):
                del env[key]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hookwright", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=cwd,
            close_fds=True,
        )
        os.close(slave)
        self.output = ""

    def expect(self, text: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"{text!r} not seen in:\n{self.output}"
            ready, _, _ = select.select([self.master], [], [], remaining)
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:
                    chunk = b""
                if not chunk:
                    assert text in self.output, f"{text!r} not seen before EOF:\n{self.output}"
                self.output += chunk.decode("utf-8", "replace")

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self) -> int:
        try:
            code = self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            while True:
                ready, _, _ = select.select([self.master], [], [], 0.1)
                if not ready:
                    break
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                self.output += chunk.decode("utf-8", "replace")
            os.close(self.master)
        return code


def test_interactive_run_asks_trust_once_and_prompts_for_permission(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "repo"
    write_project(project)
    term = Terminal(["run", "make out.txt", "--project", str(project)], isolated_home, tmp_path)
    term.expect("Trust this folder?")
    term.send("y")
    term.expect("Allow?")
    term.send("y")
    term.expect("all done")
    assert term.close() == 0
    assert "SessionStart facts (native, project): context" in term.output
    assert (project / "out.txt").read_text() == "from-bash\n"
    trust = (isolated_home / ".hookwright" / "trust.json").read_text()
    assert str(project.resolve()) in trust

    again = Terminal(["run", "make out.txt", "--project", str(project)], isolated_home, tmp_path)
    again.expect("Allow?")
    again.send("n")
    again.expect("all done")
    assert again.close() == 0
    assert "Trust this folder?" not in again.output
    assert "denied by user" in again.output
