"""`hookwright picoclaw-process` as a real PicoClaw process hook: the PicoClaw side of the
protocol is hookwright's own PicoClaw dialect (it encodes requests as PicoClaw's Go code does
and decodes answers as PicoClaw's structs read them), spawning the command from a PicoClaw
config, once per protocol version. The project's hooks are Claude Code, OpenHarness and
native Python hooks; every assertion is on what PicoClaw decodes and on what the hooks read."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from picoclaw_support import (
    Pico,
    after_llm,
    after_tool,
    approve_tool,
    before_llm,
    before_tool,
    until,
)

from hookwright.config.trust import TrustStore
from hookwright.core.results import Decision
from hookwright.dialects.picoclaw import attach_observers, registered_processes, start_processes

PROTOCOLS = ["seed", "current"]

BLOCK_RM_YAML = """\
name: block-rm
events: [before_tool_dispatch]
matcher: "Bash"
handler:
  type: command
  command: python3 .openharness/hooks/scripts/block_rm.py
  timeout_seconds: 30
"""

MARK = """\
from pathlib import Path
import os
Path(os.environ["MARKER_DIR"], "{name}").write_text("ran")
"""

BLOCK_RM_PY = (
    MARK.format(name="openharness")
    + """\
import json, sys
envelope = json.load(sys.stdin)
command = (envelope.get("tool_input") or {}).get("command", "")
if "rm -rf" in command:
    print(json.dumps({"decision": "block", "reason": "rm -rf is not allowed here"}))
else:
    print(json.dumps({"continue": True}))
"""
)

REWRITE_PY = (
    MARK.format(name="claude")
    + """\
import json, sys
raw = sys.stdin.buffer.read()
Path(os.environ["MARKER_DIR"], "claude-stdin.json").write_bytes(raw)
data = json.loads(raw)
if data["tool_input"].get("command") == "make clean-all":
    print(json.dumps({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "updatedInput": {"command": "make clean", "cwd": "build"},
    }}))
"""
)

NATIVE_YAML = """\
hooks:
  - name: tool-notes
    event: PostToolUse
    call: notes:tool_notes
  - name: prompt-notes
    event: UserPromptSubmit
    call: notes:prompt_notes
  - name: no-secrets
    event: PermissionRequest
    call: notes:no_secrets
"""

NOTES_PY = (
    MARK.format(name="python")
    + """\
from hookwright import add_context, deny


def tool_notes(inp):
    return add_context("PY-TOOL-NOTE " + inp.tool_name)


def prompt_notes(inp):
    return add_context("PY-PROMPT-NOTE " + inp.payload["prompt"])


def no_secrets(inp):
    if "secrets" in str(inp.tool_input.get("file_path", "")):
        return deny("secrets stay secret")
    return None
"""
)


def claude_settings() -> dict[str, Any]:
    command = f"{sys.executable} .claude/rewrite.py"
    return {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]
        }
    }


@pytest.fixture
def hook_project(tmp_path: Path) -> Path:
    root = tmp_path / "hooks-project"
    scripts = root / ".openharness" / "hooks" / "scripts"
    scripts.mkdir(parents=True)
    (root / ".openharness" / "hooks" / "block-rm.yaml").write_text(BLOCK_RM_YAML)
    (scripts / "block_rm.py").write_text(BLOCK_RM_PY)
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(json.dumps(claude_settings()))
    (root / ".claude" / "rewrite.py").write_text(REWRITE_PY)
    (root / ".hookwright").mkdir()
    (root / ".hookwright" / "hooks.yaml").write_text(NATIVE_YAML)
    (root / ".hookwright" / "notes.py").write_text(NOTES_PY)
    return root


@pytest.fixture
def markers(tmp_path: Path) -> Path:
    path = tmp_path / "markers"
    path.mkdir()
    return path


async def serve(pico: Pico, project: Path, markers: Path, protocol: str) -> None:
    """PicoClaw's config naming `hookwright picoclaw-process`, loaded and started."""
    entry = {
        "command": [
            sys.executable,
            "-m",
            "hookwright",
            "picoclaw-process",
            "--project",
            str(project),
        ],
        "env": {"MARKER_DIR": str(markers), "HOOKWRIGHT_AUDIT_LOG": str(markers.parent / "audit")},
        "intercept": ["before_llm", "before_tool", "approve_tool"],
        "observe": ["turn_end"],
        "timeout_ms": 60_000,
    }
    pico.load({"protocol": protocol, "processes": {"hookwright": entry}})
    for process in registered_processes(pico.engine):
        process.rpc.hello_timeout = 60.0
    assert await start_processes(pico.engine) == [None]


