"""A pre-started Python interpreter that forks one process per Python command hook run.

Run as ``<python> server.py <control fd> <fingerprint expression> [<status board fd>
[<marker placeholder variable>]]`` by `hookwright.transports.warm`, with the interpreter and
start-up environment of the hooks it serves; stdlib only, and must stay valid for every
CPython 3.10+ it may be run by. The template (this process) never runs user code: it
pre-imports the stdlib modules hooks commonly use, reports a fingerprint of its start-up
state, then serves on the control socket (a socketpair end inherited from the engine, so no
other process can reach it). A run is one packet: the run as JSON plus four file descriptors
(a reply channel, stdin, stdout, stderr). The engine sends it straight to a *standby* (see
`_Template`), or to the template, which then forks the run and answers its pid on the
channel. Either way the template reports the wait status on the channel when the process
exits. The child becomes a fresh session leader, writes the run's marker into its initial
environment block (`_mark`), takes the descriptors as 0, 1 and 2, closes everything else,
replaces its environment, cwd, argv and std streams, and runs the script as ``__main__``;
then it ends as a fresh process would (the steps of `hookwright/core/python_exit.py`, loaded by
its path), reporting its exit code on the status board (a memory file shared with the engine)
just before it exits.
"""

_MAIN_KEYS = tuple(globals())

import sys  # noqa: E402

del sys.path[0]

import argparse  # noqa: E402,F401
import base64  # noqa: E402,F401
import builtins  # noqa: E402
import collections  # noqa: E402,F401
import contextlib  # noqa: E402
import dataclasses  # noqa: E402,F401
import datetime  # noqa: E402,F401
import fnmatch  # noqa: E402,F401
import functools  # noqa: E402,F401
import gc  # noqa: E402
import glob  # noqa: E402,F401
import hashlib  # noqa: E402,F401
import importlib.machinery  # noqa: E402
import io  # noqa: E402
import itertools  # noqa: E402,F401
import json  # noqa: E402
import mmap  # noqa: E402
import os  # noqa: E402
import pathlib  # noqa: E402,F401
import re  # noqa: E402,F401
import select  # noqa: E402
import shlex  # noqa: E402,F401
import shutil  # noqa: E402,F401
import signal  # noqa: E402
import socket  # noqa: E402
import stat  # noqa: E402
import string  # noqa: E402,F401
import struct  # noqa: E402
import subprocess  # noqa: E402,F401
import tempfile  # noqa: E402,F401
import textwrap  # noqa: E402,F401
import threading  # noqa: E402
import time  # noqa: E402,F401
import traceback  # noqa: E402
import types  # noqa: E402
import typing  # noqa: E402
import urllib.parse  # noqa: E402,F401
import warnings  # noqa: E402


def _load_by_path(name: str, path: str) -> types.ModuleType:
    """The module in `path`, run as `name` (this process cannot import hookwright's package;
    the module is not put in ``sys.modules``, where a hook would see it)."""
    module = types.ModuleType(name)
    module.__file__ = path
    with open(path, "rb") as fh:
        exec(compile(fh.read(), path, "exec", dont_inherit=True), module.__dict__)
    return module


if typing.TYPE_CHECKING:
    from hookwright.core import python_exit as _python_exit
else:
    _python_exit = _load_by_path(
        "_hookwright_python_exit",
        os.path.join(os.path.dirname(os.path.dirname(__file__)), "core", "python_exit.py"),
    )

_KNOWN_MAIN_KEYS = frozenset(
    (
        "__name__",
        "__doc__",
        "__package__",
        "__loader__",
        "__spec__",
        "__annotations__",
        "__builtins__",
        "__file__",
        "__cached__",
    )
)
_MAX_REQUEST = 1 << 17
_TEMPLATE_MODULES: frozenset[str] = frozenset()
#: The status board shared with the engine (see `_report_exit`), when it gave one.
_BOARD: "mmap.mmap | None" = None
#: Where the run's marker goes in the initial environment block (see `_mark`): the address
#: and length of the placeholder variable the engine started this process with.
_MARK_PLACE: "tuple[int, int] | None" = None
_SLOT = struct.Struct("<II")
_STD_NAMES = ("<stdin>", "<stdout>", "<stderr>")
#: How many standbys wait for a run at a time.
_STANDBYS = 2
#: Scripts compiled ahead by the template (`_precompile`): (cwd, script) -> (the path compiled
#: as, the source, the code, what `stat` said of the file then).
_COMPILED: "dict[tuple[str, str], tuple[str, bytes, types.CodeType, tuple[int, ...]]]" = {}
_MAX_COMPILED = 16
_MAX_PRECOMPILE = 1 << 17
#: Every signal, as plain numbers (`signal.valid_signals()` makes an enum member of each,
#: about 0.1 ms in a child whose pages are shared with the template).
_ALL_SIGNALS = tuple(int(number) for number in signal.valid_signals())


