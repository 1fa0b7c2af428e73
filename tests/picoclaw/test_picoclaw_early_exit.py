"""A PicoClaw process hook that ends before reading a whole request says so: its exit code
is the error (in `hooks test`, `--explain`, and a failed handshake), never asyncio's
"Exception is not set." from a request whose write failed before any answer came."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from cli_runner import run_hookwright
from hookwright.transports.rpc import RpcProcess, RpcProcessError

#: Answers the handshake, then reads ten bytes of the next request and exits.
QUITTER = """import json, sys
hello = json.loads(sys.stdin.readline())
print(json.dumps({"jsonrpc": "2.0", "id": hello["id"], "result": {}}), flush=True)
sys.stdin.buffer.read(10)
sys.stderr.write("guard: giving up\\n")
sys.exit(3)
"""
#: Far more than a pipe holds: the write waits for the hook to read it.
LONG = "x" * 300_000


def _project(root: Path) -> Path:
    (root / ".picoclaw").mkdir(parents=True)
    guard = {"command": [sys.executable, "guard.py"], "intercept": ["before_tool"]}
    config = {"hooks": {"processes": {"guard": guard}}}
    (root / ".picoclaw" / "config.json").write_text(json.dumps(config))
    (root / "guard.py").write_text(QUITTER)
    call = {"tool": "Bash", "arguments": {"command": f"echo {LONG}"}}
    (root / "call.json").write_text(json.dumps(call))
    return root


@pytest.mark.parametrize("explain", [False, True])
def test_a_hook_that_exits_while_its_request_is_written_says_its_exit_code(
    tmp_path: Path, isolated_home: Path, explain: bool
) -> None:
    project = _project(tmp_path / "proj")
    args = ["hooks", "test", "before_tool", "-i", "call.json", "-p", str(project)]
    proc = run_hookwright(*args, *(["--explain"] if explain else []),
                          home=isolated_home, cwd=project)  # fmt: skip
    shown = proc.stdout + proc.stderr
    assert "Exception is not set" not in shown, shown
    said = "hook guard: process exited with code 3 before reading the request"
    if explain:
        line = next(line for line in proc.stderr.splitlines() if "error —" in line)
        assert line.endswith(f"guard (PicoClaw, .picoclaw/config.json): error — {said}"), line
    else:
        [hook] = json.loads(proc.stdout.splitlines()[-1])["hooks"]
        assert hook["status"] == "error" and hook["error"] == said, hook
    assert "guard: giving up" in proc.stderr  # the hook's own last words
    assert "hook guard: hook guard:" not in proc.stderr  # the exit's log line names it once


async def test_a_handshake_whose_hello_the_process_never_reads_says_its_exit_code(
    tmp_path: Path,
) -> None:
    process = RpcProcess(
        "h",
        [sys.executable, "-c", "import sys; sys.exit(3)"],
        hello_params={"name": "h", "padding": LONG},
    )
    try:
        with pytest.raises(RpcProcessError) as failed:
            await asyncio.wait_for(process.start(), 30)
    finally:
        await process.aclose()
    said = "hook h: hook.hello failed: process exited with code 3 before reading the request"
    assert str(failed.value) == said
