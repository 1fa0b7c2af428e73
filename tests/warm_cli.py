"""`python -m hookwright ARGS` as a process forked from a Python that has already imported the
command line, for the command-line tests: the same process boundary as a spawned run (its own
pid, stdio, environment, folder, exit status, atexit handlers), without paying each time for
the interpreter start and the imports (most of the suite's CPU before).

Up to two servers (`tests/warm_cli_server.py`) per test process, each started on first use and
ended with it: the lean one for most runs, and one that has also imported the Anthropic and
OpenAI model backends for the runs that name such a model (their SDKs cost a forked run more CPU
to import than the rest of the command line, while a larger heap makes every other forked run
cost more to copy and tear down). A run is spawned instead when its environment differs from a
server's in what acts at interpreter start (any `PYTHON*`, `LANG` or `LC_*` variable) or in a
variable a module read while the server imported it (`HOOKWRIGHT_DEBUG`, say): the server
reports those.

A test that compares entry points (`warm_entry`) has its own server per entry point, started
with exactly the environment of its runs, which has run only that entry point's import.
"""

from __future__ import annotations

import array
import atexit
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

SERVER = Path(__file__).with_name("warm_cli_server.py")
BOOT = "import sys; path = sys.argv[1]; exec(compile(open(path).read(), path, 'exec'))"
#: The server's flag before an entry point's code (`warm_cli_server.ENTRY_FLAG`).
ENTRY_FLAG = "--entry"

#: The `--model` backends with an SDK behind them, and the modules that import those SDKs.
SDK_BACKENDS = ("anthropic:", "openai:")
BACKEND_MODULES = (
    "hookwright.runtime.models.anthropic_model",
    "hookwright.runtime.models.openai_model",
)
#: What makes `hookwright run` pick an SDK-backed model with no `--model` (`default_model_spec`).
MODEL_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL")


def interpreter_settings(env: dict[str, str]) -> dict[str, str]:
    return {
        key: value
        for key, value in env.items()
        if key.startswith(("PYTHON", "LC_")) or key == "LANG"
    }


def names_sdk_model(args: list[str], env: dict[str, str]) -> bool:
    """Whether a run is likely to build an SDK-backed model: an argument names one
    (`--model anthropic:NAME`, `--model=openai:NAME`, `-mopenai:NAME`), or its environment
    configures one (`HOOKWRIGHT_MODEL`, a provider's key or address; the tests' helpers pass
    these only to runs on a fake model API). Only which server forks the run depends on it."""
    for arg in args:
        value = arg.partition("=")[2] if arg.startswith("--") else arg
        if value.removeprefix("-m").startswith(SDK_BACKENDS):
            return True
    return env.get("HOOKWRIGHT_MODEL", "").startswith(SDK_BACKENDS) or any(
        env.get(key) for key in MODEL_ENV
    )


class WarmCli:
    def __init__(
        self, env: dict[str, str], modules: tuple[str, ...] = (), entry: str | None = None
    ) -> None:
        """A server started with `env`'s interpreter settings, importing `modules` beyond the
        command line's own; or, given the code of an `entry` point's import, started with
        exactly `env` and running only that code, its runs calling that entry point's `main`."""
        self.modules = modules
        self.settings = interpreter_settings(env)
        # Only what acts at interpreter start, and PATH: nothing of the first run's (its HOME,
        # a test's process marker) belongs to the server, which outlives that run. An entry
        # point's server serves one test's runs, all with this environment.
        server_env = {**self.settings, "PATH": env.get("PATH", os.defpath)}
        extra = [*modules]
        if entry is not None:
            server_env, extra = dict(env), [ENTRY_FLAG, entry]
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", BOOT, str(SERVER), *extra, str(theirs.fileno())],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=server_env,
            cwd="/",
            pass_fds=(theirs.fileno(),),
        )
        theirs.close()
        atexit.register(self.close)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        #: The variables the loaded modules read (`*`: all of them) and their values here.
        self.read = set(json.loads(line)) if line else {"*"}
        self.kept = {key: server_env.get(key) for key in self.read}

    def close(self) -> None:
        self.control.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def serves(self, env: dict[str, str]) -> bool:
        return (
            self.proc.poll() is None
            and "*" not in self.read
            and interpreter_settings(env) == self.settings
            and all(env.get(key) == value for key, value in self.kept.items())
        )

    def run(
        self,
        args: list[str],
        env: dict[str, str],
        cwd: Path | None,
        stdin: bytes | None,
        timeout: float,
    ) -> subprocess.CompletedProcess[bytes]:
        """The run forked with `stdin` on its standard input (None: the test's own) and
        `args`, `env`, `cwd` (None: the test's folder) and the test's umask, as a spawned run
        would have them; its exit code and output as `subprocess.run` gives them."""
        status, status_theirs = socket.socketpair()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        in_r, in_w = os.pipe() if stdin is not None else (0, -1)
        request = {"args": args, "env": env, "cwd": str(cwd or os.getcwd()), "umask": _umask()}
        fds = array.array("i", [status_theirs.fileno(), in_r, out_w, err_w])
        self.control.sendmsg(
            [json.dumps(request).encode()], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)]
        )
        for fd in (out_w, err_w) + ((in_r,) if stdin is not None else ()):
            os.close(fd)
        status_theirs.close()
        streams: dict[int, bytes] = {}
        workers = [_reader(out_r, streams), _reader(err_r, streams)]
        if stdin is not None:
            workers.append(_writer(in_w, stdin))
        returncode = _finish(status, workers, args, timeout)
        command = [sys.executable, "-m", "hookwright", *args]
        return subprocess.CompletedProcess(command, returncode, streams[out_r], streams[err_r])