class _Job:
    """One run, in the forked child: what to set up before running the script."""

    def __init__(self, request: "dict[str, typing.Any]") -> None:
        self.cwd: str = request["cwd"]
        self.env: list[list[str]] = request["env"]
        self.argv: list[str] = request["argv"]
        self.orig_argv: list[str] = request["orig_argv"]
        self.script: str = request["script"]
        self.path0: str = request["path0"]
        #: (slot, nonce) on the status board for this run's exit status.
        self.report: list[int] | None = request.get("report")
        #: ``NAME=token``: the run's marker, as the leftover hunt reads it.
        self.mark: str | None = request.get("mark")
        #: The values to set to make the inherited environment `env` (`_env_changes`), when
        #: a standby worked them out; None: the whole environment is compared.
        self.changes: list[tuple[str, str]] | None = None
        self.pid = 0


class _Template:
    """The serving loop. Runs are forked ahead of time: a *standby* child, already in a
    session of its own with every inherited descriptor closed, waits on a socketpair for one
    run's packet. The template gives the engine its end of that socketpair (a packet on the
    control socket naming the standby's pid), so the engine hands the next run to the standby
    directly; the standby passes the run's reply channel back to the template (its *note*
    socket) before it runs anything, and the template reports the wait status on it as for
    any run. :data:`_STANDBYS` standbys wait at a time, so the one a run gets was forked
    while earlier runs went on and is ready even when runs follow each other closely; the
    next is forked as soon as one is taken. A request that reaches the template itself (the
    engine had no standby) is forked there and then."""

    def __init__(self, control: socket.socket) -> None:
        self.control = control
        self.poller = select.poll()
        self.poller.register(control.fileno(), select.POLLIN)
        #: pidfd -> (pid, reply channel); a standby has no channel yet.
        self.runs: dict[int, tuple[int, socket.socket | None]] = {}
        #: note socket fd -> (the standby's pidfd, the socket)
        self.notes: dict[int, tuple[int, socket.socket]] = {}
        #: The pidfds of the standbys given to the engine and not taken yet.
        self.waiting: set[int] = set()
        self.listening = True
        streams = (sys.stdin, sys.stdout, sys.stderr)
        self.stdio = [(s.encoding, s.errors or "strict") for s in streams]
        self.buffered = not getattr(sys.stdout, "write_through", False)
        #: The std streams of the next run, built here once (see `_pipe_streams`).
        self.streams = _pipe_streams(self.stdio, self.buffered)
        #: This process's own std streams, held so that a run, replacing them with its own,
        #: does not finalize them (their flush, close and release touched about 30 pages
        #: shared with this process, each copied, about 0.1 ms of the run).
        self.own_streams = (sys.__stdin__, sys.__stdout__, sys.__stderr__, *streams)

    def serve(self) -> "_Job | None":
        """Until the engine hangs up and every run has ended: None; in a forked child: its
        job."""
        job = self.fill()
        if job is not None:
            return job
        while self.listening or self.runs:
            for fd, _events in self.poller.poll()[:1]:
                job = self.handle(fd)
                if job is not None:
                    return job
        return None

    def handle(self, fd: int) -> "_Job | None":
        """One ready descriptor (one per `poll`: handling it may close and reuse
        descriptors that the same `poll` reported)."""
        if self.listening and fd == self.control.fileno():
            try:
                msg, fds, _flags, _addr = socket.recv_fds(self.control, _MAX_REQUEST, 4)
            except InterruptedError:
                return None
            if not msg and not fds:
                self.listening = False
                self.poller.unregister(fd)
                return None
            return self.start(msg, fds)
        if fd in self.notes:
            return self.taken(fd)
        if fd in self.runs:
            return self.reap(fd)
        return None

    def fill(self) -> "_Job | None":
        """Fork standbys until :data:`_STANDBYS` wait (or a fork fails); in a standby: its
        job."""
        while self.listening and len(self.waiting) < _STANDBYS:
            waiting = len(self.waiting)
            job = self.prepare()
            if job is not None or len(self.waiting) == waiting:
                return job
        return None

    def prepare(self) -> "_Job | None":
        """Fork the next standby and give the engine its socket; in the standby: wait for its
        run and return it."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        note, their_note = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            pid = os.fork()
        except OSError:
            for sock in (ours, theirs, note, their_note):
                sock.close()
            return None
        if pid == 0:
            ours.detach()
            note.detach()
            return self.wait_as_standby(theirs, their_note)
        theirs.close()
        their_note.close()
        pidfd = os.pidfd_open(pid)
        self.poller.register(pidfd, select.POLLIN)
        self.runs[pidfd] = (pid, None)
        note.setblocking(False)
        self.poller.register(note.fileno(), select.POLLIN)
        self.notes[note.fileno()] = (pidfd, note)
        self.waiting.add(pidfd)
        try:
            socket.send_fds(self.control, [b'{"standby": %d}' % pid], [ours.fileno()])
        except OSError:
            self.listening = False
            self.poller.unregister(self.control.fileno())
        ours.close()
        return None

    def forget(self) -> None:
        """In a forked child: drop the template's sockets without closing their descriptors
        (they are closed by number; an object closing one later could hit a reused number)."""
        notes = (sock for _pidfd, sock in self.notes.values())
        for sock in (self.control, *notes, *(c for _p, c in self.runs.values() if c)):
            sock.detach()
        self.runs.clear()
        self.notes.clear()

    def wait_as_standby(self, theirs: socket.socket, note: socket.socket) -> "_Job | None":
        os.setsid()
        self.forget()
        low, high = sorted((theirs.fileno(), note.fileno()))
        os.closerange(3, low)
        os.closerange(low + 1, high)
        os.closerange(high + 1, os.sysconf("SC_OPEN_MAX"))
        memory = _open_memory()
        if not select.select([theirs], [], [], 0)[0]:
            _rehearse()
        current = list(os.environ.items())
        try:
            msg, fds, _flags, _addr = socket.recv_fds(theirs, _MAX_REQUEST, 4)
            job = _Job(json.loads(msg)) if len(fds) == 4 else None
        except Exception:
            job = None
        if job is None:
            os._exit(0)
        _mark(job.mark, memory)
        job.mark = None
        job.changes = _env_changes(job.env, current)
        with contextlib.suppress(OSError):
            socket.send_fds(note, [_note(job)], fds[:1])
        self.become_child(fds[1:], theirs, note)
        return job

    def taken(self, fd: int) -> "_Job | None":
        """A standby took a run: keep its reply channel and fork the next standby."""
        self.collect(fd)
        return self.fill()

    def collect(self, fd: int) -> None:
        """Keep the reply channel a standby sent on its note socket (the wait status goes
        there), and take the environment of its run as this process's own: the standbys
        forked next inherit it, so their runs usually change a value or two (the run's
        marker) instead of every variable. The template runs nothing that reads it. The
        note (`_note`) carries only the values the standby found different from the
        environment it inherited, or the whole environment when the names differ."""
        pidfd, note = self.notes.pop(fd)
        self.poller.unregister(fd)
        try:
            msg, fds, _flags, _addr = socket.recv_fds(note, _MAX_REQUEST, 1)
            request = json.loads(msg)
            changes = request.get("set")
            if changes is None:
                _apply_env(request["env"])
            else:
                _set_values(changes)
            _precompile(request["cwd"], request["script"])
        except OSError:
            fds = []
        except Exception:
            pass
        note.close()
        self.waiting.discard(pidfd)
        if pidfd in self.runs and fds:
            self.runs[pidfd] = (self.runs[pidfd][0], _channel(fds[0]))
        else:
            for extra in fds:
                os.close(extra)

    def start(self, msg: bytes, fds: "list[int]") -> "_Job | None":
        if len(fds) != 4:
            for fd in fds:
                os.close(fd)
            return None
        return self.fork_now(msg, fds, _channel(fds[0]))

    def fork_now(self, msg: bytes, fds: "list[int]", channel: socket.socket) -> "_Job | None":
        """Fork the run directly (no standby was ready)."""
        try:
            job = _Job(json.loads(msg))
            pid = os.fork()
        except Exception as exc:
            for fd in fds[1:]:
                os.close(fd)
            _send(channel, {"error": repr(exc)})
            channel.close()
            return None
        if pid == 0:
            os.setsid()
            self.forget()
            self.become_child(fds[1:], channel)
            return job
        for fd in fds[1:]:
            os.close(fd)
        pidfd = os.pidfd_open(pid)
        self.poller.register(pidfd, select.POLLIN)
        self.runs[pidfd] = (pid, channel)
        _send_line(channel, b'{"pid": %d}' % pid)
        _precompile(job.cwd, job.script)
        return self.fill()

    def reap(self, pidfd: int) -> "_Job | None":
        """Report how a run ended. A standby that ended before its note was read (its run
        was that quick, or it died waiting) is replaced here, as `taken` would have."""
        note = next((fd for fd, (owner, _s) in self.notes.items() if owner == pidfd), None)
        if note is not None:
            self.collect(note)
        pid, channel = self.runs.pop(pidfd)
        self.poller.unregister(pidfd)
        os.close(pidfd)
        self.waiting.discard(pidfd)
        _pid, status = os.waitpid(pid, 0)
        if channel is not None:
            _send_line(channel, b'{"status": %d}' % status)
            channel.close()
        return self.fill() if note is not None else None

    def become_child(self, stdio: "list[int]", *sockets: socket.socket) -> None:
        """Take the run's pipes as 0, 1 and 2 and close everything else."""
        for target, fd in enumerate(stdio):
            os.dup2(fd, target)
        for sock in sockets:
            sock.detach()
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))


