"""The warm runner: Python command hooks forked from a pre-started interpreter.

A command hook that is a plain Python script invocation (see
:mod:`hookwright.transports.warm_invocation`) costs an interpreter start-up per run when
spawned. `WarmPython` instead asks a template server (:mod:`hookwright._warm.server`), started
once with the same interpreter and start-up environment, to fork a process that becomes the
one the spawn would have started: the same argv, ``sys.executable``, ``sys.path``,
environment (as the shell would have passed it), cwd, std streams (real pipes the engine
reads, passed over the server's private socket), its own session and process group, and exit
status. The engine supervises it exactly like a spawned process (`run_process`).

What makes that exact, per distinct launch (shell, interpreter words, cwd, the environment's
names and the values start-up depends on), is a *probe*, run once: the same shell and
interpreter words run ``-c <probe>``, which reports the environment Python saw (order and
variables the shell and Python's start-up add, such as ``PWD`` or a coerced ``LC_CTYPE``),
``sys.orig_argv[0]`` and a fingerprint of the interpreter's start-up state (``sys.path``,
flags, prefixes, std stream encodings, the start-up variables). A server is used only when its
own fingerprint is identical. Any doubt (an unusual command, a probe or server that fails, a
mismatch) spawns the hook as before; so does ``HOOKWRIGHT_WARM_PYTHON=0``.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import json
import logging
import mmap
import os
import signal
import socket
import struct
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookwright.config.fingerprint import fingerprint
from hookwright.monitor import debug
from hookwright.transports import adoption
from hookwright.transports.warm_invocation import (
    SHELL_HOOKS,
    Invocation,
    Word,
    is_native,
    plain_invocation,
    shell_words,
)
from hookwright.transports.warm_switch import switched_on

if TYPE_CHECKING:
    import asyncio

    from hookwright.transports.warm_process import WarmProcess

log = logging.getLogger("hookwright.transports.warm")

_SERVER = Path(__file__).resolve().parent.parent / "_warm" / "server.py"
_STARTUP_PREFIXES = ("PYTHON", "LC_", "LD_")
_STARTUP_NAMES = frozenset(("LANG", "LANGUAGE", "TZ"))
#: Variables whose value the shell itself may act on (`_` and `PWD` are set by it).
_SHELL_SENSITIVE = frozenset(("PWD", "OLDPWD", "SHLVL", "_", "PATH", "IFS", "POSIXLY_CORRECT"))
_STARTUP = '(k.startswith(("PYTHON","LC_","LD_")) or k in ("LANG","LANGUAGE","TZ"))'
FINGERPRINT = (
    '{"exe":sys.executable,"version":sys.version,"impl":sys.implementation.name,'
    '"path":path_tail,"flags":list(sys.flags),'
    '"prefix":[sys.prefix,sys.base_prefix,sys.exec_prefix,sys.base_exec_prefix],'
    '"stdio":[[s.encoding,s.errors,s.line_buffering,s.write_through]'
    " for s in (sys.stdin,sys.stdout,sys.stderr)],"
    '"fs":[sys.getfilesystemencoding(),sys.getfilesystemencodeerrors()],'
    f'"env":sorted([k,v] for k,v in os.environ.items() if {_STARTUP}),'
    '"bytecode":[sys.dont_write_bytecode,sys.pycache_prefix],"warn":sys.warnoptions,'
    '"x":sorted(map(str,sys._xoptions.items())),'
    '"limits":[sys.getrecursionlimit(),sys.getswitchinterval()],'
    '"risky":[sys.flags.inspect,sys.flags.interactive,sys.flags.isolated,'
    'getattr(sys.flags,"safe_path",0)]}'
)
#: Reads `sys.path` past its first entry (the `-c` run's working folder) and drops that entry
#: before importing anything: a `json.py` in the hook's folder is the hook's, not the probe's.
_PROBE = (
    "import sys\npath_tail=sys.path[1:]\ndel sys.path[:1]\nimport os,json\n"
    'sys.stdout.write(json.dumps({"env":list(os.environ.items()),'
    '"wrapped":os.getpgid(0)!=os.getpid(),'
    f'"argv0":sys.orig_argv[0],"fingerprint":{FINGERPRINT}}}))'
)
_PROBE_TIMEOUT = 10.0
_BOOT_TIMEOUT = 10.0
_REPLY_TIMEOUT = 5.0
_MAX_SERVERS = 4
_MAX_PROBES = 64
_MAX_REQUEST = 1 << 16
#: The status board: a slot per run for the exit code the process reports before it exits.
_SLOTS = 4096
_SLOT = struct.Struct("<II")
#: The variable the server is started with to make room for a run's ``MARKER=token`` in its
#: initial environment block, which its children write the marker over (the hunt for a
#: hook's leftovers reads ``/proc/<pid>/environ``, and a process forked warm shows that block).
_MARK_ROOM = "HOOKWRIGHT_WARM_MARK"
_MARK_PLACEHOLDER = "0" * (len(adoption.MARKER) + 2 * adoption.TOKEN_BYTES - len(_MARK_ROOM))
#: How many of the standbys a server announced are remembered (see `_Server.announced`).
_ANNOUNCED = 64


@dataclass(frozen=True, slots=True)
class _EnvRead:
    """What the runner goes by in a run's environment, read in one pass (`_read_env`)."""

    #: A shell function or a variable that makes a shell read a file is set.
    shell_hooks: bool
    #: The values a shell or Python's start-up acts on, in the environment's order.
    sensitive: tuple[tuple[str, str], ...]
    #: The values Python's start-up acts on, in the environment's order.
    startup: tuple[tuple[str, str], ...]