def trust(project: Path, home: Path) -> None:
    TrustStore(home).trust(project)


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_openharness_block_is_a_deny_tool(
    pico: Pico, hook_project: Path, markers: Path, protocol: str
) -> None:
    trust(hook_project, pico.home)
    await serve(pico, hook_project, markers, protocol)
    verdict = await pico.engine.dispatch(before_tool("exec", command="rm -rf build"))
    assert verdict.decision is Decision.deny
    # What PicoClaw makes of `{"action": "deny_tool", "reason": ...}`: the model's tool message.
    denied = "Tool execution denied by hook: rm -rf is not allowed here"
    assert verdict.reason == denied
    assert verdict.effects.tool_message == denied
    allowed = await pico.engine.dispatch(before_tool("exec", command="ls"))
    assert allowed.decision is not Decision.deny
    assert allowed.updated_input is None


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_claude_code_rewrite_is_a_modify_with_the_exact_input(
    pico: Pico, hook_project: Path, markers: Path, protocol: str
) -> None:
    trust(hook_project, pico.home)
    await serve(pico, hook_project, markers, protocol)
    verdict = await pico.engine.dispatch(before_tool("exec", command="make clean-all"))
    assert verdict.decision is not Decision.deny
    # Claude Code's `cwd` is PicoClaw exec's `working_dir`: the arguments PicoClaw runs.
    assert verdict.updated_input == {"command": "make clean", "working_dir": "build"}
    stdin = json.loads((markers / "claude-stdin.json").read_bytes())
    assert stdin["hook_event_name"] == "PreToolUse"
    assert stdin["tool_name"] == "Bash"
    assert stdin["tool_input"] == {"command": "make clean-all"}
    assert stdin["session_id"] == "session-1"
    assert stdin["cwd"] == str(hook_project.resolve())


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_python_hooks_add_context_and_deny_approval(
    pico: Pico, hook_project: Path, markers: Path, protocol: str
) -> None:
    trust(hook_project, pico.home)
    await serve(pico, hook_project, markers, protocol)
    llm = await pico.engine.dispatch(before_llm(messages=[{"role": "user", "content": "hi"}]))
    messages = (llm.updated_input or {})["messages"]
    assert messages[0] == {"role": "user", "content": "hi"}
    assert messages[-1]["role"] == "user"
    assert "PY-PROMPT-NOTE hi" in messages[-1]["content"]
    tool = await pico.engine.dispatch(after_tool("read_file", content="text", path="a.txt"))
    assert tool.updated_output["for_llm"].startswith("text\n\n")
    assert "PY-TOOL-NOTE Read" in tool.updated_output["for_llm"]
    denied = await pico.engine.dispatch(approve_tool("read_file", path="secrets.txt"))
    assert denied.decision is Decision.deny
    assert denied.reason == "secrets stay secret"
    approved = await pico.engine.dispatch(approve_tool("read_file", path="notes.txt"))
    assert approved.decision is Decision.allow


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_untrusted_project_runs_nothing_and_answers_continue(
    pico: Pico, hook_project: Path, markers: Path, protocol: str
) -> None:
    await serve(pico, hook_project, markers, protocol)
    blocked = await pico.engine.dispatch(before_tool("exec", command="rm -rf build"))
    assert blocked.decision is not Decision.deny
    assert blocked.updated_input is None
    rewrite = await pico.engine.dispatch(before_tool("exec", command="make clean-all"))
    assert rewrite.updated_input is None
    approval = await pico.engine.dispatch(approve_tool("read_file", path="secrets.txt"))
    assert approval.decision is Decision.allow
    llm = await pico.engine.dispatch(before_llm())
    assert llm.updated_input is None
    assert sorted(p.name for p in markers.iterdir()) == []
    assert not (hook_project / ".hookwright" / "__pycache__").exists()


LEAKY_YAML = """\
hooks:
  - name: leaky
    event: PreToolUse
    call: leaky:leaky
"""

LEAKY_PY = """\
import os, sys


def leaky(inp):
    print("LEAK from print")
    sys.stdout.flush()
    os.write(1, b"LEAK from fd 1\\n")
    return None
"""