def _env_changes(
    env: "list[list[str]]", current: "list[tuple[str, str]]"
) -> "list[tuple[str, str]] | None":
    """The values to set to turn the environment `current` (``os.environ.items()``) into
    `env`, when both have the same names in the same order; else None (the whole
    environment is replaced)."""
    if len(env) != len(current):
        return None
    changes = []
    for (name, value), (known, old) in zip(env, current, strict=True):
        if name != known:
            return None
        if value != old:
            changes.append((name, value))
    return changes


def _set_values(changes: "typing.Iterable[typing.Sequence[str]]") -> None:
    """Set each (name, value) of `changes` in `os.environ` and the C environment."""
    for name, value in changes:
        os.environ[name] = value


def _apply_env(env: "list[list[str]]") -> None:
    """Make `os.environ` and the C environment exactly `env`, in its order: only the values
    that differ are set when the names are already the same, in the same order."""
    changes = _env_changes(env, list(os.environ.items()))
    if changes is not None:
        _set_values(changes)
        return
    os.environ.clear()
    os.environ.update((name, value) for name, value in env)


def _note(job: _Job) -> bytes:
    """What a standby tells the template of the run it took (`_Template.collect`): the
    script, its folder, and the values it found different from the environment it
    inherited (the whole environment when the names differ)."""
    note: dict[str, typing.Any] = {"cwd": job.cwd, "script": job.script}
    if job.changes is None:
        note["env"] = job.env
    else:
        note["set"] = job.changes
    return json.dumps(note).encode()


