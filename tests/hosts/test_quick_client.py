"""The quick client `install claude-code` writes: it answers through a running daemon by
itself, imports nothing but the interpreter's C modules, follows no link, and never prints an
answer that is not the daemon's (it hands the event to the full client, which answers it)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.hosts.project import hook_input, make_project, run_installed
from tests.hosts.test_daemon import DENY, RM, installed

from hookwright.bridges import claude_client, quick_claude_client, quick_exchange

#: What the client may import: its common case and the C modules that names (the digest one
#: only when asked); `quick_relay` only beyond the common case.
ALLOWED = {"quick_exchange", "_json", "_socket", "_sha256", "_sha2"}


def imported(*args: str) -> set[str]:
    """The modules `python -I -S -X importtime ARGS` imports (the marker set: the client
    answers nothing, after its imports)."""
    env = {**os.environ, claude_client.MARKER: "1"}
    command = [sys.executable, "-I", "-S", "-X", "importtime", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    return {line.rsplit("|", 1)[1].strip() for line in lines} - {"package"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "proj")


def test_the_quick_client_imports_only_the_interpreters_c_modules() -> None:
    extra = imported(quick_claude_client.__file__) - imported("-c", "pass")
    assert extra <= ALLOWED and "quick_exchange" in extra
    assert "_socket" not in extra  # loaded where a socket is opened (not for the marker)


def test_it_answers_through_the_running_daemon_by_itself(project: Path, tmp_path: Path) -> None:
    hooks = installed(project, "command")
    start = hook_input(project, "SessionStart", source="startup")
    assert run_installed(hooks["SessionStart"]["command"], start, project).returncode == 0
    alone = tmp_path / "alone" / "quick_claude_client.py"
    alone.parent.mkdir()
    shutil.copy(quick_claude_client.__file__, alone)
    shutil.copy(quick_exchange.__file__, alone.parent)  # the common case needs no other module
    command = f"{sys.executable} -I -S {alone} --project {project}"
    done = run_installed(command, hook_input(project, "PreToolUse", **RM), project)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"] == DENY


class FakeDaemon:
    """A listener of this user on a socket path, answering each connection `answer`."""

    def __init__(self, path: Path, answer: bytes) -> None:
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(path))
        self.server.listen()
        self.answer = answer
        self.connections = 0
        #: The pid of each process that connected (`SO_PEERCRED`), and its command line then.
        self.peers: list[int] = []
        self.command_lines: list[list[str]] = []
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn:
                self.connections += 1
                raw = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
                self.peers.append(int.from_bytes(raw[:4], sys.byteorder))
                cmdline = Path(f"/proc/{self.peers[-1]}/cmdline").read_bytes()
                self.command_lines.append(cmdline.decode().split("\0")[:-1])
                while conn.recv(65536):
                    pass
                conn.sendall(self.answer)

    def close(self) -> None:
        self.server.shutdown(socket.SHUT_RDWR)
        self.server.close()
        self.thread.join(timeout=10)


@pytest.fixture
def fake_daemon() -> Iterator[list[FakeDaemon]]:
    started: list[FakeDaemon] = []
    yield started
    for daemon in started:
        daemon.close()


@pytest.mark.parametrize(
    "answer",
    [b"ALLOW\n", b'{"exit": "0"}\nALLOW', b'{"exit": 0, "stderr": 1}\nALLOW', b"", b"[0]\nALLOW"],
)
def test_an_answer_that_is_not_the_daemons_is_never_printed(
    project: Path, fake_daemon: list[FakeDaemon], answer: bytes
) -> None:
    hooks = installed(project, "command")
    path = claude_client.socket_path(Path.home())
    fake_daemon.append(FakeDaemon(path, answer))
    done = run_installed(
        hooks["PreToolUse"]["command"], hook_input(project, "PreToolUse", **RM), project
    )
    assert fake_daemon[0].connections >= 2
    assert done.returncode == 0, done.stderr
    assert b"ALLOW" not in done.stdout
    assert json.loads(done.stdout)["hookSpecificOutput"] == DENY


def test_a_link_in_place_of_the_runtime_folder_is_not_followed(
    project: Path, tmp_path: Path, fake_daemon: list[FakeDaemon]
) -> None:
    hooks = installed(project, "command")
    folder = claude_client.runtime_dir(Path.home())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    fake_daemon.append(FakeDaemon(elsewhere / claude_client.SOCKET_NAME, b'{"exit": 0}\nALLOW'))
    folder.rmdir()
    folder.symlink_to(elsewhere)
    done = run_installed(
        hooks["PreToolUse"]["command"], hook_input(project, "PreToolUse", **RM), project
    )
    assert fake_daemon[0].connections == 0
    assert b"ALLOW" not in done.stdout
    assert json.loads(done.stdout)["hookSpecificOutput"] == DENY
    assert os.path.islink(folder)


def as_claude_code(command: str, stdin: bytes, project: Path) -> tuple[int, bytes, bytes, int]:
    """`run_installed`, also giving the pid of the shell Claude Code starts."""
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project)}
    env.pop(claude_client.MARKER, None)
    pipe = subprocess.PIPE
    with subprocess.Popen(
        ["sh", "-c", command], stdin=pipe, stdout=pipe, stderr=pipe, cwd=project, env=env
    ) as shell:
        out, err = shell.communicate(stdin, timeout=60)
    return shell.returncode, out, err, shell.pid


def test_the_shell_becomes_the_client_and_prints_the_answer_whole(
    project: Path, fake_daemon: list[FakeDaemon]
) -> None:
    """`exec`: no shell waits for the client; the client ends without the interpreter's
    tear-down, after every byte of the answer is out (more than a pipe holds), with the
    daemon's exit code and stderr."""
    hooks = installed(project, "command")
    printed = b"".join(b"%07d\n" % n for n in range(200_000))
    head = b'{"exit": 2, "stderr": "hookwright: blocked \\u00e9"}\n'  # no line end
    fake_daemon.append(FakeDaemon(claude_client.socket_path(Path.home()), head + printed))
    code, out, err, shell = as_claude_code(
        hooks["PreToolUse"]["command"], hook_input(project, "PreToolUse", **RM), project
    )
    assert (code, err.decode()) == (2, "hookwright: blocked \u00e9")
    assert out == printed
    assert fake_daemon[0].peers == [shell]


