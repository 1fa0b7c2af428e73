"""`HookInput.host_objects` and `HookInput.chain_state` never reach a wire.

A project with a hook of every dialect on PreToolUse (a Claude Code command hook, an OpenHarness
command hook, a PicoClaw hook process and a native Python hook), loaded from disk into a real
engine. The host hands a lock and a socket (neither JSON-serialisable) in the side channel: every
process hook runs and reads its usual input, and the native hook uses the lock.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from pathlib import Path
from typing import Any

import yaml

from hookwright import Event, HookEngine, HookInput, HookResult, add_context
from hookwright.config.loading import LoadContext, discover
from hookwright.config.trust import TrustPolicy
from hookwright.core.results import Status
from hookwright.dialects.claude_code import encode_body, encode_input

NATIVE = """\
from hookwright import add_context


def uses_the_lock(inp):
    lock = inp.host_objects["lock"]
    with lock:
        family = inp.host_objects["sock"].family.name
        return add_context(f"lock held: {lock.locked()}; socket: {family}")
"""
COPY = "import sys\nopen(sys.argv[1], 'ab').write(sys.stdin.buffer.read())\n"
PICOCLAW = """\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    with open(sys.argv[1], "a") as log:
        log.write(line)
    result = {"ok": True} if message["method"] == "hook.hello" else {"action": "continue"}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\\n")
    sys.stdout.flush()
"""


def write_project(root: Path) -> Path:
    project = root / "project"
    (project / ".claude").mkdir(parents=True)
    (root / "copy.py").write_text(COPY)
    copy = f"{sys.executable} {root / 'copy.py'}"
    (project / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {"hooks": [{"type": "command", "command": f"{copy} {root / 'cc.log'}"}]}
                    ]
                }
            }
        )
    )
    (project / ".openharness" / "hooks").mkdir(parents=True)
    oh_hook = {
        "name": "oh-copy",
        "events": ["before_tool_dispatch"],
        "handler": {"type": "command", "command": f"{copy} {root / 'oh.log'}"},
    }
    (project / ".openharness" / "hooks" / "copy.yaml").write_text(yaml.safe_dump(oh_hook))
    (root / "pico.py").write_text(PICOCLAW)
    pico = {
        "command": [sys.executable, str(root / "pico.py"), str(root / "pico.log")],
        "intercept": ["before_tool"],
    }
    (project / ".picoclaw").mkdir()
    (project / ".picoclaw" / "config.json").write_text(
        json.dumps({"hooks": {"enabled": True, "processes": {"pico": pico}}})
    )
    (project / ".hookwright").mkdir()
    (project / ".hookwright" / "native_guard.py").write_text(NATIVE)
    native = {
        "hooks": [
            {"name": "lock-user", "event": "PreToolUse", "call": "native_guard:uses_the_lock"}
        ]
    }
    (project / ".hookwright" / "hooks.yaml").write_text(yaml.safe_dump(native))
    return project


async def test_host_objects_reach_python_hooks_and_no_wire(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = write_project(tmp_path)
    engine = HookEngine(audit_path=tmp_path / "audit.jsonl")
    result = discover(LoadContext(project, isolated_home, [])).bind(TrustPolicy(everything=True))
    for spec in result.specs:
        engine.register(spec)
    assert [d for d in result.diagnostics if d.severity == "error"] == []
    assert {spec.dialect for spec in engine.hooks(Event.PreToolUse)} == {
        "claude_code",
        "openharness",
        "picoclaw",
        "native",
    }
    lock = threading.Lock()
    left, right = socket.socketpair()
    inp = HookInput(
        Event.PreToolUse,
        session_id="s1",
        cwd=str(project),
        payload={"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"},
        host_objects={"lock": lock, "sock": left},
    )
    try:
        verdict = await engine.dispatch(inp)
    finally:
        await engine.aclose()
        left.close()
        right.close()
    ran = {r.hook.dialect: (r.status, r.error) for r in verdict.results if r.hook is not None}
    assert ran == {
        dialect: (Status.ok, None)
        for dialect in ("native", "claude_code", "openharness", "picoclaw")
    }
    assert list(verdict.additional_context) == ["lock held: True; socket: AF_UNIX"]
    assert not lock.locked()
    claude = (tmp_path / "cc.log").read_bytes()
    assert claude == encode_body(inp) + b"\n"
    assert json.loads(claude)["tool_input"] == {"command": "ls"}
    assert json.loads((tmp_path / "oh.log").read_text())["tool_input"] == {"command": "ls"}
    [before_tool] = [
        json.loads(line)
        for line in (tmp_path / "pico.log").read_text().splitlines()
        if json.loads(line)["method"] == "hook.before_tool"
    ]
    assert before_tool["params"]["arguments"] == {"command": "ls"}


def test_side_channels_are_not_part_of_the_wire_form() -> None:
    lock = threading.Lock()
    inp = HookInput(
        Event.PreToolUse,
        session_id="s1",
        payload={"tool_name": "Bash", "tool_input": {"command": "ls"}},
        host_objects={"lock": lock},
    ).with_chain_state({"openharness": {"context": {"meta": 1}}})
    assert inp.to_wire() == {
        "session_id": "s1",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    }
    assert list(inp) == list(inp.to_wire())
    assert "host_objects" not in encode_input(inp) and "chain_state" not in encode_input(inp)
    assert inp.host_objects["lock"] is lock
    rewritten = inp.with_payload(tool_input={"command": "pwd"})
    assert rewritten.host_objects["lock"] is lock
    assert rewritten.chain_state == {"openharness": {"context": {"meta": 1}}}
    assert HookInput.from_wire("PreToolUse", inp.to_wire()).chain_state == {}


async def test_chain_state_travels_along_a_chain_and_never_to_the_payload() -> None:
    engine = HookEngine(audit_path=None)
    seen: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def first(inp: HookInput) -> HookResult:
        return HookResult(chain_state={"mine": {"step": 1}})

    def second(inp: HookInput) -> HookResult:
        seen.append((dict(inp.chain_state), dict(inp.payload)))
        return add_context("second ran")

    engine.add(first, "PreToolUse", mode="chain", priority=0)
    engine.add(second, "PreToolUse", mode="chain", priority=1)
    inp = HookInput(Event.PreToolUse, payload={"tool_name": "Bash", "tool_input": {}})
    verdict = await engine.dispatch(inp)
    assert seen == [({"mine": {"step": 1}}, {"tool_name": "Bash", "tool_input": {}})]
    assert list(verdict.additional_context) == ["second ran"]
    assert dict(verdict.payload_updates) == {}
    assert inp.chain_state == {}
    engine.close()