def _find_mark_place(name: str) -> "tuple[int, int] | None":
    """The address and length of ``name=...`` in this process's initial environment block
    (what ``/proc/<pid>/environ`` shows), after taking `name` out of `os.environ` and the C
    environment, so nothing reads those bytes but the kernel for ``/proc``."""
    value = os.environ.pop(name, None)
    if value is None:
        return None
    try:
        with open("/proc/self/stat", "rb") as fh:
            env_start = int(fh.read().rsplit(b")", 1)[1].split()[47])
        with open("/proc/self/environ", "rb") as fh:
            block = b"\0" + fh.read()
    except (OSError, ValueError, IndexError):
        return None
    entry = f"{name}={value}".encode()
    at = block.find(b"\0" + entry + b"\0")
    return None if at < 0 else (env_start + at, len(entry))


def _open_memory() -> "int | None":
    """This process's memory, open for `_mark` (a standby opens it while it waits)."""
    if _MARK_PLACE is None:
        return None
    try:
        return os.open("/proc/self/mem", os.O_WRONLY | os.O_CLOEXEC)
    except OSError:
        return None


def _mark(mark: "str | None", memory: "int | None" = None) -> None:
    """Write the run's marker over the placeholder in the initial environment block, so the
    leftover hunt finds this process and the processes it forks without exec (which inherit
    the block) by their ``/proc/<pid>/environ``, as for a spawned hook. Processes it execs get
    the marker from the environment, as always. `memory`: `_open_memory()`'s descriptor,
    closed here."""
    if memory is None and mark is not None:
        memory = _open_memory()
    if memory is None:
        return
    try:
        data = (mark or "").encode()
        if _MARK_PLACE is not None and len(data) == _MARK_PLACE[1]:
            os.pwrite(memory, data, _MARK_PLACE[0])
    except OSError:
        pass
    finally:
        os.close(memory)