def _read_env(env: Mapping[str, str]) -> _EnvRead:
    shell_hooks = False
    sensitive: list[tuple[str, str]] = []
    startup: list[tuple[str, str]] = []
    for name, value in env.items():
        if name.startswith(_STARTUP_PREFIXES) or name in _STARTUP_NAMES:
            startup.append((name, value))
            sensitive.append((name, value))
        elif name in _SHELL_SENSITIVE:
            sensitive.append((name, value))
        elif name.startswith("BASH_FUNC_") or name in SHELL_HOOKS:
            shell_hooks = True
    return _EnvRead(shell_hooks, tuple(sensitive), tuple(startup))


@dataclass(frozen=True, slots=True)
class _Probe:
    """What one launch looks like from inside Python, and what it depended on."""

    #: The environment Python saw, in order; None where the input's value passes through.
    env: tuple[tuple[str, str | None], ...]
    #: Input values the shell or start-up changed (or removed): they must be the same.
    changed: tuple[tuple[str, str | None], ...]
    argv0: str
    fingerprint: Any
    #: The shell forks the interpreter rather than exec it (dash), so it reports a death by
    #: signal on stderr as the shell does.
    wrapped: bool

    def environment(self, env: Mapping[str, str]) -> list[list[str]] | None:
        if any(env.get(name) != value for name, value in self.changed):
            return None
        return [[name, env[name] if value is None else value] for name, value in self.env]


def _read_probe(output: str, env: Mapping[str, str]) -> _Probe | None:
    try:
        data = json.loads(output)
        seen = [(str(k), str(v)) for k, v in data["env"]]
        argv0, fingerprint = str(data["argv0"]), data["fingerprint"]
        wrapped = data["wrapped"] is True
    except (ValueError, KeyError, TypeError):
        return None
    ordered = tuple((k, None if env.get(k) == v else v) for k, v in seen)
    names = {k for k, _v in seen}
    changed = {k: env.get(k) for k, v in ordered if v is not None}
    changed.update({k: env[k] for k in env if k not in names})
    return _Probe(ordered, tuple(changed.items()), argv0, fingerprint, wrapped)


