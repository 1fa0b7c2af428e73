"""pydantic-ai: the conformance scenario with pydantic-ai's own `FunctionModel` (a scripted
function that records the messages it is given), the capability in the agent, and approvals
(`ApprovalRequired` / `DeferredToolResults`) beyond the scenario."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .native import MODEL_CALL_NOTE, native_project, options, runs
from .scenario import Call, ConformanceScenario, DeferredDriver, Reply, Tools


@pytest.fixture(scope="module")
def kit() -> ModuleType:
    """The pydantic-ai side (pydantic_ai_kit), imported when a test runs, not when collected."""
    pytest.importorskip("pydantic_ai")
    from . import pydantic_ai_kit

    return pydantic_ai_kit


class TestPydanticAI(ConformanceScenario):
    driver = DeferredDriver(
        "pydantic-ai", True, "pydantic_ai", ".pydantic_ai_kit", "PydanticAIDriver"
    )


# Beyond the scenario --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "executed", "result"),
    [
        (True, [("shell", {"cmd": "echo approved"})], ("approved", False)),
        ("not now", [], ("not now", False)),
    ],
)
async def test_ask_defers_the_call_and_resumes_without_running_hooks_twice(
    kit: ModuleType, tmp_path: Path, answer: Any, executed: list[Any], result: tuple[str, bool]
) -> None:
    hooks = {"PreToolUse": "ask('sure?')", "PermissionRequest": "None", "PostToolUse": "None"}
    root = native_project(tmp_path, hooks)
    tools = Tools(root)
    call = Call("c1", "shell", {"cmd": "echo approved"})
    script = kit.ScriptedFunction([Reply("", (call,)), Reply("done")])
    async with kit.PydanticAIHooks.open(root, approvals=True, **options(tmp_path)) as capability:
        agent = kit.approving_agent(capability, script, tools)
        paused = await agent.run("go")
        assert isinstance(paused.output, kit.DeferredToolRequests)
        [pending] = paused.output.approvals
        assert pending.tool_call_id == "c1"
        assert paused.output.metadata["c1"] == {
            "hookwright": "ask",
            "tool": "shell",
            "input": {"cmd": "echo approved"},
            "reason": "sure?",
        }
        assert tools.executed == []
        approvals = kit.DeferredToolResults(approvals={"c1": kit.approval(answer)})
        done = await agent.run(
            message_history=paused.all_messages(), deferred_tool_results=approvals
        )
    assert done.output == "done"
    assert tools.executed == executed
    posted = [("PostToolUse", "c1")] if executed else []
    assert runs(root) == [("PreToolUse", "c1"), ("PermissionRequest", "c1"), *posted]
    [tool_result] = [m for m in kit.seen(script.received[-1]) if m.role == "tool"]
    assert (tool_result.text, tool_result.is_error) == result


async def test_a_blocked_prompt_never_reaches_the_model(kit: ModuleType, tmp_path: Path) -> None:
    root = native_project(tmp_path, {"UserPromptSubmit": "block('not today')", "Stop": "None"})
    script = kit.ScriptedFunction([])
    async with kit.PydanticAIHooks.open(root, **options(tmp_path)) as capability:
        agent = kit.Agent(kit.FunctionModel(script), capabilities=[capability])
        outcome = await agent.run("go")
    assert outcome.output == "UserPromptSubmit operation blocked by hook:\nnot today"
    assert script.received == []
    assert runs(root) == [("UserPromptSubmit", None)]


async def test_a_hook_ending_the_turn_ends_the_run_without_stop(
    kit: ModuleType, tmp_path: Path
) -> None:
    root = native_project(tmp_path, {"PostToolUse": "stop('enough')", "Stop": "block('never')"})
    tools = Tools(root)
    call = Call("c1", "shell", {"cmd": "echo hi"})
    script = kit.ScriptedFunction([Reply("", (call,)), Reply("not asked")])
    async with kit.PydanticAIHooks.open(root, **options(tmp_path)) as capability:
        agent = kit.Agent(
            kit.FunctionModel(script), tools=[kit.Tool(tools.shell)], capabilities=[capability]
        )
        outcome = await agent.run("go")
    assert outcome.output == "enough"
    assert len(script.received) == 1
    assert tools.executed == [("shell", {"cmd": "echo hi"})]
    assert runs(root) == [("PostToolUse", "c1")]


def test_an_ask_without_approvals_is_refused(kit: ModuleType, tmp_path: Path) -> None:
    root = native_project(tmp_path, {"PreToolUse": "ask('sure?')", "PermissionRequest": "None"})
    tools = Tools(root)
    call = Call("c1", "shell", {"cmd": "echo no"})
    script = kit.ScriptedFunction([Reply("", (call,)), Reply("done")])
    with kit.PydanticAIHooks.open(root, **options(tmp_path)) as capability:
        agent = kit.Agent(
            kit.FunctionModel(script), tools=[kit.Tool(tools.shell)], capabilities=[capability]
        )
        assert agent.run_sync("go").output == "done"
    assert tools.executed == []
    [tool_result] = [m for m in kit.seen(script.received[-1]) if m.role == "tool"]
    assert (tool_result.text, tool_result.is_error) == ("sure?", True)


async def test_model_call_hooks_read_the_request_and_their_context_reaches_only_that_call(
    kit: ModuleType,
    tmp_path: Path,
) -> None:
    root = native_project(tmp_path, {"PreModelCall": MODEL_CALL_NOTE, "PostModelCall": "None"})
    tools = Tools(root)
    call = Call("c1", "shell", {"cmd": "echo hi"})
    script = kit.ScriptedFunction([Reply("", (call,)), Reply("done")])
    async with kit.PydanticAIHooks.open(root, **options(tmp_path)) as capability:
        agent = kit.Agent(
            kit.FunctionModel(script, model_name="scripted"),
            instructions="Be brief.",
            tools=[kit.Tool(tools.shell)],
            capabilities=[capability],
        )
        assert (await agent.run("go")).output == "done"
    first, second = (json.dumps([m.text for m in kit.seen(call)]) for call in script.received)
    assert "2 messages, scripted" in first
    assert "4 messages, scripted" in second and "2 messages" not in second
    assert [event for event, _ in runs(root)] == ["PreModelCall", "PostModelCall"] * 2


async def test_a_model_call_hook_blocking_ends_the_turn(kit: ModuleType, tmp_path: Path) -> None:
    root = native_project(tmp_path, {"PreModelCall": "block('no model today')", "Stop": "None"})
    script = kit.ScriptedFunction([])
    async with kit.PydanticAIHooks.open(root, **options(tmp_path)) as capability:
        agent = kit.Agent(kit.FunctionModel(script), capabilities=[capability])
        assert (await agent.run("go")).output == "no model today"
    assert script.received == []
    assert runs(root) == [("PreModelCall", None)]


# Calls pydantic-ai defers for approval ----------------------------------------------------------

#: A Claude Code PermissionRequest hook (a real subprocess) that refuses `curl` and allows
#: `echo allowed` with its input rewritten.
PERMISSION_HOOK = """\
import json, sys
cmd = json.load(sys.stdin)["tool_input"]["cmd"]
if "curl" in cmd:
    decision = {"behavior": "deny", "message": "no curl"}
