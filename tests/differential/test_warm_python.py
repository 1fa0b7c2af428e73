"""Warm vs spawned Python command hooks: the same hook, the same folder, byte-for-byte output.

Each hook of `warm_corpus` runs through `run_process` (the path command hooks take) twice in
the same folder: spawned as today, then forked by the warm runner. Stdout, stderr, the exit
code and every file the hook left in its folder must be identical (the per-run token in the
environment, different by design, is masked). Each warm run must really have been forked warm.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.bounds import GENEROUS_BOUND, eventually
from tests.differential.warm_corpus import CORPUS, PRELUDE, SHOW_PROCESS, Hook

from hookwright.transports.process import ProcessOutcome, run_process
from hookwright.transports.warm import WarmPython

SYSTEM_PYTHON = "/usr/bin/python3"
_TOKEN = re.compile(r"(HOOKWRIGHT_HOOK_RUN\W+)[0-9a-f]{24}")

needs_system_python = pytest.mark.skipif(
    not os.path.isfile(SYSTEM_PYTHON), reason="no /usr/bin/python3"
)


@pytest.fixture(scope="module")
def warm() -> Iterator[WarmPython]:
    runner = WarmPython(enabled=True)
    yield runner
    runner.close()


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKWRIGHT_")}
    env["PATH"] = "/usr/bin:/bin"
    env["HOME"] = str(home)
    env["CLAUDE_PROJECT_DIR"] = "/project"
    return env


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name not in ("hook.py",)
    }


def _observed(outcome: ProcessOutcome, folder: Path) -> dict[str, Any]:
    return {
        "stdout": _TOKEN.sub(r"\1<token>", outcome.stdout),
        "stderr": outcome.stderr,
        "exit_code": outcome.exit_code,
        "timed_out": outcome.timed_out,
        "spawn_error": outcome.spawn_error,
        "files": _files(folder),
    }


async def _both(
    hook: Hook,
    folder: Path,
    warm: WarmPython,
    launch: dict[str, Any],
    *,
    shebang: str | None = None,
    taken: bool | None = True,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The hook spawned, then warm, in the same fresh `folder`."""
    seen = []
    for runner in (None, warm):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        script = folder / "hook.py"
        script.write_text((shebang or "") + hook.source)
        script.chmod(0o755)
        before = warm.forked
        outcome = await run_process(
            stdin_data=hook.stdin, cwd=folder, timeout=30, warm=runner, **launch
        )
        if runner is not None and taken is not None:
            assert warm.forked == before + (1 if taken else 0), hook.name
        seen.append(_observed(outcome, folder))
    return seen[0], seen[1]


def _shell(words: list[str], hook: Hook) -> str:
    return " ".join([*words, *(shlex.quote(arg) for arg in hook.args)])


@needs_system_python
@pytest.mark.parametrize("hook", CORPUS, ids=lambda hook: hook.name)
async def test_python3_on_path_warm_is_spawned(
    hook: Hook, warm: WarmPython, tmp_path: Path, isolated_home: Path
) -> None:
    launch = {"command": _shell(["python3", "hook.py"], hook), "env": _env(isolated_home)}
    spawned, forked = await _both(hook, tmp_path / "run", warm, launch)
    assert forked == spawned


FORMS = {
    "venv-interpreter-sh": lambda h: {
        "command": _shell([shlex.quote(sys.executable), "hook.py"], h)
    },
    "absolute-script-bash": lambda h: {
        "command": _shell(["python3", "'{folder}/hook.py'"], h),
        "shell": "bash",
    },
    "exec-form": lambda h: {"argv": [sys.executable, "hook.py", *h.args]},
    "shebang-env": lambda h: {"command": _shell(["./hook.py"], h)},
    "shebang-path": lambda h: {"command": _shell(["./hook.py"], h)},
}
SHEBANGS = {"shebang-env": "#!/usr/bin/env python3\n", "shebang-path": "#!/usr/bin/python3\n"}
SAMPLE = [hook for hook in CORPUS if hook.name in ("process", "exception", "exit-message")]


@needs_system_python
@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("hook", SAMPLE, ids=lambda hook: hook.name)
async def test_every_launch_form_is_exact(
    form: str, hook: Hook, warm: WarmPython, tmp_path: Path, isolated_home: Path
) -> None:
    folder = tmp_path / "run"
    launch = FORMS[form](hook)
    if "command" in launch:
        launch["command"] = launch["command"].replace("{folder}", str(folder))
    launch["env"] = _env(isolated_home)
    spawned, forked = await _both(hook, folder, warm, launch, shebang=SHEBANGS.get(form))
    assert forked == spawned