class _Server:
    """One template server: its process, control socket and fingerprint."""

    def __init__(self, executable: str, env: dict[str, str]) -> None:
        self.executable = executable
        self.env = env
        self.ready = threading.Event()
        self.fingerprint: Any = None
        self.proc: subprocess.Popen[bytes] | None = None
        self.control: socket.socket | None = None
        self.send_lock = threading.Lock()
        self.dead = False
        self.board: mmap.mmap | None = None
        self._runs = itertools.count(1)
        #: The control socket's receiving side, not blocking: standbys the server gives us.
        self.notices: socket.socket | None = None
        #: Standbys given and not used yet: (pid, our end of its socket).
        self.standbys: list[tuple[int, socket.socket]] = []
        #: The pids of the last standbys announced, used or not: processes the server forked,
        #: so no hook's descendants.
        self.announced: collections.deque[int] = collections.deque(maxlen=_ANNOUNCED)
        threading.Thread(target=self._boot, name="hookwright-warm-boot", daemon=True).start()

    def _boot(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        board = -1
        try:
            board = os.memfd_create("hookwright-warm-board")
            os.ftruncate(board, _SLOTS * _SLOT.size)
            self.board = mmap.mmap(board, 0)
            command = [self.executable, str(_SERVER), str(theirs.fileno()), FINGERPRINT]
            with adoption.starting():
                self.proc = subprocess.Popen(
                    [*command, str(board), _MARK_ROOM],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    cwd="/",
                    env={**self.env, _MARK_ROOM: _MARK_PLACEHOLDER},
                    pass_fds=(theirs.fileno(), board),
                    start_new_session=True,
                )
                adoption.own(self.proc.pid)
            theirs.close()
            os.close(board)
            ours.settimeout(_BOOT_TIMEOUT)
            hello = json.loads(ours.recv(1 << 16) or b"{}")
            self.fingerprint = hello.get("fingerprint")
            ours.settimeout(_REPLY_TIMEOUT)
            self.notices = ours.dup()
            self.notices.setblocking(False)
            self.control = ours
        except (OSError, ValueError) as exc:
            log.debug("warm Python server did not start: %s", exc)
            theirs.close()
            ours.close()
            if board >= 0:
                with contextlib.suppress(OSError):
                    os.close(board)
            self.dead = True
        finally:
            self.ready.set()

    def usable(self) -> bool:
        return not self.dead and (self.proc is None or self.proc.poll() is None)

    def slot(self) -> list[int]:
        """A slot of the status board and a nonce for one run (the slot is reused once
        :data:`_SLOTS` later runs have started; the nonce is never 0, the board's initial
        value)."""
        nonce = (next(self._runs) - 1) % 0xFFFFFFFF + 1
        return [nonce % _SLOTS, nonce]

    def reported(self, slot: list[int]) -> int | None:
        """The exit code the run of `slot` reported before exiting, if it did."""
        board = self.board
        if board is None:
            return None
        nonce, code = _SLOT.unpack_from(board, slot[0] * _SLOT.size)
        return code if nonce == slot[1] else None

    def hand_to_standby(self, request: bytes, fds: list[int]) -> int | None:
        """Give a run straight to a standby process the server forked: its pid, or None
        when no standby took it (then the server is asked). Called just after `_server`
        found the server usable."""
        if self.control is None or self.dead:
            return None
        with self.send_lock:
            self._collect_standbys()
            while self.standbys:
                pid, standby = self.standbys.pop(0)
                try:
                    socket.send_fds(standby, [request], fds)
                except OSError:
                    continue
                finally:
                    standby.close()
                return pid
        return None

    def _collect_standbys(self) -> None:
        """Take the standbys the server announced since the last run (called with the lock
        held)."""
        while self.notices is not None:
            try:
                msg, fds, _flags, _addr = socket.recv_fds(self.notices, 256, 1)
            except OSError:
                return
            if not fds:
                return
            os.set_inheritable(fds[0], False)
            # Named, not asked of the kernel (three calls): the server's end of a standby's
            # socketpair.
            standby = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, 0, fds[0])
            try:
                pid = json.loads(msg)["standby"]
            except (ValueError, KeyError, TypeError):
                standby.close()
                continue
            self.standbys.append((int(pid), standby))
            self.announced.append(int(pid))

    def forked_since(self) -> frozenset[int]:
        """The last standbys announced (those waiting to be collected included)."""
        with self.send_lock:
            self._collect_standbys()
            return frozenset(self.announced)

    def send(self, request: bytes, fds: list[int]) -> bool:
        control = self.control
        if control is None or not self.usable():
            return False
        try:
            with self.send_lock:
                socket.send_fds(control, [request], fds)
        except OSError:
            self.dead = True
            return False
        return True

    def close(self, *, wait: bool = True) -> None:
        """Hang up; the server exits once the runs it forked have ended. With `wait`, wait
        for it (killing it after two seconds)."""
        self.dead = True
        with self.send_lock:
            for _pid, standby in self.standbys:
                standby.close()
            self.standbys.clear()
            if self.notices is not None:
                self.notices.close()
        if self.control is not None:
            self.control.close()
        proc = self.proc
        if proc is not None and wait:
            try:
                proc.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