HOSTILE_LINES = [
    b'{"jsonrpc":"2.0","id":1,"method":"hook.hello","params":{"name":"hw","version":1,'
    b'"modes":["tool"]}}',
    b"not json",
    b"\xff\xfe{}",
    b"[1, 2]",
    b"[" * 100_000 + b"]" * 100_000,
    b'{"jsonrpc": "2.0", "id": 5, "method": "hook.nope", "params": {}}',
    b'{"jsonrpc": "2.0", "id": 6, "method": "hook.before_tool", "params": "x"}',
    b'{"jsonrpc": "2.0", "id": 7, "method": "hook.before_tool", "params": {"tool": 5}}',
    b'{"jsonrpc": "2.0", "id": 8, "method": 3}',
    b'{"jsonrpc": "2.0", "id": [1], "method": "hook.hello"}',
    b'{"jsonrpc": "2.0", "method": "hook.before_tool", "params": {"tool": []}}',
    b'{"jsonrpc": "2.0", "method": "hook.runtime_event", "params": {"kind": "agent.turn.end"}}',
    b'{"jsonrpc": "2.0", "method": "hook.event", "params": {"Kind": 1, "Meta": 7}}',
    b"",
    b'{"jsonrpc": "2.0", "id": 9, "method": "hook.before_tool", "params": '
    b'{"meta": {"SessionKey": "s1", "TurnID": "t1"}, "tool": "exec", '
    b'"arguments": {"command": "ls"}}}',
]


def test_hostile_lines_get_errors_and_stdout_carries_only_protocol(tmp_path: Path) -> None:
    import os
    import subprocess

    project = tmp_path / "leaky"
    (project / ".hookwright").mkdir(parents=True)
    (project / ".hookwright" / "hooks.yaml").write_text(LEAKY_YAML)
    (project / ".hookwright" / "leaky.py").write_text(LEAKY_PY)
    TrustStore(Path(os.environ["HOME"])).trust(project)
    done = subprocess.run(
        [sys.executable, "-m", "hookwright", "picoclaw-process", "--project", str(project)],
        input=b"\n".join(HOSTILE_LINES) + b"\n",
        capture_output=True,
        timeout=120,
        env={**os.environ, "HOOKWRIGHT_AUDIT_LOG": str(tmp_path / "audit.jsonl")},
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert all(a["jsonrpc"] == "2.0" for a in answers)
    codes = {a["id"]: a["error"]["code"] for a in answers if "error" in a and a["id"] is not None}
    assert codes == {5: -32601, 6: -32602, 7: -32602, 8: -32600}
    anonymous = sorted(a["error"]["code"] for a in answers if a["id"] is None)
    assert anonymous == [-32700, -32700, -32700, -32600, -32600]
    [ok] = [a for a in answers if a["id"] == 9]
    assert ok["result"] == {"action": "continue"}
    [hello] = [a for a in answers if a["id"] == 1]
    assert hello["result"]["ok"] is True
    assert len(answers) == 11
    assert b'add "approve_tool" to its intercept list' in done.stderr
    assert b'add "before_llm" to its intercept list' in done.stderr
    assert b'add "before_tool"' not in done.stderr
    assert b"LEAK from print" in done.stderr
    assert b"LEAK from fd 1" in done.stderr


LIFECYCLE_YAML = """\
hooks:
  - name: start
    event: SessionStart
    call: life:start
  - name: stop
    event: Stop
    call: life:stop
  - name: end
    event: SessionEnd
    call: life:end
"""

LIFECYCLE_PY = """\
import json, os
from pathlib import Path
from hookwright import add_context

MARKERS = Path(os.environ["MARKER_DIR"])


def start(inp):
    return add_context("PY-START " + inp.session_id)


def stop(inp):
    (MARKERS / "stop.json").write_text(json.dumps(inp.payload["last_assistant_message"]))


def end(inp):
    (MARKERS / "end.json").write_text(json.dumps([inp.session_id, inp.payload["reason"]]))
"""


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_session_lifecycle_maps_to_start_stop_and_end(
    pico: Pico, tmp_path: Path, markers: Path, protocol: str
) -> None:
    project = tmp_path / "lifecycle"
    (project / ".hookwright").mkdir(parents=True)
    (project / ".hookwright" / "hooks.yaml").write_text(LIFECYCLE_YAML)
    (project / ".hookwright" / "life.py").write_text(LIFECYCLE_PY)
    trust(project, pico.home)
    await serve(pico, project, markers, protocol)
    attach_observers(pico.engine)
    first = await pico.engine.dispatch(before_llm(messages=[{"role": "user", "content": "hi"}]))
    assert (first.updated_input or {})["messages"][-1] == {
        "role": "user",
        "content": "PY-START session-1",
    }
    reply = await pico.engine.dispatch(after_llm("final words"))
    assert reply.updated_output is None
    pico.engine.publish(
        "agent.turn.end",
        {"Status": "completed", "scope": {"session_key": "session-1", "turn_id": "turn-1"}},
    )
    assert await until(lambda: (markers / "stop.json").exists())
    assert json.loads((markers / "stop.json").read_text()) == "final words"
    await pico.engine.aclose()
    assert await until(lambda: (markers / "end.json").exists())
    assert json.loads((markers / "end.json").read_text()) == ["session-1", "other"]