def _channel(fd: int) -> socket.socket:
    """The socket object of a run's reply channel (the engine's end of a stream socketpair),
    named as such: without its family and type, the object asks the kernel (three calls)."""
    return socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0, fd)


def _send(channel: socket.socket, message: "dict[str, typing.Any]") -> None:
    _send_line(channel, json.dumps(message).encode())


def _send_line(channel: socket.socket, line: bytes) -> None:
    """`line` and a newline on `channel` (the server's messages of one number are written
    without `json`: its encoder's objects are pages a forked run shares with this process,
    each copied on first write)."""
    with contextlib.suppress(OSError):
        channel.sendall(line + b"\n")


def _stream(fd: int, name: str, encoding: str, errors: str, buffered: bool) -> io.TextIOWrapper:
    """A std stream as CPython's start-up creates it (`create_stdio`)."""
    write = fd != 0
    buffering = -1 if (buffered or not write) else 0
    buf = open(fd, "wb" if write else "rb", buffering, None, None, None, False)  # noqa: SIM115
    raw = buf.raw if buffering else buf  # type: ignore[attr-defined]
    raw.name = name  # type: ignore[misc]
    line_buffering = buffered and (raw.isatty() or fd == 2)
    stream = io.TextIOWrapper(buf, encoding, errors, "\n", line_buffering, not buffered)
    stream.mode = "w" if write else "r"  # type: ignore[misc]
    return stream


def _compact_module_names() -> None:
    """Give ``sys.modules`` keys copied next to each other, in the same order, for the same
    modules. A run's end goes through the keys (`_finish`), and each key it takes is written
    to (its reference count): the names made at import time lie on about 90 different pages,
    each copied from the template on first write (about 0.3 ms); the copies lie on a dozen.
    Run in the template, before it serves, with no other thread."""
    renamed = [(_copy(name), module) for name, module in sys.modules.items()]
    sys.modules.clear()
    sys.modules.update(renamed)


def _copy(name: str) -> str:
    """An equal string, made now (any other key is kept as it is)."""
    if type(name) is not str:
        return name
    return name.encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass")


def _rehearse() -> None:
    """In a standby, before its run (unless the run is already there): the steps of a run
    that touch objects shared with the template, so the pages they write are copied now
    rather than while the run waits: reading the run's request and writing the note on it
    (`json`'s decoder and encoder, about 20 pages each); at the run's end, `_finish` goes
    through `sys.modules` and collects what the template and the standby left to the
    collector, clearing its free lists."""
    json.loads(json.dumps({"cwd": "", "set": [["", ""]], "report": [0, 0], "mark": None}))
    for name in sys.modules:
        if name not in _TEMPLATE_MODULES:
            break
    gc.collect()


def _precompile(cwd: str, script: str) -> None:
    """Compile the script a run was given, for the runs of it forked after this one. Its
    child reads the script itself and uses this code only when it read the same bytes and
    compiles under the same path; else it compiles as before. Not kept: a large script, one
    that does not compile, or one whose compilation warns (the child's own compile would
    print the warning). A script whose `stat` (inode, size, times) is what it was when it
    was compiled is not read again."""
    try:
        target = os.path.join(cwd, script)
        info = os.stat(target)
        seen = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        known = _COMPILED.get((cwd, script))
        if known is not None and known[3] == seen:
            return
        source = _read_regular_file(target, _MAX_PRECOMPILE + 1)
        if source is None:
            return
        if known is not None and known[1] == source:
            _COMPILED[(cwd, script)] = (known[0], source, known[2], seen)
            return
        if len(source) > _MAX_PRECOMPILE:
            return
        path = os.path.join(os.path.realpath(cwd), script)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            code = compile(source, path, "exec", dont_inherit=True)
    except Exception:
        return
    if not caught:
        if len(_COMPILED) >= _MAX_COMPILED:
            _COMPILED.clear()
        _COMPILED[(cwd, script)] = (path, source, code, seen)


