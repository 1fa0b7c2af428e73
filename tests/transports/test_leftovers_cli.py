"""Through the real command: `hookwright hooks test` runs a project's Claude Code hooks, one
spawned (`sh`) and one forked warm (a Python script); each detaches a process with `setsid`
and an empty environment. Both processes are gone when the command is done; a process the
test started itself, unmarked and in a session of its own, is untouched."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bounds import eventually
from procs import gone, running

from .test_unmarked_leftovers import DETACH, PY_DETACH, WAIT


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".claude").mkdir(parents=True)
    (root / "hook.py").write_text(PY_DETACH.replace("print(os.getppid())", _WRITE_PPID))
    spawned = DETACH.format(pid=root / "spawned.pid") + WAIT.format(pid=root / "spawned.pid")
    warm = f"python3 hook.py {root / 'warm.pid'}"
    hooks = [{"hooks": [{"type": "command", "command": command}]} for command in (spawned, warm)]
    (root / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"Stop": hooks}}))
    return root


_WRITE_PPID = 'open("ppid", "w").write(str(os.getppid()))'


@pytest.fixture
def left() -> Iterator[list[int]]:
    pids: list[int] = []
    yield pids
    for pid in pids:
        if running(pid):
            os.kill(pid, signal.SIGKILL)


def test_hooks_test_leaves_no_unmarked_detached_process(
    project: Path, isolated_home: Path, left: list[int]
) -> None:
    bystander = subprocess.Popen(["/bin/sleep", "300"], start_new_session=True, env={})
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKWRIGHT_")}
        command = [sys.executable, "-m", "hookwright", "hooks", "test", "Stop", "-p", str(project)]
        cli = subprocess.Popen(
            command, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        stdout, stderr = cli.communicate(timeout=120)
        assert cli.returncode == 0, stderr
        verdict = json.loads(stdout)
        assert [hook["status"] for hook in verdict["hooks"]] == ["ok", "ok"], verdict
        left.extend(int((project / f"{kind}.pid").read_text()) for kind in ("spawned", "warm"))
        assert int((project / "ppid").read_text()) != cli.pid  # forked by the warm interpreter
        assert eventually(lambda: all(gone(pid) for pid in left))
        assert running(bystander.pid)
    finally:
        bystander.kill()
        bystander.wait()