class WarmPython:
    """The warm runner of one session (`Services.warm_python`): its probes and servers.

    `enabled`: True or False decides; None (the default) follows ``HOOKWRIGHT_WARM_PYTHON``
    (on unless ``0``/``false``/``no``/``off``), read at each run. `close()` (the engine's)
    stops the servers."""

    def __init__(self, enabled: bool | None = None) -> None:
        self.enabled = enabled
        self._lock = threading.Lock()
        self._probes: dict[tuple[Any, ...], _Probe] = {}
        self._invocations: dict[tuple[Any, ...], tuple[Invocation, str, Any]] = {}
        self._servers: dict[tuple[Any, ...], _Server] = {}
        #: Servers let go to make room, still finishing their runs.
        self._retired: list[_Server] = []
        self._closed = False
        #: Runs forked warm and runs left to spawning after a warm attempt (for tests, bench).
        self.forked = 0
        self.declined = 0

    @property
    def on(self) -> bool:
        return not self._closed and switched_on(self.enabled)

    async def launch(
        self,
        args: list[str],
        *,
        shell: bool,
        env: dict[str, str],
        cwd: str | Path | None,
        stdin_data: bytes = b"",
    ) -> WarmProcess | None:
        """Start `args` (``[shell, "-c", command]`` or an argv) warm, or None to spawn it;
        `stdin_data` starts filling its stdin (`WarmProcess.unsent` is the rest)."""
        if not self.on:
            return None
        cwd = str(cwd or os.getcwd())
        try:
            return await self._launch(args, shell=shell, env=env, cwd=cwd, stdin_data=stdin_data)
        except Exception:
            log.exception("warm Python runner failed; spawning")
            return None

    async def _launch(
        self, args: list[str], *, shell: bool, env: dict[str, str], cwd: str, stdin_data: bytes
    ) -> WarmProcess | None:
        read = _read_env(env)
        if read.shell_hooks:
            return None
        checked = self._invocation(args, shell=shell, env=env, cwd=cwd)
        if checked is None:
            return None
        invocation, path0 = checked
        probe = await self._probe(args, invocation, env, cwd, read.sensitive, shell=shell)
        if probe is None:
            self._decline(args, "its interpreter could not be probed, or runs it unusually")
            return None
        environment = probe.environment(env)
        if environment is None:
            self._decline(args, "the shell or Python start-up changed its environment")
            return None
        server = await self._server(probe, read.startup)
        if server is None:
            self._decline(args, "no warm interpreter matches the probed start-up state")
            return None
        slot = server.slot()
        request = {
            "cwd": cwd,
            "env": environment,
            "argv": [invocation.script, *invocation.args],
            "orig_argv": [probe.argv0, invocation.script, *invocation.args],
            "script": invocation.script,
            "path0": path0,
            "report": slot,
            "mark": f"{adoption.MARKER}={env[adoption.MARKER]}" if adoption.MARKER in env else None,
        }
        child = await _fork(server, json.dumps(request).encode(), stdin_data, slot)
        if child is None:
            self._decline(args, "the warm interpreter could not fork it")
        else:
            child.wrapped = shell and probe.wrapped
            self.forked += 1
        return child

    def _decline(self, args: list[str], reason: str) -> None:
        """Leave a Python hook to be spawned, saying why in the `--debug` trace."""
        self.declined += 1
        if debug.state.on:
            debug.trace("warm", f"{debug.short(args)} spawned, not run warm: {reason}")

    def _invocation(
        self, args: list[str], *, shell: bool, env: Mapping[str, str], cwd: str
    ) -> tuple[Invocation, str] | None:
        """The Python script run `args` are and its ``sys.path[0]``, or None. A command found
        plain is remembered with the fingerprints of its script and interpreter files, so a
        repeated call costs two `lstat` calls (more for a link)."""
        key = (tuple(args), shell, cwd, env.get("PATH"))
        with self._lock:
            known = self._invocations.get(key)
        if known is not None and _identity(known[0], cwd) == known[2]:
            return known[0], known[1]
        words = shell_words(args[2]) if shell else [Word(arg, arg) for arg in args]
        if words is None or not os.path.isdir(cwd):
            return None
        invocation = plain_invocation(words, env=env, cwd=cwd, shell=shell)
        if invocation is None:
            if debug.state.on and "python" in os.path.basename(words[0].value):
                debug.trace(
                    "warm",
                    f"{debug.short(args)} spawned, not run warm: not a plain Python script run "
                    "(interpreter options, a launcher that is neither a native interpreter nor "
                    "a pyenv or asdf shim, or a script that is not Python source)",
                )
            return None
        path0 = os.path.dirname(os.path.realpath(os.path.join(cwd, invocation.script)))
        with self._lock:
            if len(self._invocations) >= _MAX_PROBES:
                self._invocations.clear()
            self._invocations[key] = (invocation, path0, _identity(invocation, cwd))
        return invocation, path0

    async def _probe(
        self,
        args: list[str],
        invocation: Invocation,
        env: Mapping[str, str],
        cwd: str,
        sensitive: tuple[tuple[str, str], ...],
        *,
        shell: bool,
    ) -> _Probe | None:
        """The probe of this launch (run once per distinct launch; `sensitive`: the values
        of the environment a shell or Python's start-up acts on)."""
        launcher = tuple(word.raw if shell else word.value for word in invocation.launcher)
        picked = invocation.shim.state(env, cwd) if invocation.shim is not None else None
        key = (args[0] if shell else None, launcher, cwd, tuple(env), sensitive, picked)
        with self._lock:
            probe = self._probes.get(key)
        if probe is None:
            if shell:
                command = " ".join(launcher) + " -c '" + _PROBE + "'"
                probe_args = [args[0], "-c", command]
            else:
                probe_args = [*launcher, "-c", _PROBE]
            output = await _run_probe(probe_args, env, cwd)
            probe = _read_probe(output, env) if output is not None else None
            if probe is None or not _probe_fits(probe, invocation, shell=shell):
                return None
            with self._lock:
                if len(self._probes) >= _MAX_PROBES:
                    self._probes.clear()
                self._probes[key] = probe
        return probe

    async def _server(self, probe: _Probe, startup: tuple[tuple[str, str], ...]) -> _Server | None:
        executable = str(probe.fingerprint["exe"])
        key = (executable, tuple(sorted(startup)))
        with self._lock:
            server = self._servers.get(key)
            if server is not None and not server.usable():
                server.close()
                server = None
                del self._servers[key]
            if server is None:
                if self._closed:
                    return None
                if len(self._servers) >= _MAX_SERVERS:
                    self._retire(next(iter(self._servers)))
                server = self._servers[key] = _Server(executable, dict(startup))
        import asyncio  # loaded: this is awaited (`asyncio` is not loaded to build a runner)

        deadline = time.monotonic() + _BOOT_TIMEOUT
        while not server.ready.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(0.002)
        if not server.usable() or server.fingerprint != probe.fingerprint:
            return None
        return server

    def _retire(self, key: tuple[Any, ...]) -> None:
        """Let the oldest server go (called with the lock held)."""
        server = self._servers.pop(key)
        if server.ready.is_set():
            server.close(wait=False)
        self._retired = [old for old in self._retired if old.proc and old.proc.poll() is None]
        self._retired.append(server)

    def close(self) -> None:
        """Stop the servers (hook processes they forked are supervised by their runs)."""
        with self._lock:
            self._closed = True
            servers = [*self._servers.values(), *self._retired]
            self._servers.clear()
            self._retired.clear()
            self._probes.clear()
        for server in servers:
            server.ready.wait(_BOOT_TIMEOUT)
            server.close()


