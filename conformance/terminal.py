"""A program run in a pseudo-terminal, as a person runs Claude Code: the text its screen
showed (escape sequences taken out), read until a given text appears or time runs out."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import re
import select
import signal
import struct
import termios
import time

#: Wide enough that a one-line notice is not wrapped.
COLUMNS, ROWS = 300, 60
#: How long the screen is still read after `until` appears (the last frame), in seconds.
SETTLE = 2.0
_ESCAPES = re.compile(
    rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-B]|\x1b[=>78]"
)
_CURSOR_QUERY = b"\x1b[6n"


def plain(raw: bytes) -> str:
    return _ESCAPES.sub(b"", raw).decode("utf-8", errors="replace")


def screen_of(
    command: list[str], cwd: os.PathLike[str] | str, env: dict[str, str], until: str, timeout: float
) -> str:
    """Run `command` in a terminal; the screen's text once `until` showed (or at `timeout`).
    The program and its process group are killed and reaped."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: become the program
        try:
            os.chdir(cwd)
            os.execve(command[0], command, env)
        finally:
            os._exit(127)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    raw = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    break
                if not data:
                    break
                raw += data
                if _CURSOR_QUERY in data:
                    os.write(fd, b"\x1b[1;1R")
            if until in plain(raw):
                deadline = min(deadline, time.monotonic() + SETTLE)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
    return plain(raw)
