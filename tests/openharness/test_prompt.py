"""Prompt and agent handlers through the session's evaluator (`engine.services.evaluator`; a
real in-process async callable standing in for the runtime's models)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from hookwright import Decision, Event, HookEngine, Status
from hookwright.dialects.openharness.prompt import INSTRUCTION
from hookwright.engine.hook_requests import HookModelRequest

from .helpers import Workspace, install_ws, model_call, model_reply, tool_call


@dataclass
class FakeModel:
    reply: str = "{}"
    delay: float = 0.0
    error: Exception | None = None
    calls: list[HookModelRequest] = field(default_factory=list)

    async def __call__(self, request: HookModelRequest) -> str:
        self.calls.append(request)
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.error is not None:
            raise self.error
        return self.reply


def use_model(engine: HookEngine, model: FakeModel) -> None:
    engine.services = replace(engine.services, evaluator=model)


def prompt_hook(ws: Workspace, events: list[str], prompt: dict[str, str], **extra: Any) -> None:
    handler: dict[str, Any] = {"type": "prompt", "prompt": prompt}
    handler.update({k: v for k, v in extra.items() if k in ("model_ref", "timeout_seconds")})
    doc: dict[str, Any] = {"name": "review", "events": events, "handler": handler}
    if "capabilities" in extra:
        doc["capabilities"] = extra["capabilities"]
    ws.hook("review.yaml", doc)


async def test_prompt_hook_sends_prompt_model_ref_and_envelope(
    ws: Workspace, engine: HookEngine
) -> None:
    model = FakeModel(reply='Sure.\n{"decision": "block", "reason": "looks risky"}')
    use_model(engine, model)
    prompt_hook(
        ws,
        ["before_tool_dispatch"],
        {"inline": "Review this call."},
        model_ref="platform/openai-default",
        timeout_seconds=20,
    )
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="rm -rf /"))
    assert (verdict.decision, verdict.reason) == (Decision.deny, "looks risky")
    (request,) = model.calls
    assert (request.kind, request.model, request.agent, request.timeout) == (
        "prompt",
        "platform/openai-default",
        None,
        20.0,
    )
    head, instruction, payload = request.prompt.split("\n\n")
    assert (head, instruction) == ("Review this call.", INSTRUCTION)
    sent = json.loads(payload)
    assert sent["hook"] == "review"
    assert sent["envelope"]["tool_input"] == {"command": "rm -rf /"}


async def test_prompt_file_is_read_inside_the_workspace(ws: Workspace, engine: HookEngine) -> None:
    prompts = ws.hooks / "prompts"
    prompts.mkdir()
    (prompts / "review.md").write_text("Check for secrets.")
    model = FakeModel(reply='{"systemMessage": "checked"}')
    use_model(engine, model)
    prompt_hook(ws, ["before_model_call"], {"file": "./.openharness/hooks/prompts/review.md"})
    install_ws(engine, ws)
    verdict = await engine.dispatch(model_call())
    assert verdict.additional_context == ["checked"]
    assert model.calls[0].prompt.startswith("Check for secrets.\n\n")
    assert model.calls[0].model is None, "no model_ref: the runtime's default model"


async def test_agent_hook_names_its_agent_and_task(ws: Workspace, engine: HookEngine) -> None:
    model = FakeModel(reply='{"continue": true}')
    ws.agent(
        "policy-reviewer",
        "---\nmodel:\n  model_ref: openai:gpt-4o-mini\n  temperature: 0.5\ntop_p: 0.9\n---\n"
        "You review tool calls.\n",
    )
    ws.hook("agent.yaml", agent_hook("policy-reviewer"))
    use_model(engine, model)
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="ls"))
    assert verdict.decision is None and verdict.results[0].status is Status.ok
    (request,) = model.calls
    assert (request.kind, request.model, request.agent) == (
        "agent",
        "openai:gpt-4o-mini",
        "policy-reviewer",
    )
    assert request.system == "You review tool calls."
    assert request.task == "Inspect the invocation and return a structured decision."
    assert request.options == {"temperature": 0.5, "top_p": 0.9}
    assert request.prompt.startswith(
        "Return only JSON matching the Open Agent Harness hook output protocol.\n\n"
    )
    assert json.loads(request.prompt.split("\n\n", 1)[1])["hook"] == "policy"


def agent_hook(agent: str) -> dict[str, Any]:
    return {
        "name": "policy",
        "events": ["before_tool_dispatch"],
        "handler": {
            "type": "agent",
            "agent": agent,
            "task": {"inline": "Inspect the invocation and return a structured decision."},
            "timeout_seconds": 30,
        },
    }


@pytest.mark.parametrize(
    ("agent", "text", "code", "message"),
    [
        ("ghost", None, "agent_not_found", "Agent ghost was not found in workspace"),
        ("empty", "---\nmodel: x\n---\n\n", "hook_execution_failed", "missing markdown prompt"),
        ("broken", "---\nmodel: [x\n---\nPrompt.", "hook_execution_failed", "Agent definition"),
    ],
)
async def test_an_unusable_agent_fails_open_with_its_code(
    ws: Workspace, engine: HookEngine, agent: str, text: str | None, code: str, message: str
) -> None:
    model = FakeModel(reply='{"decision": "block"}')
    if text is not None:
        ws.agent(agent, text)
    ws.hook("agent.yaml", agent_hook(agent))
    use_model(engine, model)
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="ls"))
    assert verdict.decision is None and model.calls == []
    (result,) = verdict.results
    assert result.status is Status.error and message in (result.error or "")
    assert verdict.effects.notices[0].detail["errorCode"] == code


async def test_without_a_model_the_hook_fails_open(ws: Workspace, engine: HookEngine) -> None:
    prompt_hook(ws, ["before_tool_dispatch"], {"inline": "x"})
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="ls"))
    (result,) = verdict.results
    assert result.status is Status.error and "no model configured" in (result.error or "")
    assert verdict.effects.notices[0].detail["handlerType"] == "prompt"


async def test_evaluator_errors_fail_open(ws: Workspace, engine: HookEngine) -> None:
    use_model(engine, FakeModel(error=LookupError("agent_not_found: policy-reviewer")))
    prompt_hook(ws, ["before_tool_dispatch"], {"inline": "x"})
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="ls"))
    assert "agent_not_found" in (verdict.results[0].error or "")


async def test_prompt_timeout_is_non_blocking(ws: Workspace, engine: HookEngine) -> None:
    """Upstream test 3: a model delayed by 2 s against a 1 s timeout."""
    model = FakeModel(reply='{"decision": "block", "systemMessage": "late"}', delay=2.0)
    use_model(engine, model)
    prompt_hook(ws, ["before_tool_dispatch"], {"inline": "x"}, timeout_seconds=1)
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="ls"))
    (result,) = verdict.results
    assert result.status is Status.timeout
    assert verdict.decision is None and not verdict.system_messages


async def test_blank_or_invalid_replies_fail(ws: Workspace, engine: HookEngine) -> None:
    prompt_hook(ws, ["before_tool_dispatch"], {"inline": "x"})
    install_ws(engine, ws)
    for reply in ("", "no json, sorry"):
        use_model(engine, FakeModel(reply=reply))
        verdict = await engine.dispatch(tool_call(command="ls"))
        assert verdict.results[0].status is Status.error


async def test_missing_prompt_file_fails_at_run_time(ws: Workspace, engine: HookEngine) -> None:
    use_model(engine, FakeModel())
    prompt_hook(ws, ["before_tool_dispatch"], {"file": ".openharness/hooks/prompts/gone.md"})
    install_ws(engine, ws)
    verdict = await engine.dispatch(tool_call(command="ls"))
    assert "cannot read prompt file" in (verdict.results[0].error or "")


async def test_after_model_call_prompt_hook_rewrites_the_reply(
    ws: Workspace, engine: HookEngine
) -> None:
    """Upstream test 6."""
    out = {"hookSpecificOutput": {"patch": {"model_response": {"text": "hooked reply"}}}}
    use_model(engine, FakeModel(reply=json.dumps(out)))
    prompt_hook(ws, ["after_model_call"], {"inline": "x"}, capabilities=["rewrite_model_response"])
    install_ws(engine, ws)
    verdict = await engine.dispatch(model_reply("original"))
    assert verdict.event is Event.PostModelCall
    assert verdict.updated_output["content"] == "hooked reply"
