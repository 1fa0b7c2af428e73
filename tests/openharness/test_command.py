"""Command handlers at engine level: the seed's complete example, handler fields and return
semantics (exit 0 / exit 2 / other exits, timeouts)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hookwright import Decision, Event, HookEngine, Status

from .helpers import (
    Workspace,
    install_ws,
    model_reply,
    read_records,
    reply_script,
    tool_call,
    tool_result,
)

SEED_JS = """\
const input = JSON.parse(require("fs").readFileSync("/dev/stdin", "utf8"));
const dangerous = ["rm -rf /", "drop table", "format c:"];
const cmd = input.tool_input?.command || "";
const blocked = dangerous.some((d) => cmd.toLowerCase().includes(d));
if (blocked) {
  console.log(JSON.stringify({
    continue: false,
    decision: "block",
    reason: "Command blocked: contains dangerous pattern",
  }));
} else {
  console.log(JSON.stringify({ continue: true }));
}
"""

SEED_PY = """\
import json, sys
data = json.load(sys.stdin)
cmd = (data.get("tool_input") or {}).get("command") or ""
dangerous = ["rm -rf /", "drop table", "format c:"]
if any(d in cmd.lower() for d in dangerous):
    print(json.dumps({"continue": False, "decision": "block",
                      "reason": "Command blocked: contains dangerous pattern"}))
else:
    print(json.dumps({"continue": True}))
"""

SEED_YAML = """\
name: block-dangerous-commands
events:
  - before_tool_dispatch
matcher: "Bash"
handler:
  type: command
  command: '{command}'
  timeout_seconds: 5
capabilities:
  - patch_tool_input
