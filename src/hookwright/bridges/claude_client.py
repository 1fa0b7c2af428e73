"""The thin client a Claude Code command hook runs (`install claude-code --mode command`).

It imports only the standard library and is run by its path (never `-m`, which would import
the hookwright package), so it starts in a few tens of milliseconds. It relays Claude Code's
stdin to the user's `hookwright daemon` over a Unix socket in a private directory, starting
the daemon when none answers, and prints the daemon's answer. When no daemon can be reached
it answers in-process (`hookwright hook claude-code`), as the plain command mode does.

The wire format on the socket: one JSON header line, then the body bytes; the client closes
its sending side; the daemon answers with one JSON header line (`exit`, `stderr`) and the
bytes to print.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

#: Set in the environment of the hooks hookwright itself runs: the client answers nothing.
MARKER = "HOOKWRIGHT_HOOK_RUN"
SOCKET_NAME = "daemon.sock"
#: How long a client waits for a daemon it started to accept connections, in seconds.
START_WAIT = 20.0
#: A daemon that has not come up after this many seconds is started again (the first may
#: have met one that was exiting), in seconds.
RESTART_EVERY = 3.0
#: How long one exchange with a running daemon may take (hooks included), in seconds.
EXCHANGE_TIMEOUT = 600.0
#: A daemon log larger than this is started afresh when the next daemon starts.
MAX_LOG_BYTES = 1024 * 1024
#: Variables of the Claude Code session a daemon serving every session must not inherit.
SESSION_VARIABLES = ("CLAUDE_PROJECT_DIR", "CLAUDE_ENV_FILE", MARKER)


def private_dir(path: Path) -> Path:
    """`path` as a directory only this user can enter: created 0700, or an existing one
    checked (a real directory owned by this user) and narrowed to 0700."""
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise PermissionError(f"{path} is not a directory owned by this user")
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(path, 0o700)
    return path


def _runtime_base() -> Path:
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    try:
        info = os.lstat(xdg) if xdg else None
    except OSError:
        info = None
    if xdg and info is not None and stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid():
        private = not stat.S_IMODE(info.st_mode) & 0o077
        if private:
            return Path(xdg)
    return private_dir(Path(tempfile.gettempdir()) / f"hookwright-{os.getuid()}")


def runtime_dir(home: Path) -> Path:
    """The daemon's private directory (socket, pid, lock, log): one per user and home folder,
    under `$XDG_RUNTIME_DIR` when it is private, else under the temporary folder."""
    key = hashlib.sha256(str(home).encode()).hexdigest()[:12]
    return private_dir(_runtime_base() / f"hookwright-{key}")


def socket_path(home: Path) -> Path:
    return runtime_dir(home) / SOCKET_NAME


def exchange(path: Path, header: dict[str, Any], body: bytes, timeout: float) -> dict[str, Any]:
    """One request to the daemon; the answer header with the body under ``"stdout"``."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(timeout)
        conn.connect(str(path))
        conn.sendall(json.dumps(header).encode() + b"\n" + body)
        conn.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    line, _, rest = b"".join(chunks).partition(b"\n")
    answer = json.loads(line)
    if not isinstance(answer, dict):
        raise ValueError("the daemon's answer is not a JSON object")
    answer["stdout"] = rest
    return answer


def start_daemon(home: Path, python: str) -> None:
    """Start `hookwright daemon serve` detached; its output goes to the runtime folder's log."""
    env = {k: v for k, v in os.environ.items() if k not in SESSION_VARIABLES}
    log = runtime_dir(home) / "daemon.log"
    try:
        fresh = log.stat().st_size > MAX_LOG_BYTES
    except OSError:
        fresh = False
    with open(log, "wb" if fresh else "ab") as out:
        subprocess.Popen(
            [python, "-m", "hookwright", "daemon", "serve"],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            env=env,
            cwd="/",
            start_new_session=True,
        )


def ask_daemon(home: Path, header: dict[str, Any], body: bytes, python: str) -> dict[str, Any]:
    """The daemon's answer, starting the daemon when none listens; raises OSError or
    ValueError when none can be reached."""
    path = socket_path(home)
    try:
        return exchange(path, header, body, EXCHANGE_TIMEOUT)
    except (FileNotFoundError, ConnectionRefusedError):
        pass
    deadline = time.monotonic() + START_WAIT
    next_start = 0.0
    while True:
        if time.monotonic() >= next_start:
            start_daemon(home, python)
            next_start = time.monotonic() + RESTART_EVERY
        time.sleep(0.02)
        try:
            return exchange(path, header, body, EXCHANGE_TIMEOUT)
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() > deadline:
                raise


def in_process(project: str | None, body: bytes, python: str) -> dict[str, Any]:
    """The answer of `hookwright hook claude-code` run as its own process."""
    command = [python, "-m", "hookwright", "hook", "claude-code"]
    if project is not None:
        command += ["--project", project]
    done = subprocess.run(command, input=body, capture_output=True, check=False)
    return {"exit": done.returncode, "stdout": done.stdout, "stderr": done.stderr.decode()}


def _arguments(argv: list[str]) -> str | None:
    if len(argv) == 2 and argv[0] == "--project":
        return argv[1]
    if argv:
        raise SystemExit("usage: claude_client.py [--project DIR]")
    return None


def main(argv: list[str]) -> int:
    project = _arguments(argv)
    if os.environ.get(MARKER):
        return 0
    body = sys.stdin.buffer.read()
    home = Path.home()
    python = sys.executable
    header = {
        "op": "hook",
        "project": project,
        "env_project": os.environ.get("CLAUDE_PROJECT_DIR"),
    }
    try:
        answer = ask_daemon(home, header, body, python)
    except (OSError, ValueError):
        answer = in_process(project, body, python)
    sys.stdout.buffer.write(answer.get("stdout", b""))
    sys.stdout.flush()
    sys.stderr.write(str(answer.get("stderr", "")))
    code = answer.get("exit", 0)
    return code if isinstance(code, int) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
