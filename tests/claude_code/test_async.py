"""Spec §3.1: async hooks report to the AsyncInbox after the dispatch has returned."""

from __future__ import annotations

import json
from pathlib import Path

from bounds import eventually
from hookwright.engine.async_delivery import AsyncDelivery

from .conftest import Harness, alive, cmd, group
from .expect import TOOL

WAIT_FOR_GO = (
    "import time\n"
    "go = {go!r}\n"
    "for _ in range(1000):\n"
    "    if os.path.exists(go):\n"
    "        break\n"
    "    time.sleep(0.01)\n"
)
LATE_OUTPUT = {
    "decision": "block",
    "systemMessage": "lint finished",
    "hookSpecificOutput": {
        "hookEventName": "PostToolUse",
        "permissionDecision": "deny",
        "additionalContext": "2 warnings",
    },
}


def waiting_hook(h: Harness, go: Path, prefix: str = "", tail: str = "") -> str:
    return h.py("sys.stdin.read()\n" + prefix + WAIT_FOR_GO.format(go=str(go)) + tail)


async def test_async_hook_delivers_on_the_next_turn(h: Harness) -> None:
    go = h.project / "go"
    hook = waiting_hook(h, go, tail=f"print(json.dumps({LATE_OUTPUT!r}))\n")
    h.hooks(group("PostToolUse", cmd(hook, **{"async": True})))
    verdict = await h.fire("PostToolUse", **TOOL, tool_response={})
    assert verdict.decision is None and not verdict.additional_context
    assert h.inbox.running("s1") == 1 and h.inbox.drain("s1") == []
    go.touch()
    assert await h.inbox.wait(20)
    [delivery] = h.inbox.drain("s1")
    assert (delivery.additional_context, delivery.system_message) == ("2 warnings", "lint finished")
    assert not delivery.rewake and delivery.result.exit_code == 0
    assert h.inbox.drain("s1") == []
    records = h.audit()
    assert [r["exit_code"] for r in records] == [None, 0]
    assert all(r["origin"].endswith("hooks.PostToolUse[0].hooks[0]") for r in records)


async def test_async_rewake_on_exit_2_wakes_listeners(h: Harness) -> None:
    woken: list[AsyncDelivery] = []
    h.inbox.add_listener(woken.append)
    hook = h.py("sys.stdin.read()\nprint('3 tests failed', file=sys.stderr)\nsys.exit(2)\n")
    h.hooks(
        group(
            "PostToolUse",
            cmd(hook, asyncRewake=True, rewakeMessage="Tests:", rewakeSummary="tests failed"),
        )
    )
    verdict = await h.fire("PostToolUse", **TOOL, tool_response={})
    assert verdict.decision is None
    assert await h.inbox.wait(20)
    [delivery] = woken
    assert delivery.rewake and delivery.rewake_message == "Tests:\n3 tests failed"
    assert delivery.rewake_summary == "tests failed"
    assert h.inbox.drain() == [delivery]


async def test_async_rewake_uses_stdout_when_stderr_is_empty(h: Harness) -> None:
    woken: list[AsyncDelivery] = []
    h.inbox.add_listener(woken.append)
    h.hooks(group("Stop", cmd(h.emit("from stdout", "", 2), asyncRewake=True)))
    await h.fire("Stop", stop_hook_active=False)
    assert await h.inbox.wait(20)
    assert [d.rewake_message for d in woken] == ["from stdout"]


async def test_async_rewake_exit_0_does_not_wake(h: Harness) -> None:
    woken: list[AsyncDelivery] = []
    h.inbox.add_listener(woken.append)
    h.hooks(group("Stop", cmd(h.emit("", "fine", 0), asyncRewake=True)))
    await h.fire("Stop", stop_hook_active=False)
    assert await h.inbox.wait(20)
    assert woken == [] and h.inbox.drain() == []
    assert [d.result.exit_code for d in h.inbox.history] == [0]


async def test_first_line_async_declaration_detaches(h: Harness) -> None:
    go = h.project / "go"
    output = {"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "late"}}
    hook = waiting_hook(
        h,
        go,
        prefix="print(json.dumps({'async': True}), flush=True)\n",
        tail=f"print(json.dumps({output!r}))\n",
    )
    h.hooks(group("Stop", cmd(hook)))
    verdict = await h.fire("Stop", stop_hook_active=False)
    assert verdict.decision is None and not verdict.additional_context
    assert h.inbox.running() == 1
    go.touch()
    assert await h.inbox.wait(20)
    assert [d.additional_context for d in h.inbox.drain()] == ["late"]


async def test_async_timeout_from_the_declaration(h: Harness) -> None:
    pidfile = h.project / "pid"
    hook = h.py(
        f"open({str(pidfile)!r}, 'w').write(str(os.getpid()))\n"
        "print(json.dumps({'async': True, 'asyncTimeout': 300}), flush=True)\n"
        "import time; time.sleep(60)\n"
    )
    h.hooks(group("Stop", cmd(hook)))
    await h.fire("Stop", stop_hook_active=False)
    assert await h.inbox.wait(20)
    [delivery] = h.inbox.history
    assert delivery.result.status.value == "timeout"
    assert eventually(lambda: not alive(int(pidfile.read_text())))


async def test_engine_close_kills_running_async_hooks(h: Harness) -> None:
    pidfile = h.project / "pid"
    hook = h.sh(f"echo $$ > {pidfile}\nsleep 60\n")
    h.hooks(group("Stop", cmd(hook, **{"async": True})))
    await h.fire("Stop", stop_hook_active=False)
    for _ in range(500):
        if pidfile.exists() and pidfile.read_text().strip():
            break
        await h.inbox.wait(0.01)
    pid = int(pidfile.read_text())
    assert alive(pid)
    await h.engine.aclose()
    assert h.inbox.running() == 0
    assert eventually(lambda: not alive(pid))


async def test_drain_is_per_session(h: Harness) -> None:
    out = {"systemMessage": "done"}
    h.hooks(group("Stop", cmd(h.emit(json.dumps(out)), **{"async": True})))
    await h.fire("Stop", session="a", stop_hook_active=False)
    await h.fire("Stop", session="b", stop_hook_active=False)
    assert await h.inbox.wait(20)
    assert [d.session_id for d in h.inbox.drain("b")] == ["b"]
    assert [d.session_id for d in h.inbox.drain()] == ["a"]
