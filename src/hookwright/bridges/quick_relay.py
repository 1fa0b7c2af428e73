"""What the quick client (`quick_claude_client.py`, the command hook `install claude-code`
writes) does: relay one Claude Code event to the running `hookwright daemon` at the cost of a
bare interpreter start.

It imports no module written in Python, only the interpreter's own C modules (`posix`,
`_socket`, `_sha256`, and `_json` only for a text that is not plain ASCII or an answer other
than the usual one), and ends with `_exit` once the daemon's answer is out, so the client
costs about a `python -I -S -c pass` (the full client, `claude_client.py`, costs several
times that in imports); the client imports this module rather than being it, so it runs
from its cached bytecode instead of being compiled on every event. It answers only the
common case: the daemon's private runtime folder already exists
(``$XDG_RUNTIME_DIR/hookwright-KEY``, or ``hookwright-UID/hookwright-KEY`` under the
temporary folder), every folder on the way is a real folder of this user closed to others,
and the process listening on the socket is this user's (`SO_PEERCRED`).
Anything else is handed, with Claude Code's stdin, to the full client, which creates the
folder, starts the daemon, answers in-process when no daemon can be reached and says why when
nothing answers: no daemon yet, a folder to create or squatted, an unusual ``HOME``, a daemon
gone mid-exchange or an answer that is not the daemon's (then the full client asks again and
falls back in-process, so an unreadable answer is never printed as one).

One case is not handed on: a socket path longer than a Unix socket may be, where no daemon
can ever listen. The full client would answer it in-process at once, in a third interpreter;
this process answers it instead (`answered_here`), loading site-packages and hookwright only
then, as the full client's in-process answer would: in `/`, the project by its absolute
path, the same failure answer.

A process listening on the socket as another user (only root can put one in a folder of this
user's mode 0700) is refused: one line on stderr and exit 1 (a `systemMessage` at
SessionStart), as the full client answers when nothing can.
"""

import posix
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import _socket
    from collections.abc import Callable
    from typing import NoReturn

#: Set in the environment of the hooks hookwright itself runs: the client answers nothing.
MARKER = "HOOKWRIGHT_HOOK_RUN"
SOCKET_NAME = "daemon.sock"
#: How long one exchange with the daemon may take (hooks included), in seconds.
EXCHANGE_TIMEOUT = 600.0
#: The longest Unix socket path the kernel takes (108 bytes with the terminating NUL).
MAX_SOCKET_PATH = 107
FULL_CLIENT = "claude_client.py"
#: The head of the daemon's usual answer (exit 0, nothing on stderr), read as the strict
#: parse reads it without loading `_json`.
PLAIN_HEAD = b'{"exit": 0, "stderr": ""}'
_DIRECTORY = 0o040000
_FILE_TYPE = 0o170000


class Handoff(Exception):
    """The full client must answer this event (the reason is for a reader of this file)."""


class Unreachable(Exception):
    """No daemon can ever answer at this socket path: the event is answered in this process
    (the full client would create the folder and fall back at once, a second interpreter and
    a third for the answer)."""


def _environ(name: str) -> str | None:
    raw = posix.environ.get(name.encode())
    if not raw:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Handoff(f"{name} is not UTF-8") from None


def _private(path: str, uid: int) -> bool:
    """A real folder (not a link) of `uid`, closed to group and others."""
    try:
        info = posix.lstat(path)
    except OSError:
        return False
    is_dir = info.st_mode & _FILE_TYPE == _DIRECTORY
    return is_dir and info.st_uid == uid and not info.st_mode & 0o077


def _normal(path: str) -> bool:
    """`path` is absolute and already as `pathlib` prints it (the daemon's folder is keyed
    by that text)."""
    if path == "/":
        return True
    if not path.startswith("/") or path.startswith("//"):
        return False
    return all(part not in ("", ".") for part in path[1:].split("/"))


def _sha256_hex(data: bytes) -> str:
    try:
        import _sha256 as digests  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # Python 3.12 and later
        import _sha2 as digests  # type: ignore[import-not-found,no-redef,unused-ignore]
    return str(digests.sha256(data).hexdigest())


def _base(uid: int) -> str:
    """The runtime base `claude_client._runtime_base` chooses, when it is usable as found."""
    xdg = _environ("XDG_RUNTIME_DIR")
    if xdg is not None and not xdg.startswith("/"):
        raise Handoff("XDG_RUNTIME_DIR is relative")
    if xdg is not None and _private(xdg, uid):
        return xdg.rstrip("/") or "/"
    temp = _environ("TMPDIR") or _environ("TEMP") or _environ("TMP") or "/tmp"
    if not temp.startswith("/"):
        raise Handoff("the temporary folder is relative")
    base = temp.rstrip("/") + f"/hookwright-{uid}"
    if not _private(base, uid):
        raise Handoff(f"{base} is missing or not private")
    return base


