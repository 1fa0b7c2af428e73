"""Google ADK: the conformance scenario through an `InMemoryRunner` with the plugin, the model a
scripted `BaseLlm` recording every request, with ADK's own argument validation on (its
FUNCTION_TOOL_ARG_VALIDATION feature), so a rewrite the tool's types reject never runs."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from .native import MODEL_CALL_NOTE, native_project, runs
from .scenario import Call, ConformanceScenario, DeferredDriver, Reply


@pytest.fixture(scope="module")
def kit() -> ModuleType:
    """The ADK side (google_adk_kit), imported when a test runs, not when it is collected."""
    pytest.importorskip("google.adk")
    from . import google_adk_kit

    return google_adk_kit


class TestGoogleADK(ConformanceScenario):
    driver = DeferredDriver("google-adk", True, "google.adk", ".google_adk_kit", "ADKDriver")


# Beyond the scenario --------------------------------------------------------------------------


async def test_a_blocked_prompt_never_reaches_the_model(kit: ModuleType, tmp_path: Path) -> None:
    root = native_project(tmp_path, {"UserPromptSubmit": "block('not today')", "Stop": "None"})
    model = await kit.one_turn(root, tmp_path, [])
    assert model.received == []
    assert runs(root) == [("UserPromptSubmit", None)]


async def test_a_hook_ending_the_turn_ends_it_without_stop(kit: ModuleType, tmp_path: Path) -> None:
    root = native_project(tmp_path, {"PostToolUse": "stop('enough')", "Stop": "block('never')"})
    model = await kit.one_turn(
        root, tmp_path, [Reply("", (Call("c1", "shell", {"cmd": "echo hi"}),))]
    )
    assert len(model.received) == 1
    assert runs(root) == [("PostToolUse", "c1")]


async def test_a_stop_block_without_run_is_reported(
    kit: ModuleType, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = native_project(tmp_path, {"Stop": "block('more')"})
    model = await kit.one_turn(root, tmp_path, [Reply("done")], driven=False)
    assert len(model.received) == 1
    assert runs(root) == [("Stop", None)]
    assert any("continuing after a Stop block" in r.getMessage() for r in caplog.records)


async def test_model_call_hooks_read_the_request_and_their_context_reaches_only_that_call(
    kit: ModuleType,
    tmp_path: Path,
) -> None:
    root = native_project(tmp_path, {"PreModelCall": MODEL_CALL_NOTE, "PostModelCall": "None"})
    replies = [Reply("", (Call("c1", "shell", {"cmd": "echo hi"}),)), Reply("done")]
    model = await kit.one_turn(root, tmp_path, replies)
    first, second = ([m.text for m in kit.seen(call)] for call in model.received)
    assert first[-1] == "<system-reminder>\n2 messages, scripted\n</system-reminder>"
    assert second[-1] == "<system-reminder>\n4 messages, scripted\n</system-reminder>"
    assert not any("2 messages" in text for text in second)
    assert [event for event, _ in runs(root)] == ["PreModelCall", "PostModelCall"] * 2


async def test_a_model_call_hook_blocking_ends_the_turn(kit: ModuleType, tmp_path: Path) -> None:
    root = native_project(tmp_path, {"PreModelCall": "block('no model today')", "Stop": "None"})
    model = await kit.one_turn(root, tmp_path, [Reply("not asked")])
    assert model.received == []
    assert runs(root) == [("PreModelCall", None)]