@needs_system_python
async def test_symlinked_script_in_another_folder(
    warm: WarmPython, tmp_path: Path, isolated_home: Path
) -> None:
    real = tmp_path / "lib" / "real_hook.py"
    real.parent.mkdir()
    real.write_text(SHOW_PROCESS)
    hook = Hook("symlink", "", ("x",))
    folder = tmp_path / "run"
    seen = []
    for runner in (None, warm):
        shutil.rmtree(folder, ignore_errors=True)
        (folder / "inner").mkdir(parents=True)
        link = folder / "link.py"
        link.symlink_to(real)
        outcome = await run_process(
            command="python3 ../link.py x",
            stdin_data=hook.stdin,
            cwd=folder / "inner",
            env=_env(isolated_home),
            warm=runner,
            timeout=30,
        )
        seen.append(_observed(outcome, folder))
    assert seen[1] == seen[0]
    assert f'"path0": "{real.parent}"' in seen[1]["stdout"]


@needs_system_python
@pytest.mark.parametrize(
    "command",
    [
        "python3 -u hook.py",
        "python3 -c 'print(1)'",
        "python3 -m json.tool hook.py",
        "python3 hook.py | cat",
        "A=1 python3 hook.py",
        "python3 hook.py > out.txt",
        "python3 $HOME/hook.py",
        "python3 hook*.py",
        "cd . && python3 hook.py",
        "python2 hook.py",
        "python3 missing.py",
        "python3 data.zip",
    ],
)
async def test_anything_else_is_spawned(
    command: str, warm: WarmPython, tmp_path: Path, isolated_home: Path
) -> None:
    hook = Hook("plain", PRELUDE + "print(sys.argv)\n")
    folder = tmp_path / "run"
    launch = {"command": command, "env": _env(isolated_home)}
    spawned, forked = await _both(hook, folder, warm, launch, taken=False)
    assert forked == spawned