def _umask() -> int:
    """This process's umask, which a spawned run would inherit (read without changing it)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("Umask:"):
            return int(line.split()[1], 8)
    raise RuntimeError("no Umask line in /proc/self/status")


def _reader(fd: int, into: dict[int, bytes]) -> threading.Thread:
    def read() -> None:
        with open(fd, "rb") as pipe:
            into[fd] = pipe.read()

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def _writer(fd: int, data: bytes) -> threading.Thread:
    def write() -> None:
        with contextlib.suppress(BrokenPipeError), open(fd, "wb") as pipe:
            pipe.write(data)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def _finish(
    status: socket.socket, workers: list[threading.Thread], args: list[str], timeout: float
) -> int:
    """The run's exit code once it and its output are done; killed after `timeout` seconds
    (`subprocess.TimeoutExpired`, as `subprocess.run` would raise)."""
    status.settimeout(timeout)
    pid, code_line = 0, b""
    with status, status.makefile("rb") as lines:
        try:
            pid = int(lines.readline())
            code_line = lines.readline()
        except TimeoutError:
            pass
    if not code_line:
        if pid:
            os.kill(pid, signal.SIGKILL)
        raise subprocess.TimeoutExpired([sys.executable, "-m", "hookwright", *args], timeout)
    for worker in workers:
        worker.join(timeout)
        if worker.is_alive():
            raise subprocess.TimeoutExpired([sys.executable, "-m", "hookwright", *args], timeout)
    return int(code_line)


#: This process's servers by the modules they import beyond the command line (the lean one: none).
_servers: dict[tuple[str, ...], WarmCli] = {}
_servers_pid = 0
_lock = threading.Lock()


#: `SPAWN_CLI=1` spawns every run (to tell whether a failure has to do with forking).
SPAWN_ALWAYS = os.environ.get("SPAWN_CLI", "") == "1"


def warm_cli(args: list[str], env: dict[str, str]) -> WarmCli | None:
    """The server of this test process to fork `hookwright ARGS` with `env` from (the one with
    the model backends loaded when the run names such a model, else the lean one), started on
    first use; None when neither may serve that environment."""
    global _servers_pid
    if SPAWN_ALWAYS:
        return None
    kinds = [BACKEND_MODULES, ()] if names_sdk_model(args, env) else [()]
    with _lock:
        if _servers_pid != os.getpid():
            _servers.clear()  # a forked copy's servers are its parent's
            _servers_pid = os.getpid()
        for modules in kinds:
            if modules not in _servers:
                _servers[modules] = WarmCli(env, modules)
            if _servers[modules].serves(env):
                return _servers[modules]
        return None


@contextlib.contextmanager
def warm_entry(entry: str, env: dict[str, str]) -> Iterator[WarmCli | None]:
    """A server for runs of `python -c "ENTRY; main()"` with exactly `env` (`ENTRY` imports a
    command line's `main`), ended on leaving; None when such runs are to be spawned
    (`SPAWN_CLI=1`). A run forks from it only while it `serves` the run's environment."""
    if SPAWN_ALWAYS:
        yield None
        return
    server = WarmCli(env, entry=entry)
    try:
        yield server
    finally:
        server.close()
