"""What the quick client (`quick_claude_client.py`, the command hook `install claude-code`
writes) does beyond its common case (`quick_exchange`: a running daemon found and asked): hand
the event to the full client, read an unusual answer strictly, refuse a daemon that is not
this user's, and answer in its own process when no daemon can ever listen.

Besides `quick_exchange`, it imports no module written in Python until it answers
in-process, only the interpreter's own C modules (`posix`, `_json`); the client loads it from
its own folder, and only on these paths, so the common case does not pay for its code.

It is the full client (`claude_client.py`) that creates the folder, starts the daemon,
answers in-process when no daemon can be reached and says why when nothing answers: no daemon
yet, a folder to create or squatted, an unusual ``HOME``, a daemon gone mid-exchange or an
answer that is not the daemon's (then the full client asks again and falls back in-process, so
an unreadable answer is never printed as one).

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
    from collections.abc import Callable
    from typing import NoReturn

if __package__:  # imported from hookwright's package (the tests)
    from hookwright.bridges.quick_exchange import absolute, environ_text, json_text
else:  # the quick client's process: its folder is on `sys.path`, hookwright's package is not
    from quick_exchange import (  # type: ignore[import-not-found,no-redef,unused-ignore]
        absolute,
        environ_text,
        json_text,
    )

FULL_CLIENT = "claude_client.py"


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
    """The daemon's answer read strictly (its usual one is taken as is by `quick_exchange`):
    exit code, stderr text and the bytes to print; raises ValueError for anything else."""
    line, newline, rest = data.partition(b"\n")
    text = line.decode("ascii")
    head, end = parse_json(text)
    if not newline or end != len(text) or not isinstance(head, dict):
        raise ValueError("not the daemon's answer")
    code, stderr = head.get("exit"), head.get("stderr", "")
    if type(code) is not int or not isinstance(stderr, str):
        raise ValueError("not the daemon's answer")
    return code, stderr, rest


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
        message = json_text(f"hookwright: the hooks are not running: {reason}")
        sys.stdout.write('{"systemMessage": ' + message + "}\n")
        return 0
    sys.stderr.write(f"hookwright: {reason}\n")
    return 1


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
        sys.stdout.write('{"systemMessage": ' + json_text(reason) + "}\n")
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
    process: in `/`, the project by its absolute path, never an empty answer on failure;
    once answered, the process ends here (`end_here`)."""
    project = absolute(argv[1] if argv else None) or absolute(environ_text("CLAUDE_PROJECT_DIR"))
    body = sys.stdin.buffer.read()
    posix.chdir("/")
    try:
        answer = _answer_in_this_process()
        from hookwright.core import python_exit  # noqa: F401 - `end_here`'s, loaded before `loaded`
    except Exception as exc:
        why = f"the in-process fallback cannot start: {_one_line(exc)}"
        return not_running(body, unreachable, why)
    loaded = frozenset(sys.modules)
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
    else:
        code = not_running(body, unreachable, f"the in-process fallback failed: {_last_line(err)}")
    end_here(code, loaded)


def _own(name: str) -> bool:
    return name == "hookwright" or name.startswith("hookwright.")


def end_here(code: int, loaded: "frozenset[str]") -> "NoReturn":
    """End the process that answered as `Py_FinalizeEx` would, in its order, then at once
    (`_exit`), as a hook the warm runner forked ends: the steps are
    `hookwright.core.python_exit.finish`'s (threads joined, atexit handlers run, the audit's
    flush among them, the standard streams flushed), then what the hooks loaded (the modules
    loaded since hookwright was, but hookwright's own) is released and collected, so a file a
    hook left open is flushed and closed and its finalizers run. Hookwright's modules and
    records are not torn down one by one: that tear-down was about a twelfth of this
    process's time. The one difference from the warm runner: the hooks' names are set to
    None before collecting (``collect_first=False``), as the engine still holds the hooks'
    functions and so their globals, and a collection first would free nothing."""
    from hookwright.core.python_exit import finish

    def hooks_modules() -> list[str]:
        return [name for name in sys.modules if name not in loaded and not _own(name)]

    posix._exit(finish(code, hooks_modules, collect_first=False))
