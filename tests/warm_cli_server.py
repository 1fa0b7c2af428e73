"""The far side of `tests/warm_cli.py`: a Python with hookwright's command line imported, which
forks one process per request and runs `python -m hookwright` in it.

Started as `python -c` by `warm_cli.WarmCli` with the control socket's descriptor as its last
argument, after the modules to import beyond `PRELOAD` (the model backends, for the server that
serves the runs on a fake model API), or after `--entry CODE`: then it runs only CODE, the import
of a command line's `main` (`from hookwright.cli.app import main`), and each run calls `main()`,
as `python -c "CODE; main()"` would. Each request on it is one message: the run's JSON
(arguments, environment, folder, umask) and four descriptors (the status socket, stdin, stdout,
stderr). A short-lived middle process forks the run, writes its pid and then its wait status to
the status socket, and exits; the run itself is a child of nothing the test holds, like a
spawned process it owns its stdio, its environment, its folder and its exit (the interpreter's
exit steps up to the flushes, not the teardown of the preloaded modules: `exit_as_python_does`).
The server ends when the control socket closes, once the middle processes still running have
exited.
"""

from __future__ import annotations

import array
import atexit
import contextlib
import gc
import importlib
import json
import os
import runpy
import socket
import sys
import threading
from collections.abc import Callable, Iterator, MutableMapping
from typing import NoReturn

#: The flag before the code of an entry point to import instead of `PRELOAD`.
ENTRY_FLAG = "--entry"
#: Room for one request's JSON (the environment is most of it).
MESSAGE_BYTES = 1 << 20
FDS_PER_REQUEST = 4


#: What the commands the tests run import (the typer commands, `run` with its agent and models,
#: the dialects, the transports), imported once here rather than in every run.
PRELOAD = (
    "hookwright.cli",
    "hookwright.cli.app",
    "hookwright.cli.quick",
    "hookwright.cli.run",
    "hookwright.cli.render",
    "hookwright.cli.summary",
    "hookwright.cli.elicit",
    "hookwright.runtime.opening",
    "hookwright.runtime.agent",
    "hookwright.runtime.models.scripted",
    "hookwright.runtime.mcp.client",
    "hookwright.dialects",
    "hookwright.dialects.claude_code.loader",
    "hookwright.dialects.openharness.loader",
    "hookwright.dialects.picoclaw.loader",
    "hookwright.dialects.codex.loader",
    "hookwright.dialects.native",
    "hookwright.transports.warm",
    "hookwright.transports.http",
    "hookwright.transports.mcp",
    "hookwright.transports.model",
    "hookwright.transports.rpc",
    "hookwright.engine.state_sqlite",
    "hookwright.host.framework",
)


class RecordingEnviron(MutableMapping[str, str]):
    """`os.environ` while the modules load: notes each variable read (`*` for a read of all)."""

    def __init__(self, real: MutableMapping[str, str]) -> None:
        self.real = real
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> str:
        if not _from_sysconfig():
            self.read.add(key)
        return self.real[key]

    def __iter__(self) -> Iterator[str]:
        self.read.add("*")
        return iter(self.real)

    def __len__(self) -> int:
        self.read.add("*")
        return len(self.real)

    def __setitem__(self, key: str, value: str) -> None:
        self.real[key] = value

    def __delitem__(self, key: str) -> None:
        del self.real[key]

    def copy(self) -> dict[str, str]:
        self.read.add("*")
        return dict(self.real)


def _from_sysconfig() -> bool:
    """Whether the standard library's `sysconfig` is reading: it keeps the user base (from
    HOME), which a virtual environment's interpreter never uses (no user site)."""
    frame = sys._getframe(2)
    for _ in range(8):
        if frame is None:
            return False
        if frame.f_code.co_filename.endswith("/sysconfig.py"):
            return True
        frame = frame.f_back
    return False


@contextlib.contextmanager
def reads_noted() -> Iterator[set[str]]:
    """The environment variables read in the window, whose values what loaded may have kept."""
    real = os.environ
    recording = RecordingEnviron(real)
    os.environ = recording  # type: ignore[assignment]  # noqa: B003 - reads only, undone below
    try:
        yield recording.read
    finally:
        os.environ = real  # noqa: B003 - the real mapping back


def preload(extra: list[str]) -> None:
    """Import `PRELOAD` and `extra` (a module that is gone or fails to import is left to the
    run)."""
    for name in (*PRELOAD, *extra):
        try:
            importlib.import_module(name)
        except Exception:  # the run imports it again and reports the error there
            continue


