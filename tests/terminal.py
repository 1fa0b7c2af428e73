"""`python -m hookwright` in a real pseudo-terminal, for tests of interactive questions."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path


class Terminal:
    def __init__(
        self, args: list[str], home: Path, cwd: Path, extra_env: dict[str, str] | None = None
    ) -> None:
        self.master, slave = pty.openpty()
        env = {**os.environ, "HOME": str(home), "COLUMNS": "200", "TERM": "dumb"}
        for key in list(env):
            if key.startswith(("OPENAI_", "ANTHROPIC_", "HOOKWRIGHT_")):
                del env[key]
        env.update(extra_env or {})
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
