"""The thin client a Claude Code command hook runs (`install claude-code --mode command`).

It imports only the standard library and is run by its path (never `-m`, which would import
the hookwright package), so it starts in a few tens of milliseconds. It relays Claude Code's
stdin to the user's `hookwright daemon` over a Unix socket in a private directory, starting
the daemon when none answers, and prints the daemon's answer. When no daemon can be reached
it answers in-process (`hookwright hook claude-code`), as the plain command mode does. When
that fails too, the failure is never an empty answer: at SessionStart a `systemMessage` says
the hooks are not running and why; on any other event one line on stderr and exit 1, which
Claude Code shows as a hook error (and blocks on, under `onFailure: "block"`).

Every hookwright process it starts (the daemon, the in-process answer) runs isolated: `-I`
(neither the working folder nor a `PYTHON*` variable reaches `sys.path`, so a `hookwright/`,
`json.py` or `sitecustomize.py` in the project is never imported), in `/`, with the project
named by its absolute path.

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
SESSION_VARIABLES = ("CLAUDE_PROJECT_DIR", "CLAUDE_ENV_FILE", "AI_AGENT", MARKER)


def user_home() -> Path:
    """The user's home folder by hookwright's one rule (`hookwright.core.home.user_home`:
    ``$HOME`` only when absolute, else the account's), restated because this client imports
    only the standard library; a test holds the two to the same answers. The daemon keys its
    folder by this path, so the client and the daemon it starts must agree on it."""
    home = os.environ.get("HOME", "")
    if os.path.isabs(home):
        return Path(home)
    import pwd

    try:
        account = pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        raise RuntimeError(f"HOME is not an absolute path ({home!r}) and no account") from None
    if not os.path.isabs(account):
        raise RuntimeError(f"HOME is not an absolute path ({home!r}) and neither is the account's")
    return Path(account)


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


def squatted(path: Path) -> str | None:
    """Why `path` cannot be this user's private folder, or None when it is one (created 0700
    when missing). Nothing is changed in a folder found wrong: another user may have made it."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        return f"cannot be created: {exc.strerror}"
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(info.st_mode):
        return "is not a directory"
    if info.st_uid != os.getuid():
        return f"is owned by uid {info.st_uid}"
    if stat.S_IMODE(info.st_mode) & 0o077:
        return f"is open to other users (mode {stat.S_IMODE(info.st_mode):o})"
    return None


def fallback_base(home: Path) -> Path:
    """The runtime base used when the one in the temporary folder is squatted."""
    return home / ".hookwright" / "run"


def _say_once(fallback: Path, temp: Path, reason: str) -> None:
    """Tell the user (stderr) that `temp` was passed over, once per squatted path and reason:
    the notice is remembered in the fallback folder."""
    notice = f"hookwright: {temp} {reason}; using {fallback} instead\n"
    seen = fallback / "squatted"
    with contextlib.suppress(OSError), open(seen, "rb") as known:
        if known.read() == notice.encode():
            return
    sys.stderr.write(notice)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
    with contextlib.suppress(OSError), open(os.open(seen, flags, 0o600), "wb") as out:
        out.write(notice.encode())


def _runtime_base(home: Path) -> Path:
    """`$XDG_RUNTIME_DIR` when it is private; else `hookwright-UID` in the temporary folder;
    else, when that one is squatted, `~/.hookwright/run` (checked the same way)."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    try:
        info = os.lstat(xdg) if xdg else None
    except OSError:
        info = None
    if xdg and info is not None and stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid():
        private = not stat.S_IMODE(info.st_mode) & 0o077
        if private:
            return Path(xdg)
    temp = Path(tempfile.gettempdir()) / f"hookwright-{os.getuid()}"
    reason = squatted(temp)
    if reason is None:
        return temp
    fallback = fallback_base(home)
    with contextlib.suppress(FileExistsError):
        os.mkdir(fallback.parent, 0o700)
    problem = squatted(fallback)
    if problem is not None:
        raise PermissionError(f"{temp} {reason}, and {fallback} {problem}")
    _say_once(fallback, temp, reason)
    return fallback


def runtime_dir(home: Path) -> Path:
    """The daemon's private directory (socket, pid, lock, log): one per user and home folder.
    The one place client and daemon learn it from (see `_runtime_base`)."""
    key = hashlib.sha256(str(home).encode()).hexdigest()[:12]
    return private_dir(_runtime_base(home) / f"hookwright-{key}")


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
    if type(answer.get("exit", 0)) is not int or not isinstance(answer.get("stderr", ""), str):
        raise ValueError("the daemon's answer has no exit code or stderr text")
    answer["stdout"] = rest
    return answer


#: Where the hookwright processes the client starts run: never the project's folder.
NEUTRAL_CWD = "/"
#: What `python -I -c` runs: hookwright's command line, imported from the folder this client
#: was installed from (added after the standard library and site-packages when missing).
BOOT = """import sys
root = sys.argv[1]
sys.argv[0:2] = ["hookwright"]
if root not in sys.path:
    sys.path.append(root)