def _identity(invocation: Invocation, cwd: str) -> Any:
    """What changes when the script or the interpreter file is replaced, edited or relinked
    (`hookwright.config.fingerprint`; None when either is gone: never equal to a remembered
    identity)."""
    files = (fingerprint(os.path.join(cwd, invocation.script)), fingerprint(invocation.interpreter))
    return None if None in files else files


def _probe_fits(probe: _Probe, invocation: Invocation, *, shell: bool) -> bool:
    """The probed interpreter is the one found for the hook (for a shim: the native
    interpreter the shim picked) and runs scripts plainly."""
    fingerprint = probe.fingerprint
    if not isinstance(fingerprint, dict) or any(fingerprint.get("risky", [1])):
        return False
    exe = str(fingerprint.get("exe", ""))
    if not exe:
        return False
    if invocation.shim is not None:
        if not os.path.isabs(exe) or not is_native(exe):
            return False
    elif os.path.realpath(exe) != os.path.realpath(invocation.interpreter):
        return False
    return not (shell and invocation.shebang and any(k == "_" for k, _v in probe.changed))


async def _run_probe(args: list[str], env: Mapping[str, str], cwd: str) -> str | None:
    import asyncio

    try:
        with adoption.starting():
            proc = await asyncio.create_subprocess_exec(
                *args,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
                cwd=cwd,
                env=dict(env),
                start_new_session=True,
            )
            adoption.own(proc.pid)
    except OSError:
        return None
    try:
        stdout, _ = await asyncio.wait_for(proc.communicate(), _PROBE_TIMEOUT)
    except (TimeoutError, asyncio.CancelledError):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 9)
        await proc.wait()
        raise
    if proc.returncode != 0:
        return None
    return stdout.decode("utf-8", errors="surrogateescape")


