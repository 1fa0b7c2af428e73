"""Google ADK's side of its adapter tests (imported only when they run): an `InMemoryRunner`
with the plugin, the model a scripted `BaseLlm` recording every request, with ADK's own argument
validation on (its FUNCTION_TOOL_ARG_VALIDATION feature)."""

from __future__ import annotations

import asyncio
import copy
import json
import os
from collections.abc import AsyncGenerator, Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

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

from .native import options
from .scenario import EXHAUSTED, Reply, Seen, Tools

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