from hookwright.cli import main
main()
"""


#: What `python -I -c` runs for the in-process answer: `hookwright hook claude-code` without
#: the command line (`claude_hook.main`), imported as `BOOT` imports it; about a fifth less
#: to load for every event answered while no daemon can be reached. It is imported as every
#: process that answers one event imports it (`lean_start.lean_imports`), as in the quick
#: client's own answer (`quick_relay._answer_in_this_process`); the garbage collector is off
#: from the start, while hookwright's root package loads too, and on again before any hook
#: runs.
ANSWER_BOOT = """import gc, sys
gc.disable()
root = sys.argv[1]
if root not in sys.path:
    sys.path.append(root)
from hookwright.bridges.lean_start import lean_imports
with lean_imports():
    from hookwright.bridges.claude_hook import main
sys.exit(main(sys.argv[2:]))
"""


def hookwright_command(python: str, *args: str, boot: str = BOOT) -> list[str]:
    """`hookwright ARGS` (or what `boot` runs with them) as an isolated process: `-I`, so
    neither the working folder nor a `PYTHON*` variable puts anything of a project on
    `sys.path`."""
    root = str(Path(__file__).resolve().parents[2])
    return [python, "-I", "-c", boot, root, *args]


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
            hookwright_command(python, "daemon", "serve"),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            env=env,
            cwd=NEUTRAL_CWD,
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
    """The answer of `hookwright hook claude-code` run as its own isolated process
    (`ANSWER_BOOT`); raises OSError when it cannot be started."""
    command = hookwright_command(python, boot=ANSWER_BOOT)
    if project is not None:
        command += ["--project", project]
    done = subprocess.run(command, input=body, capture_output=True, cwd=NEUTRAL_CWD, check=False)
    return {
        "exit": done.returncode,
        "stdout": done.stdout,
        "stderr": done.stderr.decode(errors="replace"),
    }


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def fallback(project: str | None, body: bytes, python: str, unreachable: str) -> dict[str, Any]:
    """The in-process answer; when it cannot start or fails without an answer, the failure
    of both: at SessionStart a `systemMessage` (Claude Code shows it by default, and a
    SessionStart cannot block), elsewhere one line and exit 1 (a hook error Claude Code
    shows, and blocks on under `onFailure: "block"`)."""
    try:
        answer = in_process(project, body, python)
    except OSError as exc:
        why = f"the in-process fallback cannot start: {exc}"
    else:
        if answer["exit"] == 0 or answer["stdout"].strip():
            return answer
        why = f"the in-process fallback failed: {_last_line(answer['stderr'])}"
    reason = f"hookwright: the hooks are not running: no daemon answered ({unreachable}); {why}"
    if _event_name(body) == "SessionStart":
        message = json.dumps({"systemMessage": reason}).encode()
        return {"exit": 0, "stdout": message + b"\n", "stderr": ""}
    return {"exit": 1, "stdout": b"", "stderr": f"{reason}\n"}


def _event_name(body: bytes) -> str | None:
    try:
        data = json.loads(body)
    except ValueError:
        return None
    name = data.get("hook_event_name") if isinstance(data, dict) else None
    return name if isinstance(name, str) else None


def _absolute(path: str | None) -> str | None:
    """`path` resolved against this process's working folder (the processes the client talks
    to or starts run elsewhere)."""
    return os.path.realpath(path) if path else None


def _arguments(argv: list[str]) -> str | None:
    if len(argv) == 2 and argv[0] == "--project":
        return argv[1]
    if argv:
        raise SystemExit("usage: claude_client.py [--project DIR]")
    return None


def main(argv: list[str]) -> int:
    project = _absolute(_arguments(argv))
    if os.environ.get(MARKER):
        return 0
    body = sys.stdin.buffer.read()
    python = sys.executable
    env_project = _absolute(os.environ.get("CLAUDE_PROJECT_DIR"))
    # Which Claude Code runs this hook (`claude_version.calling_version` reads it).
    agent = os.environ.get("AI_AGENT", "")[:200]
    header = {"op": "hook", "project": project, "env_project": env_project, "agent": agent}
    try:
        answer = ask_daemon(user_home(), header, body, python)
    except (OSError, RuntimeError) as exc:  # RuntimeError: no home folder to find a daemon by
        answer = fallback(project or env_project, body, python, str(exc))
    except ValueError:
        answer = fallback(project or env_project, body, python, "its answer could not be read")
    sys.stdout.buffer.write(answer.get("stdout", b""))
    sys.stdout.flush()
    sys.stderr.write(str(answer.get("stderr", "")))
    code = answer.get("exit", 0)
    return code if isinstance(code, int) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
