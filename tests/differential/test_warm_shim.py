"""Warm vs spawned Python hooks whose `python3` is a version manager's shim (a pyenv-style
script that execs the interpreter its version files pick): the same output byte for byte, each
warm run really forked, and a changed version file picks the new interpreter at once."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.differential.test_warm_python import SYSTEM_PYTHON, _both, _env, needs_system_python
from tests.differential.warm_corpus import CORPUS, PRELUDE, Hook

from hookwright.monitor import debug
from hookwright.transports.process import run_process
from hookwright.transports.warm import WarmPython
from hookwright.transports.warm_invocation import find_executable, shim_of

SHIM = '#!/usr/bin/env bash\nset -e\nexec "{root}/libexec/pyenv" exec "${{0##*/}}" "$@"\n'
#: Picks the version named in the working folder's `.python-version`, else the global one.
PYENV = (
    "#!/usr/bin/env bash\nshift 2\n"
    'version=$(cat .python-version 2>/dev/null || cat "$PYENV_ROOT/version")\n'
    'exec "$PYENV_ROOT/versions/$version/bin/python3" "$@"\n'
)
SHOW_EXE = "import sys\nsys.stdin.read()\nprint(sys.executable, sys.version_info[:3])\n"
SAMPLE = [hook for hook in CORPUS if hook.name in ("process", "exception", "exit-message")]


@pytest.fixture(scope="module")
def warm() -> Iterator[WarmPython]:
    runner = WarmPython(enabled=True)
    yield runner
    runner.close()


def executable(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)


def fake_pyenv(root: Path) -> None:
    """`root/shims/python3`, its `pyenv`, and versions `a` (this interpreter) and `b` (the
    system's), `a` the global one."""
    executable(root / "shims" / "python3", SHIM.format(root=root))
    executable(root / "libexec" / "pyenv", PYENV)
    for version, python in (("a", os.path.realpath(sys.executable)), ("b", SYSTEM_PYTHON)):
        (root / "versions" / version / "bin").mkdir(parents=True)
        (root / "versions" / version / "bin" / "python3").symlink_to(python)
    (root / "version").write_text("a\n")


def shim_env(home: Path, root: Path) -> dict[str, str]:
    return {**_env(home), "PATH": f"{root / 'shims'}:/usr/bin:/bin", "PYENV_ROOT": str(root)}


def test_a_pyenv_or_asdf_shim_is_told_from_other_scripts(tmp_path: Path) -> None:
    fake_pyenv(tmp_path / "pyenv")
    shim = shim_of(str(tmp_path / "pyenv" / "shims" / "python3"))
    assert shim is not None and shim.manager == "pyenv"
    executable(
        tmp_path / "asdf", '#!/usr/bin/env bash\nexec /opt/asdf/bin/asdf exec "python3" "$@"\n'
    )
    assert shim_of(str(tmp_path / "asdf")) is not None
    executable(tmp_path / "wrapper", '#!/bin/sh\nexec /usr/bin/python3 "$@"\n')
    assert shim_of(str(tmp_path / "wrapper")) is None


@needs_system_python
@pytest.mark.parametrize("hook", SAMPLE, ids=lambda hook: hook.name)
async def test_a_hook_through_a_shim_runs_warm_exactly_as_spawned(
    hook: Hook, warm: WarmPython, tmp_path: Path, isolated_home: Path
) -> None:
    root = tmp_path / "pyenv"
    fake_pyenv(root)
    launch = {"command": "python3 hook.py", "env": shim_env(isolated_home, root)}
    spawned, forked = await _both(hook, tmp_path / "run", warm, launch)
    assert forked == spawned


@needs_system_python
async def test_a_changed_version_file_picks_the_new_interpreter(
    warm: WarmPython, tmp_path: Path, isolated_home: Path
) -> None:
    root = tmp_path / "pyenv"
    fake_pyenv(root)
    folder = tmp_path / "run"
    executable(folder / "hook.py", SHOW_EXE)
    env = shim_env(isolated_home, root)
    seen = []
    for version in ("a", "a", "b", "b", "a"):
        (folder / ".python-version").write_text(f"{version}\n")
        before = warm.forked
        outcome = await run_process(
            command="python3 hook.py", stdin_data=b"{}", cwd=folder, env=env, timeout=30, warm=warm
        )
        assert outcome.exit_code == 0, outcome.stderr
        assert warm.forked == before + 1
        seen.append(outcome.stdout.split(" ", 1)[0])
    assert seen[0] == seen[1] == seen[4] != seen[2] == seen[3]
    assert seen[2] == str(root / "versions" / "b" / "bin" / "python3")


@needs_system_python
async def test_a_python3_script_that_is_no_shim_is_spawned_and_debug_says_why(
    warm: WarmPython, tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    executable(tmp_path / "bin" / "python3", f'#!/bin/sh\nexec {SYSTEM_PYTHON} "$@"\n')
    env = {**_env(isolated_home), "PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin"}
    hook = Hook("plain", PRELUDE + "print(sys.argv)\n")
    was_on = debug.state.on
    debug.enable(True)
    try:
        launch = {"command": "python3 hook.py", "env": env}
        spawned, forked = await _both(hook, tmp_path / "run", warm, launch, taken=False)
    finally:
        debug.enable(was_on)
    assert forked == spawned
    assert "spawned, not run warm: not a plain Python script run" in capsys.readouterr().err


def test_this_machines_python3_shim_is_recognised_when_it_is_one() -> None:
    found = find_executable("python3", os.environ)
    if found is None or "shims" not in found:
        pytest.skip("python3 on PATH is not a shim here")
    assert shim_of(found) is not None