def socket_path() -> str:
    """The daemon's socket, found without creating or changing anything."""
    home = _environ("HOME")
    if home is None or not _normal(home):
        raise Handoff("HOME is unset or not in normal form")
    uid = posix.getuid()
    folder = _base(uid).rstrip("/") + "/hookwright-" + _sha256_hex(home.encode())[:12]
    path = f"{folder}/{SOCKET_NAME}"
    if len(path.encode()) > MAX_SOCKET_PATH:
        raise Unreachable(f"the socket path {path} is longer than {MAX_SOCKET_PATH} bytes")
    if not _private(folder, uid):
        raise Handoff(f"{folder} is missing or not private")
    return path


def _absolute(path: str | None) -> str | None:
    """`path` made absolute against this process's folder (the daemon resolves links)."""
    if path is None or path.startswith("/"):
        return path
    return posix.getcwd() + "/" + path


def _json_text(value: str | None) -> str:
    """`value` as JSON text, as `_json.encode_basestring_ascii` writes it; a text of
    printable ASCII without a quote or backslash (a usual path) is its own JSON text, so
    `_json` is loaded only for the others."""
    if value is None:
        return "null"
    if value.isascii() and value.isprintable() and '"' not in value and "\\" not in value:
        return f'"{value}"'
    import _json

    return str(_json.encode_basestring_ascii(value))


class _Strict:
    """What `_json.make_scanner` reads: strict JSON, no constants beyond JSON's own."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> None:
        raise ValueError(f"{name} is not JSON")


def read_answer(data: bytes) -> tuple[int, str, bytes]:
    """The daemon's answer: exit code, stderr text and the bytes to print; raises
    ValueError for anything else."""
    line, newline, rest = data.partition(b"\n")
    if newline and line == PLAIN_HEAD:
        return 0, "", rest
    text = line.decode("ascii")
    head, end = parse_json(text)
    if not newline or end != len(text) or not isinstance(head, dict):
        raise ValueError("not the daemon's answer")
    code, stderr = head.get("exit"), head.get("stderr", "")
    if type(code) is not int or not isinstance(stderr, str):
        raise ValueError("not the daemon's answer")
    return code, stderr, rest


def peer_uid(conn: "_socket.socket") -> int | None:
    import _socket

    option = getattr(_socket, "SO_PEERCRED", None)
    if option is None:
        return None
    raw = conn.getsockopt(_socket.SOL_SOCKET, option, 12)
    return int.from_bytes(raw[4:8], sys.byteorder)


def connected(path: str) -> "_socket.socket":
    import _socket  # here: an event answered in this process opens no socket

    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    conn.settimeout(EXCHANGE_TIMEOUT)
    try:
        conn.connect(path)
    except OSError as exc:
        conn.close()
        raise Handoff(f"no daemon on {path}: {exc}") from None
    return conn


def exchange(conn: "_socket.socket", header: bytes, body: bytes) -> bytes:
    import _socket

    try:
        conn.sendall(header + b"\n" + body)
        conn.shutdown(_socket.SHUT_WR)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    finally:
        conn.close()
    return b"".join(chunks)


def hand_off(argv: list[str], body: bytes | None) -> None:
    """Become the full client (this process, so Claude Code waits for it); `body`: Claude
    Code's stdin, already read, fed to it through a pipe."""
    if body is not None:
        read_end, write_end = posix.pipe()
        if posix.fork() == 0:
            posix.close(read_end)
            view = memoryview(body)
            while view:
                view = view[posix.write(write_end, view) :]
            posix._exit(0)
        posix.close(write_end)
        posix.dup2(read_end, 0)
        posix.close(read_end)
    full = __file__.rpartition("/")[0] + "/" + FULL_CLIENT
    posix.execv(sys.executable, [sys.executable, "-I", "-S", full, *argv])


def parse_json(text: str) -> tuple[object, int]:
    """The JSON value at the start of `text` and where it ends; ValueError when there is
    none."""
    import _json

    try:
        value, end = _json.make_scanner(_Strict())(text, 0)  # type: ignore[arg-type]
    except StopIteration:
        raise ValueError("no JSON value") from None
    return value, int(end)


def _event_name(body: bytes) -> object:
    try:
        data, _end = parse_json(body.decode("utf-8"))
    except ValueError:
        return None
    return data.get("hook_event_name") if isinstance(data, dict) else None


def refused(body: bytes, reason: str) -> int:
    """The event answered as failed: a `systemMessage` at SessionStart, else exit 1."""
    if _event_name(body) == "SessionStart":
        message = _json_text(f"hookwright: the hooks are not running: {reason}")
        sys.stdout.write('{"systemMessage": ' + message + "}\n")
        return 0
    sys.stderr.write(f"hookwright: {reason}\n")
    return 1


