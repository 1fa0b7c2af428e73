"""When no daemon can ever be reached (the socket path is longer than a Unix socket may be),
the quick client answers the event in its own process, as the full client's in-process
fallback answers it: in `/`, isolated, the project by its absolute path, and never an empty
answer when the answer fails. Everything through the installed command, run as Claude Code
runs a command hook."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.hosts.project import hook_input, run_installed
from tests.hosts.test_daemon import installed

from cli_runner import run_cli_bytes
from hookwright.bridges import (
    claude_client,
    quick_claude_client,
    quick_deferred,
    quick_exchange,
    quick_relay,
)
from hookwright.config import code_cache, hook_code_cache

RM = {
    "tool_name": "Bash",
    "tool_input": {"command": "rm -rf build", "description": "clean"},
    "tool_use_id": "toolu_01",
}
HOOKS_YAML = "hooks:\n  - name: guard\n    event: PreToolUse\n    call: guard:guard\n"
#: The guard writes what it saw and where it ran to `record` before it denies `rm -rf`.
GUARD_PY = """\
import gc, json, os, sys
from hookwright import deny


def guard(inp):
    with open({record!r}, "w") as out:
        json.dump({{
            "command": (inp.tool_input or {{}}).get("command"),
            "cmdline": open("/proc/self/cmdline", "rb").read().decode().split("\\0"),
            "cwd": os.getcwd(),
            "isolated": sys.flags.isolated,
            "path": sys.path,
            "gc": gc.isenabled(),
            "deferred": sorted(name for name, module in sys.modules.items()
                               if type(module).__name__ == "_Deferred"),
        }}, out)
    if "rm -rf" in str((inp.tool_input or {{}}).get("command", "")):
        return deny("rm -rf is not allowed here")
"""
DENY = {
    "hookEventName": "PreToolUse",
    "permissionDecision": "deny",
    "permissionDecisionReason": "rm -rf is not allowed here",
}
NOT_RUNNING = "hookwright: the hooks are not running: no daemon answered (the socket path "


@pytest.fixture(autouse=True)
def unreachable(runtime_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private runtime folder whose socket path is over the kernel's limit."""
    folder = runtime_dir / ("r" * 100)
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    return folder


def guarded(root: Path, record: Path) -> Path:
    (root / ".hookwright").mkdir(parents=True)
    (root / ".hookwright" / "hooks.yaml").write_text(HOOKS_YAML)
    (root / ".hookwright" / "guard.py").write_text(GUARD_PY.format(record=str(record)))
    return root


def command_of(project: Path, event: str = "PreToolUse", *, trusted: bool = True) -> str:
    hook: dict[str, Any] = installed(project, "command", trusted=trusted)[event]
    command: str = hook["command"]
    assert quick_claude_client.__file__ in command
    return command


def test_the_quick_client_answers_in_its_own_process_in_the_root_folder(
    tmp_path: Path, unreachable: Path
) -> None:
    record = tmp_path / "record.json"
    project = guarded(tmp_path / "project", record)
    done = run_installed(command_of(project), hook_input(project, "PreToolUse", **RM), project)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"] == DENY
    seen = json.loads(record.read_text())
    assert seen["command"] == "rm -rf build"
    assert seen["cmdline"][1:6] == ["-I", "-S", "-X", "utf8", quick_claude_client.__file__]
    assert seen["cwd"] == "/" and seen["isolated"] == 1
    assert seen["gc"]  # off only while hookwright loads
    assert str(project) not in seen["path"] and "" not in seen["path"]
    assert str(Path(quick_relay.__file__).parent) not in seen["path"]
    assert seen["deferred"] == sorted(quick_deferred.UNREAD)  # imported, never run
    assert not list(unreachable.iterdir())  # no runtime folder made for a daemon never asked