def _read_regular_file(path: str, limit: int) -> bytes | None:
    """Up to `limit` bytes of `path` when it is a regular file, else None: the template never
    waits on a FIFO or a device a hook names as its script (opened without blocking)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with open(fd, "rb", closefd=False) as fh:
            return fh.read(limit)
    finally:
        os.close(fd)


def _compiled(job: _Job, path: str, source: bytes) -> types.CodeType:
    """The script's code: compiled ahead by the template when that was of the same source
    under the same path, else compiled now."""
    known = _COMPILED.get((job.cwd, job.script))
    if known is not None and known[0] == path and known[1] == source:
        return known[2]
    return compile(source, path, "exec", dont_inherit=True)


def _pipe_streams(
    stdio: "list[tuple[str, str]]", buffered: bool
) -> "list[io.TextIOWrapper] | None":
    """The std streams every run's child takes, built once in the template: each stream is
    built over a pipe on its descriptor (0, 1, 2), as the run's will be, then the template's
    own descriptors are put back. What a stream learns from its descriptor when it is built
    (not seekable, not a terminal, a pipe's block size) is then true of the run's pipes,
    which the child puts on 0, 1 and 2 under the same objects. Building them in the child
    touches the codec and io machinery, about 0.2 ms in a process whose pages are shared
    with the template."""
    try:
        saved = [os.dup(fd) for fd in range(3)]
        pipes = [os.pipe() for _fd in range(3)]
    except OSError:
        return None
    try:
        for fd, (read_end, write_end) in enumerate(pipes):
            os.dup2(read_end if fd == 0 else write_end, fd)
        return [
            _stream(fd, _STD_NAMES[fd], encoding, errors, buffered)
            for fd, (encoding, errors) in enumerate(stdio)
        ]
    except OSError:
        return None
    finally:
        for fd, old in enumerate(saved):
            os.dup2(old, fd)
            os.close(old)
        for pipe in pipes:
            os.close(pipe[0])
            os.close(pipe[1])


def _become(job: _Job, template: _Template) -> "dict[str, typing.Any]":
    """Turn this forked child into the fresh process the hook would have been."""
    _mark(job.mark)
    os.chdir(job.cwd)
    if job.changes is None:
        _apply_env(job.env)
    else:
        _set_values(job.changes)
    sys.argv[:] = job.argv
    sys.orig_argv[:] = job.orig_argv
    sys.path.insert(0, job.path0)
    streams = template.streams or [
        _stream(fd, _STD_NAMES[fd], encoding, errors, template.buffered)
        for fd, (encoding, errors) in enumerate(template.stdio)
    ]
    sys.stdin, sys.stdout, sys.stderr = streams
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams  # type: ignore[misc]
    path = job.script if os.path.isabs(job.script) else os.path.join(os.getcwd(), job.script)
    namespace: dict[str, typing.Any] = {}
    fresh: dict[str, typing.Any] = {
        "__name__": "__main__",
        "__doc__": None,
        "__package__": None,
        "__loader__": importlib.machinery.SourceFileLoader("__main__", path),
        "__spec__": None,
        "__annotations__": {},
        "__builtins__": builtins,
        "__file__": path,
        "__cached__": None,
    }
    for key in _MAIN_KEYS:
        namespace[key] = fresh[key]
    main = types.ModuleType("__main__")
    main.__dict__.clear()
    main.__dict__.update(namespace)
    sys.modules["__main__"] = main
    return main.__dict__


def _run(job: _Job, template: _Template) -> None:
    job.pid = os.getpid()
    status, by_sigint = _executed(job, template)
    _finish(status, job, by_sigint=by_sigint)


def _executed(job: _Job, template: _Template) -> tuple[int, bool]:
    """Run the script as ``__main__``; its exit status and whether a KeyboardInterrupt ended
    it. Once this returns no frame holds the hook's namespace or exception, so `_finish`
    lets them go as an interpreter's exit does."""
    namespace = _become(job, template)
    path = namespace["__file__"]
    try:
        with open(job.script, "rb") as fh:
            source = fh.read()
        code = _compiled(job, path, source)
    except SyntaxError as exc:
        _report(exc, None)
        return 1, False
    try:
        exec(code, namespace)
    except SystemExit as exc:
        return _exit_status(exc), False
    except BaseException as exc:
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code is not code:
            tb = tb.tb_next
        _report(exc, tb)
        return 1, isinstance(exc, KeyboardInterrupt)
    return 0, False


def _exit_status(exc: SystemExit) -> int:
    """What the interpreter makes of an uncaught SystemExit (`_Py_HandleSystemExit`)."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    with contextlib.suppress(Exception):
        sys.stderr.write(str(code) + "\n")
    return 1


def _report(exc: BaseException, tb: types.TracebackType | None) -> None:
    """What `PyErr_Print` does for an uncaught exception at the top level."""
    exc.__traceback__ = tb
    sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, tb
    if hasattr(sys, "last_exc"):
        sys.last_exc = exc
    try:
        sys.excepthook(type(exc), exc, tb)
    except BaseException:
        traceback.print_exc()


def _finish(status: int, job: _Job, *, by_sigint: bool = False) -> None:
    """End the process as `Py_FinalizeEx` would, in its order, then exit at once.

    The steps are `hookwright.core.python_exit.finish`'s (threads joined, atexit handlers
    run, the std streams flushed, the hook's own modules let go: its ``__main__`` and the
    modules it imported, collected first), shared with the quick client's in-process answer.
    The template's modules are not torn down: that would only touch every page inherited
    from the template, which is what made a warm run slow. The exit status is then reported
    ahead of the exit itself (`_report_exit`).
    """
    status = _python_exit.finish(status, _hook_modules, collect_first=True)
    if by_sigint:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    _report_exit(status, job)
    os._exit(status)


def _hook_modules() -> list[str]:
    """The modules a run loaded, in import order, its ``__main__`` first."""
    return ["__main__", *(name for name in sys.modules if name not in _TEMPLATE_MODULES)]


def _report_exit(code: int, job: _Job) -> None:
    """Tell the engine the exit code before exiting, so it need not wait for the kernel to
    tear this process down (about 20 MB of mappings inherited from the template) and the
    template to report the wait status: write it in the run's slot of the status board, then
    close the std descriptors. With nothing else holding the output pipes, the engine reads
    EOF on both, finds the code in the slot and ends the run. Signals are blocked first, so
    nothing runs between the report and the exit. Not in a process the hook forked (it is not
    the run's process), nor when the engine gave no slot."""
    if _BOARD is None or job.report is None or os.getpid() != job.pid:
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, _ALL_SIGNALS)
    slot, nonce = job.report
    with contextlib.suppress(Exception):
        _SLOT.pack_into(_BOARD, slot * _SLOT.size, nonce, code)
        os.closerange(0, 3)


