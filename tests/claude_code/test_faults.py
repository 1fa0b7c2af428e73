"""Faulty hooks: the dispatch returns, the audit says what happened, nothing is left running
(the harness checks every test for leftover processes)."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

from bounds import GENEROUS_BOUND, eventually

from .conftest import Harness, alive, cmd, group
from .expect import TOOL


async def test_hanging_hook_times_out(h: Harness) -> None:
    pids = h.project / "pids"
    hang = h.sh(f"echo $$ > {pids}\nsleep 60 &\necho $! >> {pids}\nwait\n")
    h.hooks(group("PreToolUse", cmd(hang, timeout=1)))
    started = time.monotonic()
    verdict = await h.fire("PreToolUse", **TOOL)
    assert time.monotonic() - started < GENEROUS_BOUND
    assert verdict.decision is None
    [record] = h.audit()
    assert record["status"] == "timeout" and record["error"] == "timed out after 1s"
    assert eventually(lambda: not any(alive(int(pid)) for pid in pids.read_text().split()))


async def test_background_child_holding_stdout(h: Harness) -> None:
    pidfile = h.project / "child"
    script = h.sh(
        "cat >/dev/null\n"
        f"sleep 60 & echo $! > {pidfile}\n"
        'echo \'{"decision": "block", "reason": "keep going"}\'\n'
    )
    h.hooks(group("Stop", cmd(script, timeout=30)))
    started = time.monotonic()
    verdict = await h.fire("Stop", stop_hook_active=False)
    assert time.monotonic() - started < 10
    assert verdict.decision == "block" and verdict.reason == "keep going"
    assert eventually(lambda: not alive(int(pidfile.read_text())))
    assert h.audit()[0]["status"] == "ok"


async def test_fifty_megabytes_of_context_are_capped(h: Harness) -> None:
    flood = h.py(
        "sys.stdin.read()\n"
        "chunk = 'x' * (1 << 20)\n"
        "for _ in range(50):\n"
        "    sys.stdout.write(chunk)\n"
    )
    h.hooks(group("SessionStart", cmd(flood, timeout=60)))
    verdict = await h.fire("SessionStart", source="startup")
    [context] = verdict.additional_context
    assert len(context) < 10_000
    assert context.startswith("x" * 100)
    saved = Path(context.rsplit("saved to ", 1)[1].rstrip("]"))
    assert saved.parent == h.home / ".hookwright" / "hook-output"
    assert saved.stat().st_size == 10_000_000
    assert h.audit()[0]["status"] == "ok"


async def test_fifty_megabytes_of_json_are_a_clear_error(h: Harness) -> None:
    flood = h.py("sys.stdout.write('{' + 'y' * (50 << 20))\n")
    h.hooks(group("PreToolUse", cmd(flood, timeout=60)))
    verdict = await h.fire("PreToolUse", **TOOL)
    assert verdict.decision is None
    [record] = h.audit()
    assert record["exit_code"] == 0 and record["status"] == "error"
    assert record["error"].startswith("hook ")
    expected = f"JSON answer of {(50 << 20) + 1} bytes is over the 10000000-byte limit"
    assert expected in record["error"]


async def test_a_json_answer_just_under_the_limit_is_read(h: Harness) -> None:
    answer = (
        "import json\n"
        "reason = 'r' * (10_000_000 - 200)\n"
        "print(json.dumps({'decision': 'block', 'reason': reason}))\n"
    )
    h.hooks(group("Stop", cmd(h.py(answer), timeout=60)))
    verdict = await h.fire("Stop", stop_hook_active=False)
    assert verdict.decision == "block"
    assert verdict.reason is not None and verdict.reason.endswith("truncated by hookwright]")


async def test_invalid_utf8(h: Harness) -> None:
    script = h.py("sys.stdin.read()\nsys.stdout.buffer.write(b'caf\\xe9 \\xff ok')\n")
    h.hooks(group("UserPromptSubmit", cmd(script)))
    verdict = await h.fire("UserPromptSubmit", prompt="p")
    assert verdict.additional_context == ["caf\ufffd \ufffd ok"]


async def test_invalid_utf8_in_stderr_of_a_block(h: Harness) -> None:
    script = h.py("sys.stderr.buffer.write(b'bad \\xfe byte')\nsys.exit(2)\n")
    h.hooks(group("PreToolUse", cmd(script)))
    verdict = await h.fire("PreToolUse", **TOOL)
    assert verdict.reason is not None and verdict.reason.endswith("]: bad \ufffd byte")


async def test_exit_without_reading_stdin(h: Harness) -> None:
    h.hooks(group("PreToolUse", cmd(h.py("sys.exit(0)\n")), cmd(h.sh("exit 0\n"))))
    verdict = await h.fire("PreToolUse", **TOOL, padding="z" * 1_000_000)
    assert verdict.decision is None
    assert [r["status"] for r in h.audit()] == ["ok", "ok"]


async def test_missing_script_shell_form_is_a_non_blocking_error(h: Harness) -> None:
    h.hooks(group("PreToolUse", cmd("$CLAUDE_PROJECT_DIR/.claude/hooks/nope.sh")))
    verdict = await h.fire("PreToolUse", **TOOL)
    assert verdict.decision is None
    [record] = h.audit()
    assert record["exit_code"] == 127 and record["status"] == "error"
    assert record["error"].startswith("command not found (exit 127):")
    assert "nope.sh" in record["error"]


async def test_python_missing_script_blocks_and_says_so(h: Harness) -> None:
    command = f"{shlex.quote(sys.executable)} .claude/hooks/missing.py"
    h.hooks(group("PreToolUse", cmd(command)))
    verdict = await h.fire("PreToolUse", **TOOL)
    assert verdict.decision == "deny"
    result = verdict.results[0]
    assert [n.kind for n in result.effects.notices] == ["script_missing"]
    [record] = h.audit()
    assert record["exit_code"] == 2 and record["decision"] == "deny"
    assert record["error"].startswith("hook script missing:")
    assert "missing.py" in record["error"]


async def test_an_exit_2_about_another_missing_file_is_not_a_missing_script(h: Harness) -> None:
    script = h.py(
        "print('cat: notes.txt: No such file or directory', file=sys.stderr)\nsys.exit(2)\n"
    )
    h.hooks(group("PreToolUse", cmd(script)))
    verdict = await h.fire("PreToolUse", **TOOL)
    assert verdict.decision == "deny"
    assert verdict.results[0].error is None


async def test_missing_executable_exec_form(h: Harness) -> None:
    h.hooks(group("PreToolUse", cmd("hookwright-no-such-tool", args=["--check"])))
    verdict = await h.fire("PreToolUse", **TOOL)
    assert verdict.decision is None
    [record] = h.audit()
    assert record["status"] == "error"
    assert record["error"] == "cannot run hook: executable not found: hookwright-no-such-tool"


async def test_hook_killed_by_a_signal(h: Harness) -> None:
    h.hooks(group("PreToolUse", cmd(h.py("import signal; os.kill(os.getpid(), 9)\n"))))
    verdict = await h.fire("PreToolUse", **TOOL)
    assert verdict.decision is None
    assert h.audit()[0]["exit_code"] == 137


async def test_timeout_fails_open(h: Harness) -> None:
    """Timeouts fail open (§1.4): the call goes on through normal permissions."""
    h.hooks(group("PreToolUse", cmd(h.sh("sleep 60\n"), timeout=0.5)))
    verdict = await h.fire("PreToolUse", **TOOL)
    assert verdict.decision is None and not verdict.terminal