def prepared(argv: list[str]) -> tuple["_socket.socket", bytes]:
    """The connection to the daemon and the request's header, made before Claude Code's
    stdin is read (so the full client can still read it)."""
    if argv and (len(argv) != 2 or argv[0] != "--project"):
        raise Handoff("unusual arguments")
    project = _absolute(argv[1] if argv else None)
    env_project = _absolute(_environ("CLAUDE_PROJECT_DIR"))
    fields = f'"project": {_json_text(project)}, "env_project": {_json_text(env_project)}'
    # Which Claude Code runs this hook (the daemon reads it: `claude_version.calling_version`).
    fields += f', "agent": {_json_text((_environ("AI_AGENT") or "")[:200])}'
    header = '{"op": "hook", ' + fields + "}"
    return connected(socket_path()), header.encode()


def relayed(argv: list[str], conn: "_socket.socket", header: bytes, body: bytes) -> int:
    try:
        owner = peer_uid(conn)
        if owner is not None and owner != posix.getuid():
            conn.close()
            return refused(body, f"the daemon's socket is served by uid {owner}; not asked")
        code, stderr, stdout = read_answer(exchange(conn, header, body))
    except Exception:
        hand_off(argv, body)
        raise
    printed(code, stdout, stderr)


def printed(code: int, stdout: bytes, stderr: str) -> "NoReturn":
    """Print the daemon's answer and end the process at once (`_exit`, the exit status
    truncated as `exit` truncates it). The interpreter's tear-down (a collection, every
    module and object freed) was about a fifth of the client's instructions; the client has
    nothing left to release: its socket is closed, it opened no file, and what it printed is
    flushed first (a failed write raises, and exits 1, as before)."""
    sys.stdout.buffer.write(stdout)
    sys.stdout.flush()
    sys.stderr.write(stderr)
    sys.stderr.flush()
    posix._exit(code & 0xFF)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def not_running(body: bytes, unreachable: str, why: str) -> int:
    """The full client's answer when neither a daemon nor the in-process answer answers: a
    `systemMessage` at SessionStart, else one line on stderr and exit 1."""
    reason = f"hookwright: the hooks are not running: no daemon answered ({unreachable}); {why}"
    if _event_name(body) == "SessionStart":
        sys.stdout.write('{"systemMessage": ' + _json_text(reason) + "}\n")
        return 0
    sys.stderr.write(reason + "\n")
    return 1


def _answer_in_this_process() -> "Callable[[bytes, str | None], tuple[int, bytes, str]]":
    """`claude_hook.in_this_process`, imported as `python -I` imports it: this folder taken
    off the path, site-packages added (the client starts with `-S`), hookwright's root last
    when it is missing (as the full client's `hookwright_command` adds it). It is imported as
    every process that answers one event imports it (`lean_start.lean_imports`: the garbage
    collector off, then on again before any hook runs; the record classes' code from the
    user's cache); the collector is off from the start, while `site` loads too. The code
    cache stays open until the event is answered: the dialects a project has are loaded as
    its files are found."""
    import gc

    folder = __file__.rpartition("/")[0]
    while folder in sys.path:
        sys.path.remove(folder)
    gc.disable()
    try:
        import site

        site.main()
        root = folder.rpartition("/")[0].rpartition("/")[0]
        if root not in sys.path:
            sys.path.append(root)
        from hookwright.bridges.lean_start import lean_imports

        with lean_imports() as code_cache:
            from hookwright.bridges.claude_hook import in_this_process

            window = code_cache.pop_all()
    finally:
        gc.enable()  # on already, unless what came before `lean_imports` failed

    def answer(raw: bytes, project: str | None) -> tuple[int, bytes, str]:
        with window:
            return in_this_process(raw, project)

    return answer


def answered_here(argv: list[str], unreachable: str) -> int:
    """The event answered as the full client's in-process fallback answers it, in this
    process: in `/`, the project by its absolute path, never an empty answer on failure."""
    project = _absolute(argv[1] if argv else None) or _absolute(_environ("CLAUDE_PROJECT_DIR"))
    body = sys.stdin.buffer.read()
    posix.chdir("/")
    try:
        answer = _answer_in_this_process()
    except Exception as exc:
        why = f"the in-process fallback cannot start: {_one_line(exc)}"
        return not_running(body, unreachable, why)
    try:
        code, out, err = answer(body, project)
    except SystemExit as exc:
        code, out, err = exc.code if type(exc.code) is int else 1, b"", ""
    except Exception as exc:
        code, out, err = 1, b"", f"{type(exc).__name__}: {_one_line(exc)}"
    if code == 0 or out.strip():
        sys.stdout.buffer.write(out)
        sys.stdout.flush()
        sys.stderr.write(err)
        return code
    return not_running(body, unreachable, f"the in-process fallback failed: {_last_line(err)}")


def main(argv: list[str]) -> int:
    if posix.environ.get(MARKER.encode()):
        return 0
    try:
        conn, header = prepared(argv)
    except Unreachable as exc:
        return answered_here(argv, str(exc))
    except Exception:
        hand_off(argv, None)
        raise
    return relayed(argv, conn, header, sys.stdin.buffer.read())