@needs_system_python
async def test_switch_off_spawns(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = WarmPython()
    try:
        monkeypatch.setenv("HOOKWRIGHT_WARM_PYTHON", "0")
        hook = Hook("plain", PRELUDE + "print(sys.argv)\n")
        launch = {"command": "python3 hook.py", "env": _env(isolated_home)}
        spawned, forked = await _both(hook, tmp_path / "run", runner, launch, taken=False)
        assert forked == spawned
        monkeypatch.setenv("HOOKWRIGHT_WARM_PYTHON", "1")
        await _both(hook, tmp_path / "run", runner, launch)
        assert WarmPython(enabled=False).on is False
    finally:
        runner.close()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


@needs_system_python
async def test_timeout_kills_the_group_and_leaves_no_orphan(
    warm: WarmPython, tmp_path: Path, isolated_home: Path
) -> None:
    source = PRELUDE + (
        "import subprocess, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "open('pids', 'w').write(f'{os.getpid()} {child.pid}')\n"
        "print('started', flush=True)\n"
        "time.sleep(60)\n"
    )
    (tmp_path / "hook.py").write_text(source)
    before = warm.forked
    loop = asyncio.get_running_loop()
    started = loop.time()
    outcome = await run_process(
        command="python3 hook.py",
        cwd=tmp_path,
        env=_env(isolated_home),
        timeout=1.0,
        warm=warm,
    )
    assert warm.forked == before + 1
    assert loop.time() - started < GENEROUS_BOUND
    assert outcome.timed_out and outcome.exit_code is None
    assert outcome.stdout == "started\n"
    pids = [int(pid) for pid in (tmp_path / "pids").read_text().split()]
    for pid in pids:
        assert eventually(lambda pid=pid: not _alive(pid))


@needs_system_python
async def test_a_crashed_server_falls_back_and_restarts(
    tmp_path: Path, isolated_home: Path
) -> None:
    runner = WarmPython(enabled=True)
    try:
        hook = Hook("plain", PRELUDE + "print(sys.argv, sys.stdin.read())\n")
        launch = {"command": "python3 hook.py", "env": _env(isolated_home)}
        spawned, forked = await _both(hook, tmp_path / "run", runner, launch)
        assert forked == spawned
        (server,) = runner._servers.values()
        assert server.proc is not None
        os.kill(server.proc.pid, signal.SIGKILL)
        server.proc.wait()
        _, after_crash = await _both(hook, tmp_path / "run", runner, launch, taken=None)
        assert after_crash == spawned
        _, restarted = await _both(hook, tmp_path / "run", runner, launch)
        assert restarted == spawned
    finally:
        runner.close()


@needs_system_python
async def test_cancelling_a_warm_run_kills_its_group(
    warm: WarmPython, tmp_path: Path, isolated_home: Path
) -> None:
    source = PRELUDE + (
        "import time\nopen('pid.tmp', 'w').write(str(os.getpid()))\n"
        "os.rename('pid.tmp', 'pid')\ntime.sleep(60)\n"
    )
    (tmp_path / "hook.py").write_text(source)
    before = warm.forked
    task = asyncio.ensure_future(
        run_process(command="python3 hook.py", cwd=tmp_path, env=_env(isolated_home), warm=warm)
    )
    pid_file = tmp_path / "pid"
    for _ in range(int(GENEROUS_BOUND / 0.02)):
        if pid_file.exists() and warm.forked == before + 1:
            break
        await asyncio.sleep(0.02)
    assert warm.forked == before + 1
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    pid = int(pid_file.read_text())
    assert eventually(lambda: not _alive(pid))


@needs_system_python
async def test_an_edited_script_is_checked_again(
    warm: WarmPython, tmp_path: Path, isolated_home: Path
) -> None:
    launch = {"command": "./hook.py arg", "env": _env(isolated_home)}
    python = Hook("python", PRELUDE + "print(sys.argv)\n")
    spawned, forked = await _both(
        python, tmp_path / "run", warm, launch, shebang="#!/usr/bin/env python3\n"
    )
    assert forked == spawned
    shell = Hook("shell", 'echo "shell $1"\n')
    spawned, forked = await _both(
        shell, tmp_path / "run", warm, launch, shebang="#!/bin/sh\n", taken=False
    )
    assert forked == spawned == {**spawned, "stdout": "shell arg\n"}


def _standbys(server: Any) -> list[int]:
    with server.send_lock:
        server._collect_standbys()
        return [pid for pid, _socket in server.standbys]


def _standby(server: Any) -> int | None:
    return next(iter(_standbys(server)), None)


@needs_system_python
async def test_runs_go_straight_to_a_standby_and_a_dead_one_is_skipped(
    tmp_path: Path, isolated_home: Path
) -> None:
    runner = WarmPython(enabled=True)
    try:
        hook = Hook("pid", PRELUDE + "print(os.getpid(), sys.stdin.read())\n", (), b"in")
        launch = {"command": "python3 hook.py", "env": _env(isolated_home)}
        spawned, _forked = await _both(hook, tmp_path / "run", runner, launch)
        (server,) = runner._servers.values()
        assert eventually(lambda: _standby(server) is not None)
        standby = _standby(server)
        assert standby is not None
        _, straight = await _both(hook, tmp_path / "run", runner, launch)
        assert straight["stdout"] == f"{standby} in\n"
        assert eventually(lambda: _standby(server) is not None)
        dead = _standby(server)
        assert dead is not None
        os.kill(dead, signal.SIGKILL)
        assert eventually(lambda: not _alive(dead))
        _, after = await _both(hook, tmp_path / "run", runner, launch)
        pid, rest = after["stdout"].split(" ", 1)
        assert int(pid) != dead and rest == "in\n" and after["exit_code"] == 0
        assert {**after, "stdout": ""} == {**spawned, "stdout": ""}
    finally:
        runner.close()


@needs_system_python
async def test_a_standby_whose_run_ended_before_the_server_looked_is_replaced(
    tmp_path: Path, isolated_home: Path
) -> None:
    """The server learns that a standby took a run from the standby's note; when the run is
    over before the server read the note, the next standby is forked all the same (two wait
    at a time)."""
    runner = WarmPython(enabled=True)
    try:
        hook = Hook("pid", PRELUDE + "print(os.getpid())\n")
        launch = {"command": "python3 hook.py", "env": _env(isolated_home)}
        await _both(hook, tmp_path / "run", runner, launch)
        (server,) = runner._servers.values()
        assert server.proc is not None
        assert eventually(lambda: _standby(server) is not None)
        standby = _standby(server)
        os.kill(server.proc.pid, signal.SIGSTOP)
        try:
            _, quick = await _both(hook, tmp_path / "run", runner, launch)
        finally:
            os.kill(server.proc.pid, signal.SIGCONT)
        assert quick["stdout"] == f"{standby}\n"
        assert eventually(lambda: len(_standbys(server)) == 2)
        assert standby not in _standbys(server)
    finally:
        runner.close()


AGAIN = [
    Hook("plain", PRELUDE + "print(__file__, sys.argv, sys.stdin.read())\n"),
    Hook("traceback", PRELUDE + "def f():\n    raise ValueError('boom')\nf()\n"),
    Hook("syntax-warning", PRELUDE + "x = 1\nprint(x is 1)\n"),
    Hook("syntax-error", "import sys\ndef (:\n"),
]


@needs_system_python
@pytest.mark.parametrize("hook", AGAIN, ids=lambda hook: hook.name)
async def test_a_script_run_again_is_exact(
    hook: Hook, warm: WarmPython, tmp_path: Path, isolated_home: Path
) -> None:
    """Later runs of a script may use code the server compiled after the first one."""
    launch = {"command": "python3 hook.py", "env": _env(isolated_home)}
    spawned, first = await _both(hook, tmp_path / "run", warm, launch)
    for _ in range(3):
        _, again = await _both(hook, tmp_path / "run", warm, launch)
        assert again == first == spawned


@needs_system_python
async def test_a_script_edited_between_runs_runs_as_edited(
    warm: WarmPython, tmp_path: Path, isolated_home: Path
) -> None:
    launch = {"command": "python3 hook.py", "env": _env(isolated_home)}
    for text in ("one", "two", "two", "six", "one"):
        hook = Hook(text, PRELUDE + f"print({text!r})\n")
        spawned, forked = await _both(hook, tmp_path / "run", warm, launch)
        assert forked == spawned == {**spawned, "stdout": f"{text}\n"}


@needs_system_python
async def test_the_environment_is_exact_from_run_to_run(
    warm: WarmPython, tmp_path: Path, isolated_home: Path
) -> None:
    hook = Hook(
        "env",
        PRELUDE + "import subprocess\nprint(list(os.environ.items()))\n"
        "print(subprocess.run(['env'], capture_output=True, text=True).stdout)\n",
    )
    base = _env(isolated_home)
    changed = {**base, "HOME": str(isolated_home / "other")}
    items = list(base.items())
    more = dict([*items[:2], ("EXTRA_VAR", "x"), *items[2:]])
    fewer = {k: v for k, v in base.items() if k != "CLAUDE_PROJECT_DIR"}
    for env in (base, base, changed, more, fewer, base):
        launch = {"command": "python3 hook.py", "env": env}
        spawned, forked = await _both(hook, tmp_path / "run", warm, launch)
        assert forked == spawned


ESCAPES = PRELUDE + (
    "import time\n"
    "if os.fork() == 0:\n"
    "    os.setsid()\n"
    "    if os.fork() == 0:\n"
    "        os.closerange(0, 3)\n"
    "        open('pid.tmp', 'w').write(str(os.getpid()))\n"
    "        os.rename('pid.tmp', 'pid')\n"
    "        time.sleep(60)\n"
    "    os._exit(0)\n"
    "while not os.path.exists('pid'):\n"
    "    time.sleep(0.005)\n"
    "print('escaped')\n"
)


@needs_system_python
@pytest.mark.parametrize("warm_run", [False, True], ids=["spawned", "warm"])
async def test_a_descendant_that_left_the_session_ends_with_the_run(
    warm_run: bool, warm: WarmPython, tmp_path: Path, isolated_home: Path
) -> None:
    (tmp_path / "hook.py").write_text(ESCAPES)
    before = warm.forked
    outcome = await run_process(
        command="python3 hook.py",
        cwd=tmp_path,
        env=_env(isolated_home),
        timeout=30,
        warm=warm if warm_run else None,
    )
    assert warm.forked == before + warm_run
    assert (outcome.exit_code, outcome.stdout) == (0, "escaped\n")
    pid = int((tmp_path / "pid").read_text())
    assert eventually(lambda: not _alive(pid))


FAKES_ITS_EXIT = PRELUDE + (
    "import time\n"
    "runner = sys._getframe(1)\n"
    "slot, nonce = runner.f_locals['job'].report\n"
    "runner.f_globals['_SLOT'].pack_into(runner.f_globals['_BOARD'], slot * 8, nonce, 0)\n"
    "open('pid', 'w').write(str(os.getpid()))\n"
    "os.closerange(0, 3)\n"
    "time.sleep(60)\n"
)


@needs_system_python
async def test_a_hook_that_reports_an_exit_it_does_not_make_is_stopped(
    warm: WarmPython, tmp_path: Path, isolated_home: Path
) -> None:
    """The status board is in the hook's own memory, so a hostile hook can write its slot
    and keep running with its output closed: the run ends, and so does the process."""
    (tmp_path / "hook.py").write_text(FAKES_ITS_EXIT)
    before = warm.forked
    outcome = await run_process(
        command="python3 hook.py", cwd=tmp_path, env=_env(isolated_home), timeout=30, warm=warm
    )
    assert warm.forked == before + 1
    assert outcome.exit_code == 0
    pid = int((tmp_path / "pid").read_text())
    assert eventually(lambda: not _alive(pid))


@needs_system_python
async def test_a_fifo_named_as_the_script_holds_up_only_its_own_run(
    warm: WarmPython, tmp_path: Path, isolated_home: Path
) -> None:
    """A FIFO in the script's place is no script to fork warm: the run is spawned and waits,
    as it always did, until its timeout; the runs after it are forked as usual. (The server
    itself, which reads a script to compile it for later runs, opens it without blocking and
    reads only a regular file, should one be swapped in after this check.)"""
    os.mkfifo(tmp_path / "hook.py")
    forked = warm.forked
    outcome = await run_process(
        command="python3 hook.py", cwd=tmp_path, env=_env(isolated_home), timeout=1.0, warm=warm
    )
    assert outcome.timed_out and warm.forked == forked
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "hook.py").write_text("print('fine')\n")
    for _ in range(4):
        before = warm.forked
        outcome = await run_process(
            command="python3 hook.py",
            cwd=tmp_path / "ok",
            env=_env(isolated_home),
            timeout=GENEROUS_BOUND,
            warm=warm,
        )
        assert (outcome.stdout, outcome.exit_code, warm.forked) == ("fine\n", 0, before + 1)


