"""Spec §1.3/§7.4: prompt and agent hooks through the session's evaluator
(`engine.services.evaluator`)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from hookwright.engine.hook_requests import HookModelRequest

from .conftest import Harness, group
from .expect import TOOL, check


class Model:
    """Records what it was asked and answers a fixed reply."""

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.calls: list[HookModelRequest] = []

    async def __call__(self, request: HookModelRequest) -> str:
        self.calls.append(request)
        return self.reply


def prompt(text: str = "Is this safe? $ARGUMENTS", **fields: Any) -> dict[str, Any]:
    return {"type": "prompt", "prompt": text, **fields}


NO = json.dumps({"ok": False, "reason": "unsafe"})
#: A block reads as Claude Code words a prompt hook's: `[<prompt>]: <reason>`.
UNSAFE = "[Is this safe? $ARGUMENTS]: unsafe"
STOP: dict[str, Any] = {"stop_hook_active": False}

# (id, event, payload, reply, continueOnBlock, expected)
ROWS: list[tuple[str, str, dict[str, Any], str, bool, dict[str, Any]]] = [
    ("ok", "PreToolUse", TOOL, '{"ok": true}', False, {"decision": None, "abort": None}),
    (
        "PreToolUse-ends-turn",
        "PreToolUse",
        TOOL,
        NO,
        False,
        {"decision": "deny", "reason": UNSAFE, "abort": "turn"},
    ),
    (
        "PreToolUse-continueOnBlock",
        "PreToolUse",
        TOOL,
        NO,
        True,
        {"decision": "deny", "abort": None},
    ),
    (
        "PostToolUse-ends-turn",
        "PostToolUse",
        {**TOOL, "tool_response": {}},
        NO,
        False,
        {"decision": "block", "abort": "turn"},
    ),
    (
        "PostToolUse-continueOnBlock",
        "PostToolUse",
        {**TOOL, "tool_response": {}},
        NO,
        True,
        {"decision": "block", "reason": UNSAFE, "abort": None},
    ),
    (
        "PostToolBatch-ends-turn",
        "PostToolBatch",
        {"tool_calls": []},
        NO,
        True,
        {"decision": "block", "abort": "turn"},
    ),
    (
        "UserPromptSubmit-ends-turn",
        "UserPromptSubmit",
        {"prompt": "p"},
        NO,
        False,
        {"decision": "block", "abort": "turn"},
    ),
    (
        "PostToolUseFailure-tool-error",
        "PostToolUseFailure",
        {**TOOL, "error": "e"},
        NO,
        False,
        {"decision": "block", "abort": None},
    ),
    (
        "TaskCreated-tool-error",
        "TaskCreated",
        {"task_id": "1", "task_subject": "s"},
        NO,
        False,
        {"decision": "block", "abort": None},
    ),
    (
        "Stop-next-instruction",
        "Stop",
        STOP,
        NO,
        False,
        {"decision": "block", "reason": UNSAFE, "abort": None},
    ),
    (
        "Stop-impossible",
        "Stop",
        STOP,
        json.dumps({"ok": False, "reason": "cannot", "impossible": True}),
        False,
        {"decision": None},
    ),
    (
        "SubagentStop",
        "SubagentStop",
        {**STOP, "agent_type": "Explore"},
        NO,
        False,
        {"decision": "block"},
    ),
    (
        "PermissionRequest-no-effect",
        "PermissionRequest",
        {"tool_name": "Bash", "tool_input": {}},
        NO,
        False,
        {"decision": None},
    ),
    (
        "legacy-block",
        "Stop",
        STOP,
        json.dumps({"decision": "block", "reason": "old"}),
        False,
        {"decision": "block", "reason": "[Is this safe? $ARGUMENTS]: old"},
    ),
    (
        "legacy-approve",
        "Stop",
        STOP,
        json.dumps({"decision": "approve"}),
        False,
        {"decision": None},
    ),
    ("fenced-json", "Stop", STOP, "```json\n" + NO + "\n```", False, {"decision": "block"}),
    (
        "not-json",
        "Stop",
        STOP,
        "I think it is fine",
        False,
        {"decision": None, "status": "error", "error_has": "not JSON"},
    ),
    (
        "no-ok",
        "Stop",
        STOP,
        '{"reason": "x"}',
        False,
        {"decision": None, "status": "error", "error_has": "no boolean 'ok'"},
    ),
]


@pytest.mark.parametrize(
    ("event", "payload", "reply", "continue_on_block", "expected"),
    [r[1:] for r in ROWS],
    ids=[r[0] for r in ROWS],
)
async def test_reply(
    h: Harness,
    event: str,
    payload: dict[str, Any],
    reply: str,
    continue_on_block: bool,
    expected: dict[str, Any],
) -> None:
    h.use_model(Model(reply))
    h.hooks(group(event, prompt(continueOnBlock=continue_on_block)))
    check(await h.fire(event, **payload), expected)


async def test_no_model_is_a_non_blocking_error(h: Harness) -> None:
    h.hooks(group("Stop", prompt()))
    verdict = await h.fire("Stop", **STOP)
    check(
        verdict,
        {"decision": None, "status": "error", "error_has": "no model configured for prompt hooks"},
    )


async def test_arguments_model_and_timeout_reach_the_evaluator(h: Harness) -> None:
    model = Model('{"ok": true}')
    h.use_model(model)
    h.hooks(group("Stop", prompt("Check: $ARGUMENTS.", model="small"), prompt("Plain check")))
    await h.fire("Stop", **STOP, iteration=1)
    by_text = {r.prompt.split(":", 1)[0].split("\n", 1)[0]: r for r in model.calls}
    checked = by_text["Check"]
    sent = json.loads(checked.prompt[len("Check: ") : -1])
    assert sent["hook_event_name"] == "Stop" and "iteration" not in sent
    assert (checked.kind, checked.model, checked.agent, checked.timeout) == (
        "prompt",
        "small",
        None,
        30,
    )
    plain = by_text["Plain check"]
    assert plain.prompt.startswith("Plain check\n\n{") and plain.model is None


async def test_agent_hooks_ask_for_an_agent_and_continue_on_block(h: Harness) -> None:
    model = Model(NO)
    h.use_model(model)
    h.hooks(group("PreToolUse", {"type": "agent", "prompt": "verify $ARGUMENTS"}))
    check(await h.fire("PreToolUse", **TOOL), {"decision": "deny", "abort": None})
    [request] = model.calls
    assert request.kind == "agent" and request.prompt.startswith("verify {")
    assert request.agent is None and request.timeout == 60


async def test_agent_hook_without_model_is_a_non_blocking_error(h: Harness) -> None:
    h.hooks(group("Stop", {"type": "agent", "prompt": "verify"}))
    check(
        await h.fire("Stop", **STOP),
        {"decision": None, "status": "error", "error_has": "no model configured for agent hooks"},
    )


async def test_evaluator_failure_is_a_non_blocking_error(h: Harness) -> None:
    async def broken(request: HookModelRequest) -> str:
        raise ConnectionError("model unreachable")

    h.use_model(broken)
    h.hooks(group("Stop", prompt()))
    check(
        await h.fire("Stop", **STOP),
        {"decision": None, "status": "error", "error_has": "model unreachable"},
    )


async def test_slow_evaluator_times_out(h: Harness) -> None:
    async def slow(request: HookModelRequest) -> str:
        await asyncio.sleep(30)
        return '{"ok": false}'

    h.use_model(slow)
    h.hooks(group("Stop", prompt(timeout=0.2)))
    check(await h.fire("Stop", **STOP), {"decision": None, "status": "timeout"})
