"""PicoClaw hook process isolation (`isolation.enabled` in config.json) through the reference
agent: with bubblewrap the hook process sees only what PicoClaw's sandbox shows it, what the model
receives proves it; without bubblewrap the process does not start and says why. The sandbox tests
skip where bubblewrap is not installed or cannot run."""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hookwright.runtime.opening import SessionOptions, open_session

from . import support
from .support import call, jsonl, run_once, tool_messages

#: A hook process that answers every before_tool with what it can see.
PROBE = """\
import json, os, sys
def probe():
    try:
        open(os.environ["SECRET"]).read()
        secret = True
    except OSError:
        secret = False
    exposed = os.environ["EXPOSED"]
    with open(os.path.join(exposed, "written.txt"), "w") as fh:
        fh.write("from the sandbox")
    return {"home": os.environ["HOME"], "secret": secret, "tmpdir": os.environ.get("TMPDIR")}
with open(os.path.join(os.environ["EXPOSED"], "pid.jsonl"), "a") as fh:
    fh.write(json.dumps({"pid": os.getpid()}) + "\\n")
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    if msg["method"] == "hook.hello":
        result = {"ok": True}
    else:
        result = {"action": "respond", "result": {"for_llm": json.dumps(probe())}}
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
"""

TURNS: list[dict[str, Any]] = [
    {"content": "", "tool_calls": [call("Bash", command="echo hi")]},
    {"content": "done"},
]


@functools.cache
def bwrap_runs() -> bool:
    """bubblewrap is installed and can make a sandbox here (user namespaces or root)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return False
    probe = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-ipc", "true"]
    return subprocess.run(probe, capture_output=True, timeout=30).returncode == 0


needs_bwrap = pytest.mark.skipif(not bwrap_runs(), reason="bubblewrap is not installed here")


def write_project(root: Path, home: Path, isolation: dict[str, Any] | None) -> Path:
    """A project whose hook process reports what it sees; returns the folder exposed to it."""
    exposed = root.parent / "exposed"
    exposed.mkdir(parents=True)
    secret = home / "secret.txt"
    secret.write_text("api key")
    script = root.parent / "probe.py"
    script.write_text(PROBE)
    process = {
        "command": [sys.executable, str(script)],
        "env": {"SECRET": str(secret), "EXPOSED": str(exposed)},
        "intercept": ["before_tool", "approve_tool"],
    }
    config: dict[str, Any] = {"hooks": {"processes": {"probe": process}}}
    if isolation is not None:
        config["isolation"] = isolation
    (root / ".picoclaw").mkdir(parents=True)
    (root / ".picoclaw" / "config.json").write_text(json.dumps(config))
    return exposed


def python_prefix() -> dict[str, str]:
    """The interpreter's installation, which the sandbox must show for Python to start."""
    return {"source": sys.base_prefix, "mode": "ro"}


async def test_without_isolation_the_hook_sees_the_users_files(
    tmp_path: Path, isolated_home: Path
) -> None:
    write_project(tmp_path / "project", isolated_home, None)
    live = await run_once(tmp_path / "project", isolated_home, TURNS)
    report = json.loads(tool_messages(live.calls[1])[0])
    assert report["secret"] is True and report["home"] == str(isolated_home)


@needs_bwrap
async def test_an_isolated_hook_sees_only_its_sandbox(tmp_path: Path, isolated_home: Path) -> None:
    exposed = tmp_path / "exposed"
    isolation = {
        "enabled": True,
        "expose_paths": [python_prefix(), {"source": str(exposed), "mode": "rw"}],
    }
    write_project(tmp_path / "project", isolated_home, isolation)
    live = await run_once(tmp_path / "project", isolated_home, TURNS)
    report = json.loads(tool_messages(live.calls[1])[0])
    user_env = isolated_home / ".picoclaw" / "runtime-user-env"
    assert report == {
        "home": str(user_env / "home"),
        "secret": False,  # the user's home is not in the sandbox
        "tmpdir": str(user_env / "tmp"),
    }
    # an exposed folder is the host's own, read-write
    assert (exposed / "written.txt").read_text() == "from the sandbox"
    [started] = jsonl(exposed / "pid.jsonl")
    assert not Path(f"/proc/{started['pid']}").exists() or _zombie(started["pid"])


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


async def test_without_bubblewrap_an_isolated_hook_does_not_start(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_project(tmp_path / "project", isolated_home, {"enabled": True})
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    turns = [
        {"content": "", "tool_calls": [call("Write", file_path="a.txt", content="a")]},
        {"content": "done"},
    ]
    model = support.model(turns)
    setup = await open_session(
        SessionOptions(tmp_path / "project", home=isolated_home, model=model, trust=True)
    )
    try:
        await setup.agent.start()
        await setup.agent.run("Write it.")
    finally:
        await setup.agent.close()
        await setup.engine.aclose()
    problems = [d for d in setup.diagnostics if "probe" in d]
    assert len(problems) == 1 and problems[0].startswith("error:")
    assert "bubblewrap" in problems[0] and '"isolation": {"enabled": false}' in problems[0]
    # the approval gate cannot run, so it denies; nothing ran unisolated
    assert tool_messages(model.calls[1]) == [
        'Tool execution denied by approval hook: tool approval hook "probe" failed'
    ]
    assert not (tmp_path / "project" / "a.txt").exists()
    assert not (tmp_path / "exposed" / "pid.jsonl").exists()