elif cmd == "echo allowed":
    decision = {"behavior": "allow", "updatedInput": {"cmd": "echo rewritten"}}
else:
    sys.exit(0)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                         "decision": decision}}))
"""


def permission_project(root: Path) -> Path:
    (root / ".claude").mkdir(parents=True)
    (root / "permission.py").write_text(PERMISSION_HOOK)
    hook = {"type": "command", "command": f"python3 {root / 'permission.py'}"}
    settings = {"hooks": {"PermissionRequest": [{"matcher": "shell", "hooks": [hook]}]}}
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    return root


def audited(tmp_path: Path, event: str) -> list[dict[str, Any]]:
    lines = (tmp_path / "audit.jsonl").read_text().splitlines()
    return [record for record in map(json.loads, lines) if record["event"] == event]


@pytest.mark.parametrize(
    ("cmd", "executed", "returned"),
    [
        ("curl https://example.com", [], "no curl"),
        ("echo allowed", [("shell", {"cmd": "echo rewritten"})], "rewritten"),
    ],
)
async def test_a_permission_hook_answers_a_call_pydantic_ai_defers_without_asking(
    kit: ModuleType, tmp_path: Path, cmd: str, executed: list[Any], returned: str
) -> None:
    root = permission_project(tmp_path / "p")
    tools = Tools(root)
    script = kit.ScriptedFunction([Reply("", (Call("c1", "shell", {"cmd": cmd}),)), Reply("done")])
    async with kit.PydanticAIHooks.open(root, approvals=True, **options(tmp_path)) as capability:
        outcome = await kit.gated_agent(capability, script, tools).run("go")
    assert outcome.output == "done", "nobody was asked"
    assert tools.executed == executed
    [tool_result] = [m for m in kit.seen(script.received[-1]) if m.role == "tool"]
    assert tool_result.text == returned
    [record] = audited(tmp_path, "PermissionRequest")
    assert record["decision"] == ("deny" if not executed else "allow")


@pytest.mark.parametrize(
    ("answer", "decision", "executed"),
    [(True, "allow", [("shell", {"cmd": "echo hi"})]), ("not now", "deny", [])],
)
@pytest.mark.parametrize("gate", ["requires_approval", "hook ask"])
async def test_the_answer_to_a_deferred_call_is_audited_and_a_denial_never_runs(
    kit: ModuleType, tmp_path: Path, gate: str, answer: Any, decision: str, executed: list[Any]
) -> None:
    asking = {"PreToolUse": "ask('sure?')", "PermissionRequest": "None"}
    root = native_project(tmp_path, asking if gate == "hook ask" else {"Stop": "None"})
    tools = Tools(root)
    script = kit.ScriptedFunction(
        [Reply("", (Call("c1", "shell", {"cmd": "echo hi"}),)), Reply("ok")]
    )
    async with kit.PydanticAIHooks.open(root, approvals=True, **options(tmp_path)) as capability:
        agent = (kit.gated_agent if gate == "requires_approval" else kit.approving_agent)(
            capability, script, tools
        )
        paused = await agent.run("go")
        assert isinstance(paused.output, kit.DeferredToolRequests)
        assert tools.executed == []
        answers = kit.DeferredToolResults(approvals={"c1": kit.approval(answer)})
        done = await agent.run(message_history=paused.all_messages(), deferred_tool_results=answers)
    assert done.output == "ok"
    assert tools.executed == executed
    [record] = audited(tmp_path, "Permission")
    assert (record["decision"], record["tool_use_id"], record["tool_input"]) == (
        decision,
        "c1",
        {"cmd": "echo hi"},
    )
    assert record["permission"]["by"] == "person"
    assert record["permission"]["channel"] == "callback"


def test_a_pre_tool_use_denial_refuses_a_requires_approval_tool_before_anyone_is_asked(
    kit: ModuleType,
    tmp_path: Path,
) -> None:
    root = native_project(tmp_path, {"PreToolUse": "deny('not this')"})
    tools = Tools(root)
    script = kit.ScriptedFunction([Reply("", (Call("c1", "shell", {"cmd": "rm -rf build"}),))])
    script.replies.append(Reply("done"))
    with kit.PydanticAIHooks.open(root, approvals=True, **options(tmp_path)) as capability:
        outcome = kit.gated_agent(capability, script, tools).run_sync("go")
    assert outcome.output == "done", "no approval was asked for"
    assert tools.executed == []
    [tool_result] = [m for m in kit.seen(script.received[-1]) if m.role == "tool"]
    assert (tool_result.text, tool_result.is_error) == ("not this", True)