def test_a_relative_project_folder_is_the_one_claude_code_ran_in(tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    project = guarded(tmp_path / "project", record)
    command = command_of(project).rpartition(" --project ")[0]
    env = {**os.environ, "CLAUDE_PROJECT_DIR": "."}
    done = subprocess.run(
        ["sh", "-c", command],
        input=hook_input(project, "PreToolUse", **RM),
        capture_output=True,
        cwd=project,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"] == DENY
    assert json.loads(record.read_text())["command"] == "rm -rf build"


def test_an_untrusted_project_runs_nothing_and_says_so_at_session_start(tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    project = guarded(tmp_path / "project", record)
    command = command_of(project, "SessionStart", trusted=False)
    done = run_installed(command, hook_input(project, "SessionStart", source="startup"), project)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "systemMessage": f"hookwright: the hooks of {project} did not run: the folder is not "
        f"trusted (trust it with: hookwright trust {project})"
    }
    assert not record.exists()


def test_a_hook_that_raises_fails_the_event_with_one_line(tmp_path: Path) -> None:
    project = guarded(tmp_path / "project", tmp_path / "record.json")
    (project / ".hookwright" / "guard.py").write_text("def guard(inp):\n    raise OSError('x')\n")
    done = run_installed(command_of(project), hook_input(project, "PreToolUse", **RM), project)
    assert done.returncode == 1 and done.stdout == b""
    line = done.stderr.decode().strip()
    assert line.startswith(NOT_RUNNING) and "\n" not in line
    assert line.endswith(
        "the in-process fallback failed: hookwright: hook 'guard' failed, so "
        "no verdict was given: OSError: x"
    )


def test_a_broken_hooks_yaml_is_answered_as_the_command_line_answers_it(tmp_path: Path) -> None:
    """The guards of a file that does not load never vanish in silence: the event fails
    with the file and its error on stderr, in the fallback as on the command line."""
    project = guarded(tmp_path / "project", tmp_path / "record.json")
    (project / ".hookwright" / "hooks.yaml").write_text("hooks: [\n")
    stdin = hook_input(project, "PreToolUse", **RM)
    done = run_installed(command_of(project), stdin, project)
    plain = ["hook", "claude-code", "--project", str(project)]
    expected = run_cli_bytes(plain, dict(os.environ), stdin, timeout=60)
    assert (done.returncode, done.stdout) == (expected.returncode, expected.stdout) == (1, b"")
    line = expected.stderr.decode().strip()
    assert f"{project / '.hookwright' / 'hooks.yaml'} did not load: invalid YAML:" in line
    assert line.endswith("(check it with: hookwright hooks validate)")
    assert line in done.stderr.decode()
    assert not (tmp_path / "record.json").exists()


@pytest.mark.parametrize("event", ["PreToolUse", "SessionStart"])
def test_hookwright_that_cannot_be_imported_is_never_an_empty_answer(
    tmp_path: Path, event: str
) -> None:
    """The client copied next to a broken `hookwright` and run by an interpreter without one
    installed: the import fails, and the event fails (a `systemMessage` at SessionStart)."""
    project = guarded(tmp_path / "project", tmp_path / "record.json")
    bridges = tmp_path / "root" / "hookwright" / "bridges"
    bridges.mkdir(parents=True)
    (bridges.parent / "__init__.py").write_text("raise ImportError('broken on purpose')\n")
    for module in (quick_claude_client, quick_exchange, quick_relay):
        shutil.copy(str(module.__file__), bridges)
    python = getattr(sys, "_base_executable", sys.executable)
    found = subprocess.run([python, "-I", "-c", "import hookwright"], capture_output=True)
    if found.returncode == 0:
        pytest.skip(f"{python} has hookwright installed")
    command = f"{python} -I -S {bridges / 'quick_claude_client.py'} --project {project}"
    fields = RM if event == "PreToolUse" else {"source": "startup"}
    done = run_installed(command, hook_input(project, event, **fields), project)
    if event == "SessionStart":
        assert done.returncode == 0, done.stderr
        message = json.loads(done.stdout)["systemMessage"]
    else:
        assert done.returncode == 1 and done.stdout == b""
        message = done.stderr.decode().strip()
    assert message.startswith(NOT_RUNNING)
    assert message.endswith("the in-process fallback cannot start: broken on purpose")


def test_a_hookwright_hook_run_answers_nothing(tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    project = guarded(tmp_path / "project", record)
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project), "HOOKWRIGHT_HOOK_RUN": "1"}
    done = subprocess.run(
        ["sh", "-c", command_of(project)],
        input=hook_input(project, "PreToolUse", **RM),
        capture_output=True,
        cwd=project,
        env=env,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert not record.exists()


def test_where_the_full_client_answers_in_process_the_hooks_run_with_the_collector_on(
    tmp_path: Path, runtime_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other fallback: a usable socket path, but a runtime folder that cannot be made (a
    file in its place): the full client answers through `ANSWER_BOOT`, in a process of its
    own."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime_dir))
    record = tmp_path / "record.json"
    project = guarded(tmp_path / "project", record)
    command = command_of(project)
    blocked = claude_client.runtime_dir(Path.home())
    blocked.rmdir()
    blocked.write_text("not a folder")
    done = run_installed(command, hook_input(project, "PreToolUse", **RM), project)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"] == DENY
    seen = json.loads(record.read_text())
    assert seen["cmdline"][1:4] == ["-I", "-c", claude_client.ANSWER_BOOT]
    assert seen["cwd"] == "/" and seen["gc"]
    assert seen["deferred"] == sorted(quick_deferred.UNREAD)


#: The guard of `GUARD_PY`, writing the modules its process had loaded when it exited (a
#: deferred module whose code never ran is not loaded: `quick_deferred`).
LISTING_GUARD_PY = """\
import atexit, json, sys
from hookwright import deny

def loaded():
    return sorted(name for name, module in sys.modules.items()
                  if type(module).__name__ != "_Deferred")

atexit.register(lambda: open({listing!r}, "w").write(json.dumps(loaded())))


def guard(inp):
    if "rm -rf" in str((inp.tool_input or {{}}).get("command", "")):
        return deny("rm -rf is not allowed here")
"""
#: Packages and standard modules other paths of hookwright use, none of which one event
#: answered in-process needs: the command line's (`typer`, `click`, `rich`), the data
#: models' validation (`pydantic`), the MCP SDK, OpenTelemetry, the SQLite state (opened at
#: the first read of a hook's state), the http transports and their `email` parsing.
HEAVY_ELSEWHERE = (
    "typer",
    "click",
    "rich",
    "pydantic",
    "pydantic_core",
    "mcp",
    "opentelemetry",
    "sqlite3",
    "http.client",
    "email",
)
#: What an event whose hooks are all sync Python hooks never loads: an event loop, the typed
#: decisions of the host API (a relayed event makes none), the warm runner (no command hook to fork,
#: and the quick client opens no socket to answer here), the Bash parser and the action derivation
#: (no rule on actions), `logging` and `traceback` (nothing logged, no hook failed), OpenSSL (the
#: interpreter's own SHA-256), `uuid` and `sysconfig` (the session is named by the event, no hook
#: failed), `ctypes` (no process to adopt: the subreaper is turned on only where processes may
#: start), the code of `inspect` and what it imports (`dataclasses` imports it), of `urllib.parse`
#: (`pathlib` does) and of `ipaddress` (`urllib.parse` does), all deferred
#: (`quick_deferred.UNREAD`), the process tracking of `transports.adoption` (only its marker is
#: read), `getpass` with `termios` (the audit's user is read without them), OpenTelemetry's spans
#: and the debug trace (no collector named, no trace asked for), `queue` (the engine has no
#: observer), the transports' protocols (the services name them in annotations alone), `shlex`, the
#: canonical actions and the ``utf-8-sig`` codec (no command to check, no rule on actions, a BOM
#: read past), the views' labels (a bridge reports nothing to an operator), the Claude Code
#: versions' model catalogs and command tables (no `/model`, no `Skill` call), the session's thread
#: pool (no hook's code blocks on it: `wiring.WorkersOnFirstUse`), and once the `hooks.yaml` was
#: read (PyYAML loads it), `datetime` (the audit's first time is read without it) and `math` (only a
#: parse being cached is checked for floats); nor `typing`, whose names hookwright's modules on this
#: path import for the type checker alone (the engine's monitor protocols, the hosts' service
#: protocols and the Bash rules' command splitting, all `typing` classes, live in modules of their
#: own); nor the record classes such an event never makes, each in a module of its own: the
#: effects beyond the verdict (notices, notes, prompt injections, tool results and selections),
#: an audit record's details (permissions, chains, cut hooks), the matchers and `if` rules (no
#: hook has one), a policy file's rules and tier settings (none exists), the state's entries and
#: updates (no hook touches the state), the run context (no hook is awaited), a dialect's own
#: record, the model and MCP requests, the runtime events (no observer), the explanation of a
#: selection, an async hook's delivery, a hook that will not run and a file that failed to load
#: (every hook runs), a renamed tool, the CLI version `install` probes, a command hook's
#: program check, and the reading of a failed hook's traceback (no hook failed).
NOT_FOR_SYNC_HOOKS = {
    "typing",
    "hookwright.engine.monitoring",
    "hookwright.engine.host_seams",
    "hookwright.core.bash_commands",
    "asyncio",
    "hookwright.host.decisions",
    "hookwright.host.switches",
    "hookwright.transports.warm",
    "hookwright.transports.warm_invocation",
    "subprocess",
    "socket",
    "_socket",
    "hookwright.core.bash_syntax",
    "hookwright.core.tool_actions",
    "hookwright.core.code_actions",
    "logging",
    "traceback",
    "_hashlib",
    "uuid",
    "platform",
    "sysconfig",
    "ctypes",
    "inspect",
    "ipaddress",
    "urllib.parse",
    "ast",
    "dis",
    "tokenize",
    "hookwright.transports.adoption",
    "contextvars",
    "getpass",
    "termios",
    "hookwright.monitor.otel",
    "hookwright.monitor.tracing",
    "queue",
    "hookwright.transports.base",
    "hookwright.core.actions",
    "shlex",
    "encodings.utf_8_sig",
    "hookwright.host.labels",
    "hookwright.dialects.claude_catalogs",
    "hookwright.dialects.claude_commands",
    "hookwright.transports.workers",
    "hookwright.core.effect_parts",
    "hookwright.core.audit_detail",
    "hookwright.core.matching",
    "hookwright.config.policy_rules",
    "hookwright.config.tier_policy",
    "hookwright.core.state",
    "hookwright.core.run_context",
    "hookwright.core.dialect_data",
    "hookwright.engine.hook_requests",
    "hookwright.engine.observed",
    "hookwright.engine.selection",
    "hookwright.engine.async_delivery",
    "hookwright.host.not_run",
    "hookwright.host.load_failures",
    "hookwright.host.tool_alias",
    "hookwright.bridges.claude_installed",
    "hookwright.config.commands",
    "hookwright.core.tracebacks",
    *HEAVY_ELSEWHERE,
}


def modules_of_answer(project: Path, listing: Path) -> set[str]:
    done = run_installed(command_of(project), hook_input(project, "PreToolUse", **RM), project)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"] == DENY
    return set(json.loads(listing.read_text()))


@pytest.mark.parametrize("timeout", [None, 5])
def test_sync_hooks_are_answered_without_an_event_loop(tmp_path: Path, timeout: int | None) -> None:
    """Sync Python hooks without a timeout run inline: the answer loads no event loop, and the
    record classes' and the hook module's code come from the private caches the first answer
    wrote. A hook with a timeout runs on the event loop, as the daemon runs it."""
    listing = tmp_path / "modules.json"
    project = guarded(tmp_path / "project", tmp_path / "record.json")
    (project / ".hookwright" / "guard.py").write_text(LISTING_GUARD_PY.format(listing=str(listing)))
    if timeout is not None:
        hooks = project / ".hookwright" / "hooks.yaml"
        hooks.write_text(hooks.read_text() + f"    timeout: {timeout}\n")
    cache = code_cache.cache_file(Path.home())
    hook_cache = hook_code_cache.cache_dir(Path.home())
    for answer in ("first", "again"):
        modules = modules_of_answer(project, listing)
        if timeout is None:
            assert not NOT_FOR_SYNC_HOOKS & modules, sorted(NOT_FOR_SYNC_HOOKS & modules)
            assert answer == "first" or not {"datetime", "math"} & modules
        else:
            assert "asyncio" in modules
        assert stat.S_IMODE(cache.stat().st_mode) == 0o600
        hook_entries = {entry: entry.stat().st_mtime_ns for entry in hook_cache.iterdir()}
        if answer == "first":
            written, hook_written = cache.stat().st_mtime_ns, hook_entries
    assert cache.stat().st_mtime_ns == written  # nothing was left to compile and keep
    assert len(hook_entries) == 1 and hook_entries == hook_written


#: A guard that reads `inspect` and `urllib.parse` (deferred in the answer's process) and what
#: they import, and makes a URI with `pathlib` (loaded there without running `urllib.parse`).
INSPECTING_GUARD_PY = """\
import ast, inspect, json, pathlib, sys, urllib.parse
from hookwright import deny


def guard(inp, *, state=None):
    with open({record!r}, "w") as out:
        json.dump({{
            "signature": str(inspect.signature(guard)),
            "same": sys.modules["inspect"] is inspect,
            "plain": type(inspect) is type(sys),
            "parsed": type(ast.parse("x = 1").body[0]).__name__,
            "state": state is not None,
            "uri": pathlib.Path("/a b").as_uri(),
            "host": urllib.parse.urlsplit("http://[::1]:8080/x").hostname,
            "parse": sys.modules["urllib.parse"] is urllib.parse,
        }}, out)
    if "rm -rf" in str((inp.tool_input or {{}}).get("command", "")):
        return deny("rm -rf is not allowed here")
"""


def test_a_hook_reading_inspect_gets_the_whole_module(tmp_path: Path) -> None:
    """`inspect` and `urllib.parse` are deferred in the answer's process: a hook that reads
    one gets the whole module, the one in `sys.modules`, and `pathlib` makes URIs; a
    keyword-only `state` is still given (read from the function's code without `inspect`)."""
    record = tmp_path / "record.json"
    project = guarded(tmp_path / "project", record)
    (project / ".hookwright" / "guard.py").write_text(
        INSPECTING_GUARD_PY.format(record=str(record))
    )
    done = run_installed(command_of(project), hook_input(project, "PreToolUse", **RM), project)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"] == DENY
    assert json.loads(record.read_text()) == {
        "signature": "(inp, *, state=None)",
        "same": True,
        "plain": True,
        "parsed": "Assign",
        "state": True,
        "uri": "file:///a%20b",
        "host": "::1",
        "parse": True,
    }


#: A guard that writes whether its process is the child subreaper (`PR_GET_CHILD_SUBREAPER`).
SUBREAPER_GUARD_PY = """\
import ctypes
from hookwright import deny


def guard(inp):
    flag = ctypes.c_int(-1)
    ctypes.CDLL(None, use_errno=True).prctl(37, ctypes.byref(flag), 0, 0, 0)
    with open({record!r}, "w") as out:
        out.write(str(flag.value))
    if "rm -rf" in str((inp.tool_input or {{}}).get("command", "")):
        return deny("rm -rf is not allowed here")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
@pytest.mark.parametrize(("timeout", "subreaper"), [(None, "0"), (5, "1")])
def test_the_answer_adopts_what_hooks_detach_where_it_runs_them_on_a_loop(
    tmp_path: Path, timeout: int | None, subreaper: str
) -> None:
    """Where the event's hooks run on an event loop (here a Python hook with a timeout, on a
    worker thread; a hook process likewise), the answer's process is the subreaper of what
    they detach before the first one runs; an answer whose hooks all run inline starts no
    process and has nothing to hunt, and stays as it was started."""
    record = tmp_path / "record.txt"
    project = guarded(tmp_path / "project", record)
    (project / ".hookwright" / "guard.py").write_text(SUBREAPER_GUARD_PY.format(record=str(record)))
    if timeout is not None:
        hooks = project / ".hookwright" / "hooks.yaml"
        hooks.write_text(hooks.read_text() + f"    timeout: {timeout}\n")
    done = run_installed(command_of(project), hook_input(project, "PreToolUse", **RM), project)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"] == DENY
    assert record.read_text() == subreaper


#: A guard that leaves behind what an interpreter's exit finishes: a file written and never
#: flushed nor closed, an object with a finalizer, an atexit handler, and a thread still at
#: work (not a daemon) that writes after the hook returned; it imports `typing` (which the
#: answer does not load), whose module puts classes in `sys.modules` (`typing.io`).
LEFTOVERS_GUARD_PY = """\
import atexit, threading, time, typing
from hookwright import deny

LOG = open({folder!r} + "/left-open.txt", "w")


class Finalized:
    def __del__(self):
        open({folder!r} + "/finalized.txt", "w").write("finalized")


KEPT = Finalized()
atexit.register(lambda: open({folder!r} + "/atexit.txt", "w").write("atexit"))


def late():
    time.sleep(0.3)
    open({folder!r} + "/thread.txt", "w").write("thread")


def guard(inp: typing.Any) -> typing.Any:
    LOG.write("written, never flushed")
    threading.Thread(target=late).start()
    return deny("rm -rf is not allowed here")
"""


def test_the_answer_ends_as_an_interpreter_ends_for_what_hooks_leave_behind(
    tmp_path: Path,
) -> None:
    """The answering process ends at once after its answer (`quick_relay.end_here`), without
    tearing hookwright down, yet what a hook left is finished as an interpreter's exit
    finishes it: its thread joined, its atexit handler run, its open file flushed and its
    finalizer run; and the event's audit record is in the file before the process is gone."""
    folder = tmp_path / "left"
    folder.mkdir()
    project = guarded(tmp_path / "project", tmp_path / "record.json")
    guard = LEFTOVERS_GUARD_PY.format(folder=str(folder))
    (project / ".hookwright" / "guard.py").write_text(guard)
    done = run_installed(command_of(project), hook_input(project, "PreToolUse", **RM), project)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"] == DENY
    assert done.stderr == b""
    written = {path.name: path.read_text() for path in folder.iterdir()}
    assert written == {
        "left-open.txt": "written, never flushed",
        "finalized.txt": "finalized",
        "atexit.txt": "atexit",
        "thread.txt": "thread",
    }
    records = [json.loads(line) for line in audit_lines()]
    assert [(r["event"], r["hook"], r["decision"]) for r in records] == [
        ("PreToolUse", "guard", "deny")
    ]


def audit_lines() -> list[str]:
    audit = Path(os.environ.get("HOOKWRIGHT_AUDIT_LOG") or Path.home() / ".hookwright/audit.jsonl")
    return audit.read_text().splitlines()


#: A guard that puts in ``sys.modules`` an entry that is no module and has no ``__dict__``
#: (as some libraries stand an object in for a module).
STAND_IN_GUARD_PY = """\
import sys
from hookwright import deny


class StandIn:
    __slots__ = ()


sys.modules["guard_stand_in"] = StandIn()


def guard(inp):
    return deny("rm -rf is not allowed here")
"""


def test_an_entry_of_sys_modules_that_is_no_module_is_only_taken_out(tmp_path: Path) -> None:
    """As at an interpreter's exit, an object a hook put in ``sys.modules`` in place of a
    module is taken out, not cleared like a module: the answer and the exit are as usual."""
    project = guarded(tmp_path / "project", tmp_path / "record.json")
    (project / ".hookwright" / "guard.py").write_text(STAND_IN_GUARD_PY)
    done = run_installed(command_of(project), hook_input(project, "PreToolUse", **RM), project)
    assert (done.returncode, done.stderr) == (0, b"")
    assert json.loads(done.stdout)["hookSpecificOutput"] == DENY