def load_entry(code: str) -> Callable[[], object]:
    """Run `code` as `python -c "CODE; main()"` runs it before `main()` (in a `__main__`
    namespace of its own, the program named but its arguments not set yet: the entry points
    read them only when called); the call of its `main`."""
    namespace: dict[str, object] = {"__name__": "__main__"}
    sys.argv = ["hookwright"]
    exec(code, namespace)
    return lambda: exec("main()", namespace)


def run_module() -> None:
    runpy.run_module("hookwright", run_name="__main__", alter_sys=True)


def receive(control: socket.socket) -> tuple[dict[str, object], list[int]] | None:
    fds = array.array("i")
    data, ancillary, _flags, _addr = control.recvmsg(
        MESSAGE_BYTES, socket.CMSG_SPACE(FDS_PER_REQUEST * fds.itemsize)
    )
    if not data:
        return None
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
    return json.loads(data), list(fds)


def become_the_run(
    request: dict[str, object], stdio: list[int], command: Callable[[], object]
) -> None:
    """In the forked run: take the request's stdio, environment and folder, then run the
    command (`python -m hookwright ARGS`, or the entry point's `main()`; its exit, atexit
    handlers and flushes are the process's own)."""
    for target, fd in enumerate(stdio):
        os.dup2(fd, target)
    for fd in set(stdio):
        if fd > 2:
            os.close(fd)
    env = request["env"]
    assert isinstance(env, dict)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(str(request["cwd"]))
    umask = request["umask"]
    assert isinstance(umask, int)
    os.umask(umask)
    args = request["args"]
    assert isinstance(args, list)
    sys.argv = ["hookwright", *args]
    try:
        command()
    except SystemExit as done:
        exit_as_python_does(done.code)
    exit_as_python_does(0)


def exit_as_python_does(code: object) -> NoReturn:
    """End the run as the interpreter's own exit would, up to the end of the steps a spawned
    run's observers see: `code` (None 0, an int itself, anything else printed on stderr and
    1), the wait for non-daemon threads, the atexit handlers, stdout and stderr flushed (a
    failed flush: 120, as Python exits then). The interpreter's teardown of the preloaded
    modules is skipped: it would free, and so copy, every page of the server's heap this
    process shares (about 40 % of a short forked run's CPU); `SPAWN_CLI=1` runs it."""
    status = 0 if code is None else code
    if not isinstance(status, int):
        print(status, file=sys.stderr)
        status = 1
    threading._shutdown()  # type: ignore[attr-defined]  # the interpreter's exit step
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = 120
    os._exit(status)


def serve_one(request: dict[str, object], fds: list[int], command: Callable[[], object]) -> None:
    """In the middle process: fork the run, report its pid and wait status, exit."""
    status_fd, *stdio = fds
    pid = os.fork()
    if pid == 0:
        os.close(status_fd)
        become_the_run(request, stdio, command)
    for fd in stdio:
        os.close(fd)
    status = socket.socket(fileno=status_fd)
    status.sendall(f"{pid}\n".encode())
    _, wait_status = os.waitpid(pid, 0)
    status.sendall(f"{os.waitstatus_to_exitcode(wait_status)}\n".encode())
    status.close()
    os._exit(0)


def reap_finished(block: bool = False) -> None:
    """Reap the middle processes that have exited (`block`: wait for all of them)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main() -> None:
    extra, control_fd = sys.argv[2:-1], int(sys.argv[-1])
    command: Callable[[], object] = run_module
    with reads_noted() as read:
        if extra[:1] == [ENTRY_FLAG]:
            command = load_entry(extra[1])
        else:
            preload(extra)
    # The client serves a run warm only when these variables have the same values in its
    # environment (what a module read at import would otherwise keep from this process).
    sys.stdout.write(json.dumps(sorted(read)) + "\n")
    sys.stdout.flush()
    # What is loaded now stays out of every run's garbage collections, so a run does not
    # copy the pages of the whole preloaded heap (each collection would touch every object).
    gc.freeze()
    control = socket.socket(fileno=control_fd)
    while (received := receive(control)) is not None:
        request, fds = received
        if os.fork() == 0:
            control.close()
            serve_one(request, fds, command)
        for fd in fds:
            os.close(fd)
        reap_finished()
    reap_finished(block=True)


main()
