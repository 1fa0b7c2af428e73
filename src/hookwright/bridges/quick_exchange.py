"""The quick client's common case (`quick_claude_client.py`, the command hook `install
claude-code` writes): find the running `hookwright daemon`'s socket, relay Claude Code's event
to it, print its answer.

It holds only what that case runs: the client's whole cost is an interpreter's start, this
module's import and one exchange, so everything else (the hand-off to the full client, the
strict reading of an unusual answer, the refusals, the in-process answer) is in `quick_relay`,
loaded only when needed; this module is loaded from the client's own folder as a top-level
module, and loads `quick_relay` the same way. It imports no module written in Python, only the
interpreter's own C modules (`posix`, `_socket`, `_sha256`, and `_json` only for a text that is
not plain ASCII), and ends with `_exit` once the daemon's answer is out. It runs in the
interpreter's UTF-8 mode (`-X utf8`, see `claude_settings.client_command`) under a UTF-8, C
or POSIX locale, where that mode reads and writes every text as the locale does; under any
other locale it starts again without it.

The common case: the daemon's private runtime folder already exists
(``$XDG_RUNTIME_DIR/hookwright-KEY``, or ``hookwright-UID/hookwright-KEY`` under the temporary
folder), every folder on the way is a real folder of this user closed to others, and the
process listening on the socket is this user's (`SO_PEERCRED`); anything else is `quick_relay`'s
(see there).
"""

import posix
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import _socket
    from typing import Any, NoReturn

#: Set in the environment of the hooks hookwright itself runs: the client answers nothing.
MARKER = "HOOKWRIGHT_HOOK_RUN"
SOCKET_NAME = "daemon.sock"
#: How long one exchange with the daemon may take (hooks included), in seconds.
EXCHANGE_TIMEOUT = 600.0
#: The longest Unix socket path the kernel takes (108 bytes with the terminating NUL).
MAX_SOCKET_PATH = 107
#: The head of the daemon's usual answer (exit 0, nothing on stderr), taken as is; any other
#: head is read strictly (`quick_relay.read_answer`).
PLAIN_HEAD = b'{"exit": 0, "stderr": ""}\n'
_DIRECTORY = 0o040000
_FILE_TYPE = 0o170000


class Handoff(Exception):
    """The full client must answer this event (the reason is for a reader of this file)."""


class Unreachable(Exception):
    """No daemon can ever answer at this socket path: the event is answered in this process
    (the full client would create the folder and fall back at once, a second interpreter and
    a third for the answer)."""


def rare() -> "Any":
    """`quick_relay`, which answers every case but the common one, loaded from this folder."""
    import quick_relay  # type: ignore[import-not-found,unused-ignore]

    return quick_relay


def environ_text(name: str) -> str | None:
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
    xdg = environ_text("XDG_RUNTIME_DIR")
    if xdg is not None and not xdg.startswith("/"):
        raise Handoff("XDG_RUNTIME_DIR is relative")
    if xdg is not None and _private(xdg, uid):
        return xdg.rstrip("/") or "/"
    temp = environ_text("TMPDIR") or environ_text("TEMP") or environ_text("TMP") or "/tmp"
    if not temp.startswith("/"):
        raise Handoff("the temporary folder is relative")
    base = temp.rstrip("/") + f"/hookwright-{uid}"
    if not _private(base, uid):
        raise Handoff(f"{base} is missing or not private")
    return base


def socket_path() -> str:
    """The daemon's socket, found without creating or changing anything."""
    home = environ_text("HOME")
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


def absolute(path: str | None) -> str | None:
    """`path` made absolute against this process's folder (the daemon resolves links)."""
    if path is None or path.startswith("/"):
        return path
    return posix.getcwd() + "/" + path


def json_text(value: str | None) -> str:
    """`value` as JSON text, as `_json.encode_basestring_ascii` writes it; a text of
    printable ASCII without a quote or backslash (a usual path) is its own JSON text, so
    `_json` is loaded only for the others."""
    if value is None:
        return "null"
    if value.isascii() and value.isprintable() and '"' not in value and "\\" not in value:
        return f'"{value}"'
    import _json

    return str(_json.encode_basestring_ascii(value))


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


def prepared(argv: list[str]) -> tuple["_socket.socket", bytes]:
    """The connection to the daemon and the request's header, made before Claude Code's
    stdin is read (so the full client can still read it)."""
    if argv and (len(argv) != 2 or argv[0] != "--project"):
        raise Handoff("unusual arguments")
    project = absolute(argv[1] if argv else None)
    env_project = absolute(environ_text("CLAUDE_PROJECT_DIR"))
    fields = f'"project": {json_text(project)}, "env_project": {json_text(env_project)}'
    # Which Claude Code runs this hook (the daemon reads it: `claude_version.calling_version`).
    fields += f', "agent": {json_text((environ_text("AI_AGENT") or "")[:200])}'
    header = '{"op": "hook", ' + fields + "}"
    return connected(socket_path()), header.encode()


def relayed(argv: list[str], conn: "_socket.socket", header: bytes, body: bytes) -> int:
    try:
        owner = peer_uid(conn)
        if owner is not None and owner != posix.getuid():
            conn.close()
            reason = f"the daemon's socket is served by uid {owner}; not asked"
            return int(rare().refused(body, reason))
        answer = exchange(conn, header, body)
        if answer.startswith(PLAIN_HEAD):
            code, stderr, stdout = 0, "", answer[len(PLAIN_HEAD) :]
        else:
            code, stderr, stdout = rare().read_answer(answer)
    except Exception:
        rare().hand_off(argv, body)
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


def utf8_locale(environ: "dict[bytes, bytes]") -> bool:
    """Whether the locale `environ` names reads text as UTF-8 (a name with a UTF-8 codeset),
    or is C or POSIX, which the interpreter reads as UTF-8 whatever its flags; a name without
    a codeset or that cannot be read counts as another encoding."""
    value = environ.get(b"LC_ALL") or environ.get(b"LC_CTYPE") or environ.get(b"LANG")
    if not value or value in (b"C", b"POSIX"):
        return True
    name, dot, codeset = value.partition(b"@")[0].rpartition(b".")
    return bool(name and dot) and codeset.lower() in (b"utf-8", b"utf8")


def _in_locale_mode(argv: list[str]) -> None:
    """Under a locale that is not UTF-8, start the client again without `-X utf8`, so
    arguments, paths and printed text are read and written as before that flag (as the full
    client reads and writes them), before anything is read."""
    if "utf8" in sys._xoptions and not utf8_locale(posix.environ):
        client = __file__.rpartition("/")[0] + "/quick_claude_client.py"
        posix.execv(sys.executable, [sys.executable, "-I", "-S", client, *argv])


def main(argv: list[str]) -> int:
    if posix.environ.get(MARKER.encode()):
        return 0
    _in_locale_mode(argv)
    try:
        conn, header = prepared(argv)
    except Unreachable as exc:
        return int(rare().answered_here(argv, str(exc)))
    except Exception:
        rare().hand_off(argv, None)
        raise
    return relayed(argv, conn, header, sys.stdin.buffer.read())