"""


async def assert_seed_example(engine: HookEngine) -> None:
    verdict = await engine.dispatch(tool_call(command="rm -rf /"))
    assert verdict.decision is Decision.deny
    assert verdict.reason == "Command blocked: contains dangerous pattern"
    verdict = await engine.dispatch(tool_call(command="ls"))
    assert verdict.decision is None and not verdict.terminal
    assert [r.status for r in verdict.results] == [Status.ok]
    verdict = await engine.dispatch(tool_call("Read", file_path="rm -rf /"))
    assert verdict.runs == [], "the matcher limits the hook to Bash"


async def test_seed_example_with_a_python_script(ws: Workspace, engine: HookEngine) -> None:
    command = ws.script("check-command.py", SEED_PY)
    ws.hook("block-dangerous.yaml", SEED_YAML.format(command=command))
    install_ws(engine, ws)
    await assert_seed_example(engine)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
async def test_seed_example_with_its_node_script(ws: Workspace, engine: HookEngine) -> None:
    (ws.hooks / "scripts" / "check-command.js").write_text(SEED_JS)
    command = "node ./.openharness/hooks/scripts/check-command.js"
    ws.hook("block-dangerous.yaml", SEED_YAML.format(command=command))
    install_ws(engine, ws)
    await assert_seed_example(engine)


# Handler fields -------------------------------------------------------------------------


async def test_cwd_defaults_to_the_workspace_root_and_can_be_a_subdirectory(
    ws: Workspace, engine: HookEngine, tmp_path: Path
) -> None:
    record = tmp_path / "cwd.txt"
    body = "import os, sys\nsys.stdin.read()\nopen(sys.argv[1], 'a').write(os.getcwd() + '\\n')\n"
    command = ws.script("cwd.py", body)
    (ws.root / "sub").mkdir()
    for name, cwd in (("a-default", None), ("b-sub", "sub")):
        handler = {
            "type": "command",
            "command": f'{command.replace("./", str(ws.root) + "/", 1)} "{record}"',
        }
        if cwd is not None:
            handler["cwd"] = cwd
        ws.hook(
            f"{name}.yaml", {"name": name, "events": ["before_tool_dispatch"], "handler": handler}
        )
    install_ws(engine, ws)
    await engine.dispatch(tool_call(command="ls"))
    root = ws.root.resolve()
    assert record.read_text().splitlines() == [str(root), str(root / "sub")]


async def test_environment_is_added_to_the_process_environment(
    ws: Workspace, engine: HookEngine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FROM_PARENT", "parent")
    record = tmp_path / "env.txt"
    body = (
        "import os, sys\nsys.stdin.read()\n"
        "open(os.environ['OUT'], 'w').write(os.environ['MODE'] + ' ' + os.environ['FROM_PARENT'])\n"
    )
    ws.command_hook(
        "e.yaml",
        "env",
        ["before_tool_dispatch"],
        body,
        environment={"MODE": "strict", "OUT": str(record)},
    )
    install_ws(engine, ws)
    await engine.dispatch(tool_call(command="ls"))
    assert record.read_text() == "strict parent"


# Return semantics ----------------------------------------------------------------------------


async def test_exit_0_with_json_applies_it(ws: Workspace, engine: HookEngine) -> None:
    out = {"hookSpecificOutput": {"patch": {"tool_input": {"command": "npm run lint"}}}}
    ws.command_hook(
        "p.yaml",
        "p",
        ["before_tool_dispatch"],
        reply_script(out),
        capabilities=["patch_tool_input"],
    )
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="npm test"))
    assert verdict.updated_input == {"command": "npm run lint"}
    assert verdict.results[0].exit_code == 0


async def test_exit_0_with_empty_stdout_has_no_effect(ws: Workspace, engine: HookEngine) -> None:
    ws.command_hook("q.yaml", "quiet", ["before_tool_dispatch"], "import sys\nsys.stdin.read()\n")
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="ls"))
    (result,) = verdict.results
    assert result.status is Status.ok and not result.has_effect


async def test_exit_0_with_invalid_json_fails_and_continues(
    ws: Workspace, engine: HookEngine
) -> None:
    ws.command_hook("a.yaml", "bad-json", ["before_tool_dispatch"], "print('{oops')\n")
    ws.command_hook(
        "b.yaml",
        "after",
        ["before_tool_dispatch"],
        reply_script({"hookSpecificOutput": {"patch": {"tool_input": {"command": "pwd"}}}}),
        capabilities=["rewrite_tool_request"],
    )
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="ls"))
    failed, _ = verdict.results
    assert failed.status is Status.error and failed.error is not None
    assert "invalid JSON" in failed.error
    notice = verdict.effects.notices[0].detail
    assert notice["hookName"] == "bad-json" and notice["errorCode"] == "hook_execution_failed"
    assert notice["eventName"] == "before_tool_dispatch" and notice["handlerType"] == "command"
    assert verdict.updated_input == {"command": "pwd"} and verdict.decision is None


async def test_exit_2_blocks_with_stderr_as_the_reason(ws: Workspace, engine: HookEngine) -> None:
    body = "import sys\nsys.stdin.read()\nsys.stderr.write('  no deletes  \\n')\nsys.exit(2)\n"
    ws.command_hook("b.yaml", "b", ["before_tool_dispatch"], body)
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="rm x"))
    assert (verdict.decision, verdict.reason) == (Decision.deny, "no deletes")
    assert verdict.results[0].exit_code == 2


async def test_exit_2_without_stderr_names_the_command(ws: Workspace, engine: HookEngine) -> None:
    ws.hook(
        "b.yaml",
        {
            "name": "b",
            "events": ["after_model_call"],
            "handler": {"type": "command", "command": "cat >/dev/null; exit 2"},
        },
    )
    install_ws(engine, ws)
    verdict = await engine.dispatch(model_reply())
    assert verdict.decision is Decision.block
    assert verdict.reason == "Hook blocked execution: cat >/dev/null; exit 2"


async def test_exit_2_stops_the_chain(ws: Workspace, engine: HookEngine, tmp_path: Path) -> None:
    record = tmp_path / "later.jsonl"
    ws.hook(
        "a.yaml",
        {
            "name": "a",
            "events": ["before_tool_dispatch"],
            "handler": {"type": "command", "command": "exit 2"},
        },
    )
    ws.command_hook(
        "b.yaml",
        "b",
        ["before_tool_dispatch"],
        reply_script({}, record=True),
        environment={"RECORD_TO": str(record)},
    )
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="x"))
    assert verdict.decision is Decision.deny
    assert [s.name for s, _, _ in verdict.runs] == ["a"]
    assert read_records(record) == []


@pytest.mark.parametrize("code", [1, 3, 127])
async def test_other_exit_codes_fail_open(ws: Workspace, engine: HookEngine, code: int) -> None:
    body = (
        'import sys\nsys.stdin.read()\nprint(\'{"decision": "block"}\')\n'
        f"sys.stderr.write('boom')\nsys.exit({code})\n"
    )
    ws.command_hook("f.yaml", "f", ["before_tool_dispatch"], body)
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="x"))
    (result,) = verdict.results
    assert verdict.decision is None
    assert result.status is Status.error and result.exit_code == code
    assert result.error == f"Command hook exited with code {code}: boom"


async def test_timeout_fails_open_and_late_output_is_ignored(
    ws: Workspace, engine: HookEngine
) -> None:
    """Upstream test 2: a 1 s timeout on a script that sleeps 2 s."""
    body = (
        "import json, sys, time\nsys.stdin.read()\ntime.sleep(2)\n"
        "print(json.dumps({'decision': 'block', 'systemMessage': 'late'}))\n"
    )
    ws.command_hook("t.yaml", "slow", ["before_tool_dispatch"], body, timeout_seconds=1)
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="x"))
    (result,) = verdict.results
    assert result.status is Status.timeout
    assert verdict.decision is None and not verdict.system_messages
    assert verdict.effects.notices[0].detail["errorCode"] == "hook_execution_failed"
    assert "timed out after 1s" in (result.error or "")


async def test_a_command_that_cannot_start_fails_open(ws: Workspace, engine: HookEngine) -> None:
    ws.hook(
        "m.yaml",
        {
            "name": "m",
            "events": ["after_tool_dispatch"],
            "handler": {"type": "command", "command": "true", "cwd": "gone"},
        },
    )
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_result("x"))
    (result,) = verdict.results
    assert result.status is Status.error and "could not start" in (result.error or "")


async def test_engine_events_are_the_canonical_ones(ws: Workspace, engine: HookEngine) -> None:
    ws.command_hook("x.yaml", "x", ["after_tool_dispatch"], "import sys\nsys.stdin.read()\n")
    install_ws(engine, ws)
    assert [s.name for s in engine.hooks(Event.PostToolUse)] == ["x"]
    assert [s.name for s in engine.hooks("after_tool_dispatch")] == ["x"]