async def _read_reply(loop: asyncio.AbstractEventLoop, channel: socket.socket) -> tuple[Any, bytes]:
    """The server's first line on `channel` and whatever came after it."""
    data = b""
    while b"\n" not in data:
        chunk = await loop.sock_recv(channel, 256)
        if not chunk:
            return None, b""
        data += chunk
    line, rest = data.split(b"\n", 1)
    return json.loads(line), rest


async def _fork(
    server: _Server, request: bytes, stdin_data: bytes, slot: list[int]
) -> WarmProcess | None:
    """Start a run of `request` (whose exit code may be reported in `slot`): handed to a
    standby directly when the server has given one, else asked of the server; None when
    nothing was started."""
    import asyncio

    from hookwright.transports.warm_process import WarmProcess

    if len(request) > _MAX_REQUEST:
        return None
    loop = asyncio.get_running_loop()
    try:
        stdin_r, stdin_w, out_r, out_w, err_r, err_w = _pipes(3)
    except OSError as exc:
        log.debug("warm Python run not started: %s", exc)
        return None
    try:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError as exc:
        log.debug("warm Python run not started: %s", exc)
        _close_all(stdin_r, stdin_w, out_r, out_w, err_r, err_w)
        return None
    ours.setblocking(False)
    child = WarmProcess(loop)
    child.report = (server, slot)
    try:
        with adoption.starting():
            try:
                child.unsent = _prefill(stdin_w, stdin_data)
                fds = [theirs.fileno(), stdin_r, out_w, err_w]
                sent = False
                pid = server.hand_to_standby(request, fds)
                if pid is None:
                    await child.attach(loop, (stdin_w, out_r, err_r))
                    sent = server.send(request, fds)
            finally:
                theirs.close()
                for fd in (stdin_r, out_w, err_w):
                    os.close(fd)
            pending = b""
            if pid is not None:
                adoption.started(pid)
                await _attach_started(child, loop, (stdin_w, out_r, err_r), pid, ours)
            elif not sent:
                raise ConnectionError("the warm Python server is gone")
            else:
                pid, pending = await _forked_pid(loop, ours, child)
                adoption.started(pid)
    except (OSError, ValueError, TimeoutError) as exc:
        log.debug("warm Python run not started: %s", exc)
        if isinstance(exc, TimeoutError):
            server.dead = True
        child.close()
        if not child.attached:
            _close_all(stdin_w, out_r, err_r)
        ours.close()
        return None
    child.started(pid, ours, pending)
    return child