@pytest.mark.parametrize(
    "head", [b'{"exit": 0, "stderr": ""}', b'{"exit":0,"stderr":""}', b'{"stderr": "", "exit": 0}']
)
def test_the_daemons_answer_is_read_strictly_in_any_json_spelling(
    project: Path, fake_daemon: list[FakeDaemon], head: bytes
) -> None:
    hooks = installed(project, "command")
    fake_daemon.append(FakeDaemon(claude_client.socket_path(Path.home()), head + b"\nANSWER"))
    done = run_installed(
        hooks["PreToolUse"]["command"], hook_input(project, "PreToolUse", **RM), project
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"ANSWER", b"")
    assert fake_daemon[0].connections == 1


def relayed_imports(command: str, project: Path) -> tuple[set[str], bytes]:
    """What the installed command imports (`-X importtime`) answering a PreToolUse through
    the running daemon, and what it printed."""
    timed = command.replace(" -I -S ", " -I -S -X importtime ", 1)
    done = run_installed(timed, hook_input(project, "PreToolUse", **RM), project)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.decode().splitlines() if line.startswith("import time:")]
    return {line.rsplit("|", 1)[1].strip() for line in lines}, done.stdout


@pytest.mark.parametrize(("folder", "loads_json"), [("proj", False), ('pro"j \\ é\x7f', True)])
def test_the_header_is_json_and_json_loads_only_for_an_unusual_path(
    tmp_path: Path, folder: str, loads_json: bool
) -> None:
    project = make_project(tmp_path / folder)
    hooks = installed(project, "command")
    start = hook_input(project, "SessionStart", source="startup")
    assert run_installed(hooks["SessionStart"]["command"], start, project).returncode == 0
    modules, printed = relayed_imports(hooks["PreToolUse"]["command"], project)
    assert json.loads(printed)["hookSpecificOutput"] == DENY
    assert ("_json" in modules) is loads_json
    assert "_socket" in modules
    assert "quick_relay" not in modules  # the common case loads none of the rarer paths


def test_a_text_is_written_as_the_json_encoder_writes_it() -> None:
    import _json

    texts = [chr(n) for n in range(0x180)] + ["/home/me/proj", "", 'a"b', "a\\b", "\ud800"]
    for text in texts:
        assert quick_exchange.json_text(text) == _json.encode_basestring_ascii(text), repr(text)


@pytest.mark.parametrize(
    ("name", "utf8"),
    [
        (None, True),
        ("C", True),
        ("POSIX", True),
        ("C.UTF-8", True),
        ("en_US.utf8", True),
        ("de_DE.UTF-8@euro", True),
        ("en_US", False),
        ("de_DE.ISO-8859-1", False),
        ("ja_JP.eucJP", False),
        (".UTF-8", False),
        ("/usr/share/locale/x.UTF-8/..", False),
    ],
)
def test_a_locale_is_utf8_only_when_its_name_says_so(name: str | None, utf8: bool) -> None:
    for variable in ("LC_ALL", "LC_CTYPE", "LANG"):
        environ = {} if name is None else {variable.encode(): name.encode()}
        assert quick_exchange.utf8_locale(environ) is utf8, (variable, name)
    legacy = {b"LC_ALL": b"de_DE.ISO-8859-1", b"LC_CTYPE": b"C.UTF-8", b"LANG": b"C.UTF-8"}
    assert not quick_exchange.utf8_locale(legacy)  # LC_ALL first, then LC_CTYPE, then LANG
    assert quick_exchange.utf8_locale({b"LC_ALL": b"", b"LC_CTYPE": b"C.UTF-8"})


@pytest.mark.parametrize(("locale", "utf8_mode"), [("C.UTF-8", True), ("de_DE.ISO-8859-1", False)])
def test_the_client_runs_in_utf8_mode_only_under_a_utf8_locale(
    project: Path,
    fake_daemon: list[FakeDaemon],
    monkeypatch: pytest.MonkeyPatch,
    locale: str,
    utf8_mode: bool,
) -> None:
    """Under another locale the client starts again without `-X utf8` before it reads
    anything, and answers as before (the daemon asked once, its answer printed whole)."""
    hooks = installed(project, "command")
    assert " -I -S -X utf8 " in hooks["PreToolUse"]["command"]
    fake_daemon.append(
        FakeDaemon(claude_client.socket_path(Path.home()), b'{"exit": 0, "stderr": ""}\nANSWER')
    )
    monkeypatch.setenv("LC_ALL", locale)
    done = run_installed(
        hooks["PreToolUse"]["command"], hook_input(project, "PreToolUse", **RM), project
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"ANSWER", b"")
    assert fake_daemon[0].connections == 1
    [words] = fake_daemon[0].command_lines
    flags = ["-I", "-S", "-X", "utf8"] if utf8_mode else ["-I", "-S"]
    assert words[1:] == [*flags, quick_claude_client.__file__, "--project", str(project)]