def _main() -> None:
    control = socket.socket(fileno=int(sys.argv[1]))
    global _BOARD
    if len(sys.argv) > 3:
        board = int(sys.argv[3])
        with contextlib.suppress(OSError, ValueError):
            _BOARD = mmap.mmap(board, 0)
        os.close(board)
    global _MARK_PLACE
    if len(sys.argv) > 4:
        _MARK_PLACE = _find_mark_place(sys.argv[4])
    usable = set(_MAIN_KEYS) <= _KNOWN_MAIN_KEYS and hasattr(os, "pidfd_open")
    usable = usable and hasattr(sys, "orig_argv") and threading.active_count() == 1
    names = {"sys": sys, "os": os, "path_tail": list(sys.path)}
    fingerprint = eval(sys.argv[2], names) if usable else None
    creds = control.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    if int.from_bytes(creds[4:8], sys.byteorder) != os.getuid():
        return
    control.sendall(json.dumps({"fingerprint": fingerprint}).encode())
    if fingerprint is None:
        return
    template = _Template(control)
    global _TEMPLATE_MODULES
    _compact_module_names()
    _TEMPLATE_MODULES = frozenset(sys.modules)
    gc.freeze()
    job = template.serve()
    if job is not None:
        _run(job, template)


if __name__ == "__main__":
    _main()