def test_the_server_reads_only_a_regular_script_and_never_waits(tmp_path: Path) -> None:
    """The server's own read of a script (to compile it for later runs), on a FIFO and on a
    regular file, in a process of its own (the server module is not imported into tests)."""
    import importlib.util
    import subprocess

    spec = importlib.util.find_spec("hookwright._warm.server")
    assert spec is not None and spec.origin is not None
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "script.py").write_bytes(b"print(1)\n")
    probe = (
        "import runpy, sys\n"
        "ns = runpy.run_path(sys.argv[1], run_name='probe')\n"
        "read = ns['_read_regular_file']\n"
        "print(read(sys.argv[2], 100), read(sys.argv[3], 100))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, spec.origin, "fifo", "script.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=GENEROUS_BOUND,
    )
    assert (done.stdout, done.returncode) == ("None b'print(1)\\n'\n", 0), done.stderr


async def test_the_interpreter_probe_imports_nothing_from_the_hooks_folder(
    warm: WarmPython, tmp_path: Path, isolated_home: Path
) -> None:
    """The probe that learns the interpreter runs `-c` in the hook's folder: a `json.py` there
    (which `python3 hook.py` would never import, its script folder being first) is left alone."""
    folder = tmp_path / "hooks"
    folder.mkdir()
    (folder / "json.py").write_text("open('PWNED', 'w').close()\n")
    (folder / "hook.py").write_text("import json, sys\nprint(json.dumps({'ok': True}))\n")
    before = warm.forked
    outcome = await run_process(
        command=f"{shlex.quote(sys.executable)} hook.py",
        cwd=folder,
        env=_env(isolated_home),
        timeout=30,
        warm=warm,
    )
    assert warm.forked == before + 1
    assert outcome.exit_code == 0, outcome.stderr
    assert not (folder / "PWNED").exists()


def test_the_template_copies_the_module_names_in_place(tmp_path: Path) -> None:
    """Before serving, the template gives ``sys.modules`` new key strings (`_compact_module_names`,
    so a run's walk through them writes to few pages): the same names, in the same order, for
    the very same module objects; an import after it finds the modules as before."""
    import importlib.util
    import subprocess

    spec = importlib.util.find_spec("hookwright._warm.server")
    assert spec is not None and spec.origin is not None
    probe = (
        "import runpy, sys\n"
        "ns = runpy.run_path(sys.argv[1], run_name='probe')\n"
        "before = list(sys.modules.items())\n"
        "ns['_compact_module_names']()\n"
        "after = list(sys.modules.items())\n"
        "print([k for k, _ in before] == [k for k, _ in after],\n"
        "      all(a is b for (_, a), (_, b) in zip(before, after)),\n"
        "      any(a is b for (a, _), (b, _) in zip(before, after)),\n"
        "      __import__('json') is sys.modules['json'] is dict(before)['json'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, spec.origin],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=GENEROUS_BOUND,
    )
    assert (done.stdout, done.returncode) == ("True True False True\n", 0), done.stderr