def _pipes(count: int) -> list[int]:
    """`count` pipes' descriptors (read, write, read, write, ...), or OSError (a descriptor
    limit) with none of them left open."""
    opened: list[int] = []
    try:
        for _ in range(count):
            opened.extend(os.pipe())
    except OSError:
        _close_all(*opened)
        raise
    return opened


def _close_all(*fds: int) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


async def _attach_started(
    child: WarmProcess,
    loop: asyncio.AbstractEventLoop,
    fds: tuple[int, int, int],
    pid: int,
    channel: socket.socket,
) -> None:
    """Connect the pipes of a run a standby already took (the pipes hold what it writes
    meanwhile); if that fails or is cancelled, the run is killed, not left unsupervised."""
    try:
        await child.attach(loop, fds)
    except BaseException:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
        child.close()
        channel.close()
        raise


async def _forked_pid(
    loop: asyncio.AbstractEventLoop, channel: socket.socket, child: WarmProcess
) -> tuple[int, bytes]:
    """The pid the server forked for a request it got itself, and what followed it."""
    import asyncio

    replied = asyncio.ensure_future(asyncio.wait_for(_read_reply(loop, channel), _REPLY_TIMEOUT))
    try:
        reply, pending = await asyncio.shield(replied)
    except asyncio.CancelledError:
        replied.add_done_callback(lambda done: _kill_unwatched(done, channel))
        child.close()
        raise
    pid = reply.get("pid") if isinstance(reply, dict) else None
    if not isinstance(pid, int):
        raise ConnectionError(f"the warm Python server did not fork: {reply}")
    return pid, pending


def _kill_unwatched(replied: asyncio.Future[tuple[Any, bytes]], channel: socket.socket) -> None:
    """A run cancelled while the server forked it: end the process group it got."""
    channel.close()
    with contextlib.suppress(Exception):
        reply, _pending = replied.result()
        pid = reply.get("pid") if isinstance(reply, dict) else None
        if isinstance(pid, int):
            os.killpg(pid, signal.SIGKILL)


def _prefill(fd: int, data: bytes) -> bytes:
    """Write what the stdin pipe takes without blocking before the process exists (it reads
    the same bytes either way); the rest is fed as for a spawned process."""
    os.set_blocking(fd, False)
    try:
        written = os.write(fd, data) if data else 0
    except BlockingIOError:
        written = 0
    return data[written:]
