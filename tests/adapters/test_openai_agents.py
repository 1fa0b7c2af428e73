"""openai-agents: the conformance scenario with the SDK's own `agents.testing.ScriptedModel`,
whose recorded calls are what the model saw (after the adapter's input filter)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from hookwright.host import EndTurn

from .native import MODEL_CALL_NOTE, native_project, options, runs
from .scenario import Call, ConformanceScenario, DeferredDriver, Reply, Tools


@pytest.fixture(scope="module")
def kit() -> ModuleType:
    """The OpenAI Agents side (openai_agents_kit), imported when a test runs, not collected."""
    pytest.importorskip("agents")
    from . import openai_agents_kit

    return openai_agents_kit


class TestOpenAIAgents(ConformanceScenario):
    driver = DeferredDriver(
        "openai-agents", False, "agents", ".openai_agents_kit", "OpenAIAgentsDriver"
    )


# Beyond the scenario --------------------------------------------------------------------------


async def test_a_hook_ending_the_turn_ends_the_run_without_stop(
    kit: ModuleType, tmp_path: Path
) -> None:
    root = native_project(tmp_path, {"PostToolUse": "stop('enough')", "Stop": "block('never')"})
    tools = Tools(root)
    call = Call("c1", "shell", {"cmd": "echo hi"})
    model = kit.ScriptedModel([kit.step(Reply("", (call,))), kit.step(Reply("not asked"))])
    async with await kit.OpenAIAgentsHooks.open(root, **options(tmp_path)) as hooks:
        outcome = await hooks.run(kit.scenario_agent(model, tools), "go", run_config=kit.QUIET)
    assert outcome.end == EndTurn("stopped", "enough")
    assert outcome.final_output == "enough"
    assert len(model.calls) == 1
    assert tools.executed == [("shell", {"cmd": "echo hi"})]
    assert runs(root) == [("PostToolUse", "c1")]


async def test_a_blocked_prompt_never_reaches_the_model(kit: ModuleType, tmp_path: Path) -> None:
    root = native_project(tmp_path, {"UserPromptSubmit": "block('not today')", "Stop": "None"})
    model = kit.ScriptedModel([])
    async with await kit.OpenAIAgentsHooks.open(root, **options(tmp_path)) as hooks:
        outcome = await hooks.run(
            kit.scenario_agent(model, Tools(root)), "go", run_config=kit.QUIET
        )
    assert outcome == kit.HookedRun(None, None, EndTurn("blocked", "not today"))
    assert model.calls == ()
    assert runs(root) == [("UserPromptSubmit", None)]


async def test_model_call_hooks_read_the_request_and_their_context_reaches_only_that_call(
    kit: ModuleType,
    tmp_path: Path,
) -> None:
    root = native_project(tmp_path, {"PreModelCall": MODEL_CALL_NOTE, "PostModelCall": "None"})
    tools = Tools(root)
    call = Call("c1", "shell", {"cmd": "echo hi"})
    model = kit.ScriptedModel([kit.step(Reply("", (call,))), kit.step(Reply("done"))])
    async with await kit.OpenAIAgentsHooks.open(root, **options(tmp_path)) as hooks:
        outcome = await hooks.run(kit.scenario_agent(model, tools), "go", run_config=kit.QUIET)
    assert outcome.final_output == "done"
    first, second = ([m.text for m in kit.seen(c.input, None)] for c in model.calls)
    assert first[-1] == "<system-reminder>\n1 messages, ScriptedModel\n</system-reminder>"
    assert second[-1] == "<system-reminder>\n3 messages, ScriptedModel\n</system-reminder>"
    assert not any("1 messages" in text for text in second)
    assert [event for event, _ in runs(root)] == ["PreModelCall", "PostModelCall"] * 2


async def test_a_model_call_hook_blocking_ends_the_turn(kit: ModuleType, tmp_path: Path) -> None:
    root = native_project(tmp_path, {"PreModelCall": "block('no model today')", "Stop": "None"})
    model = kit.ScriptedModel([])
    async with await kit.OpenAIAgentsHooks.open(root, **options(tmp_path)) as hooks:
        outcome = await hooks.run(
            kit.scenario_agent(model, Tools(root)), "go", run_config=kit.QUIET
        )
    assert outcome.final_output == "no model today" and outcome.result is None
    assert outcome.end is not None and outcome.end.status == "failed"
    assert model.calls == ()
    assert runs(root) == [("PreModelCall", None)]
