"""Google ADK: the conformance scenario through an `InMemoryRunner` with the plugin, the model a
scripted `BaseLlm` recording every request, with ADK's own argument validation on (its
FUNCTION_TOOL_ARG_VALIDATION feature), so a rewrite the tool's types reject never runs."""

from __future__ import annotations

import asyncio
import copy
import json
import os
from collections.abc import AsyncGenerator, Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest

pytest.importorskip("google.adk")

from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types
from pydantic import Field

from hookwright.adapters.google_adk import HookwrightPlugin
from hookwright.host import FrameworkSession

from .native import MODEL_CALL_NOTE, native_project, options, runs
from .scenario import EXHAUSTED, Call, ConformanceScenario, Reply, Seen, Tools

T = TypeVar("T")
VALIDATION = "ADK_ENABLE_FUNCTION_TOOL_ARG_VALIDATION"
APP, USER = "scenario", "user"


class ScriptedLlm(BaseLlm):
    """Answers with the replies in order (then EXHAUSTED); records every request's contents."""

    model: str = "scripted"
    replies: list[Reply] = Field(default_factory=list)
    received: list[list[types.Content]] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.received.append(copy.deepcopy(llm_request.contents))
        reply = self.replies.pop(0) if self.replies else Reply(EXHAUSTED)
        parts = [types.Part.from_text(text=reply.text)] if reply.text else []
        for call in reply.calls:
            parts.append(
                types.Part(
                    function_call=types.FunctionCall(id=call.id, name=call.name, args=call.args)
                )
            )
        yield LlmResponse(content=types.Content(role="model", parts=parts))


def seen(contents: list[types.Content]) -> list[Seen]:
    out = [Seen("system", "Test hooks.")]
    for content in contents:
        role = "assistant" if content.role == "model" else "user"
        for part in content.parts or ():
            if part.text:
                out.append(Seen(role, part.text))
            elif part.function_response is not None:
                out.append(_tool_seen(part.function_response))
    return out


def _tool_seen(answer: types.FunctionResponse) -> Seen:
    response = answer.response or {}
    if set(response) in ({"result"}, {"error"}):
        value = response.get("result", response.get("error"))
        text = value if isinstance(value, str) else json.dumps(value)
    else:
        text = json.dumps(response)
    return Seen("tool", text, answer.id, "error" in response)


def runner_of(model: ScriptedLlm, tools: Tools, plugin: HookwrightPlugin) -> InMemoryRunner:
    app = App(name=APP, root_agent=agent_of(model, tools), plugins=[plugin])
    return InMemoryRunner(app=app)


def agent_of(model: ScriptedLlm, tools: Tools) -> LlmAgent:
    return LlmAgent(
        name="scenario", model=model, instruction="Test hooks.", tools=[tools.shell, tools.lookup]
    )


class ADKSession:
    def __init__(self, project: Path, tools: Tools, hook_options: dict[str, Any]) -> None:
        self.validation = os.environ.get(VALIDATION)
        os.environ[VALIDATION] = "1"
        self.loop = asyncio.new_event_loop()
        self.plugin = HookwrightPlugin(project, **hook_options)
        self.model = ScriptedLlm()
        self.runner = runner_of(self.model, tools, self.plugin)
        self.session_id = self.run(
            self.runner.session_service.create_session(app_name=APP, user_id=USER)
        ).id
        self.hooks: FrameworkSession = self.plugin.conversation(self.session_id).session

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(work)

    def turn(self, prompt: str, replies: Sequence[Reply]) -> list[list[Seen]]:
        self.model.replies = list(replies)
        start = len(self.model.received)
        self.run(
            self.plugin.run(self.runner, user_id=USER, session_id=self.session_id, prompt=prompt)
        )
        return [seen(call) for call in self.model.received[start:]]

    def close(self) -> None:
        try:
            self.run(self.runner.close())
        finally:
            self.loop.close()
            if self.validation is None:
                del os.environ[VALIDATION]
            else:
                os.environ[VALIDATION] = self.validation


class ADKDriver:
    framework = "google-adk"
    flags_errors = True

    def open(self, project: Path, tools: Tools, options: dict[str, Any]) -> ADKSession:
        return ADKSession(project, tools, options)


class TestGoogleADK(ConformanceScenario):
    driver = ADKDriver()


# Beyond the scenario --------------------------------------------------------------------------


async def one_turn(
    root: Path, tmp_path: Path, replies: Sequence[Reply], *, driven: bool = True
) -> ScriptedLlm:
    model = ScriptedLlm(replies=list(replies))
    plugin = HookwrightPlugin(root, **options(tmp_path))
    runner = runner_of(model, Tools(root), plugin)
    session = await runner.session_service.create_session(app_name=APP, user_id=USER)
    try:
        if driven:
            await plugin.run(runner, user_id=USER, session_id=session.id, prompt="go")
        else:
            message = types.Content(role="user", parts=[types.Part.from_text(text="go")])
            async for _ in runner.run_async(
                user_id=USER, session_id=session.id, new_message=message
            ):
                pass
    finally:
        await runner.close()
    return model


async def test_a_blocked_prompt_never_reaches_the_model(tmp_path: Path) -> None:
    root = native_project(tmp_path, {"UserPromptSubmit": "block('not today')", "Stop": "None"})
    model = await one_turn(root, tmp_path, [])
    assert model.received == []
    assert runs(root) == [("UserPromptSubmit", None)]


async def test_a_hook_ending_the_turn_ends_it_without_stop(tmp_path: Path) -> None:
    root = native_project(tmp_path, {"PostToolUse": "stop('enough')", "Stop": "block('never')"})
    model = await one_turn(root, tmp_path, [Reply("", (Call("c1", "shell", {"cmd": "echo hi"}),))])
    assert len(model.received) == 1
    assert runs(root) == [("PostToolUse", "c1")]


async def test_a_stop_block_without_run_is_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = native_project(tmp_path, {"Stop": "block('more')"})
    model = await one_turn(root, tmp_path, [Reply("done")], driven=False)
    assert len(model.received) == 1
    assert runs(root) == [("Stop", None)]
    assert any("continuing after a Stop block" in r.getMessage() for r in caplog.records)


async def test_model_call_hooks_read_the_request_and_their_context_reaches_only_that_call(
    tmp_path: Path,
) -> None:
    root = native_project(tmp_path, {"PreModelCall": MODEL_CALL_NOTE, "PostModelCall": "None"})
    replies = [Reply("", (Call("c1", "shell", {"cmd": "echo hi"}),)), Reply("done")]
    model = await one_turn(root, tmp_path, replies)
    first, second = ([m.text for m in seen(call)] for call in model.received)
    assert first[-1] == "<system-reminder>\n2 messages, scripted\n</system-reminder>"
    assert second[-1] == "<system-reminder>\n4 messages, scripted\n</system-reminder>"
    assert not any("2 messages" in text for text in second)
    assert [event for event, _ in runs(root)] == ["PreModelCall", "PostModelCall"] * 2


async def test_a_model_call_hook_blocking_ends_the_turn(tmp_path: Path) -> None:
    root = native_project(tmp_path, {"PreModelCall": "block('no model today')", "Stop": "None"})
    model = await one_turn(root, tmp_path, [Reply("not asked")])
    assert model.received == []
    assert runs(root) == [("PreModelCall", None)]
