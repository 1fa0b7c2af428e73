"""`hookwright run --model openai-responses:NAME` against a Responses API server on 127.0.0.1:
what the model receives, as Codex sends it. A Codex tool hook's context is a developer message
between the call and its output, several hooks' context in their configured order whatever
order they finish in; a Claude Code hook's context stays after the tool results."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conformance.fake_responses import FakeOpenAI, Reply, Shell
from conformance.loopback import LoopbackHandler, LoopbackServer
from tests.cli_runner import run_hookwright
from tests.codex.project import command, write_project

from hookwright.dialects.codex.layers import MANAGED_DIR_ENV
from hookwright.runtime.agent import DEFAULT_SYSTEM_PROMPT
from hookwright.runtime.models.base import BESIDE_CALL, ModelError, ModelResponse, Usage
from hookwright.runtime.models.responses_model import OpenAIResponsesModel
from hookwright.runtime.models.responses_wire import input_items


@pytest.fixture
def api() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as running:
        yield running


def context_hook(event: str, text: str, *, sleep: float = 0) -> list[dict[str, Any]]:
    answer = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    return command(f"sleep {sleep}; echo '{json.dumps(answer)}'", "Bash")


def run(home: Path, project: Path, api: FakeOpenAI) -> list[dict[str, Any]]:
    script = api.load([Reply(calls=[Shell("call_1", "printf hi")]), Reply("done")])
    done = run_hookwright(
        "run",
        "go",
        "--project",
        str(project),
        "--trust",
        "--model",
        "openai-responses:gpt-5",
        "--permission-mode",
        "bypassPermissions",
        home=home,
        env={
            "CODEX_HOME": str(home / ".codex"),
            MANAGED_DIR_ENV: os.environ[MANAGED_DIR_ENV],
            "OPENAI_BASE_URL": api.base_url,
            "OPENAI_API_KEY": "test-key",
        },
    )
    assert done.returncode == 0, done.stderr
    assert [request.api for request in script.requests] == ["responses", "responses"]
    return [request.body for request in script.requests]


def developer(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "role": "developer",
        "content": [{"type": "input_text", "text": text}],
    }


def test_tool_hook_context_sits_between_the_call_and_its_output_in_configured_order(
    api: FakeOpenAI, tmp_path: Path
) -> None:
    hooks = {
        "PreToolUse": context_hook("PreToolUse", "pre context"),
        "PostToolUse": [
            *context_hook("PostToolUse", "post first", sleep=1),
            *context_hook("PostToolUse", "post second"),
        ],
    }
    home, project = write_project(tmp_path, hooks)
    first, second = run(home, project, api)
    assert first["instructions"] == DEFAULT_SYSTEM_PROMPT
    assert [tool["name"] for tool in first["tools"]].count("Bash") == 1
    assert second["input"][1:] == [
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "Bash",
            "arguments": json.dumps({"command": "printf hi"}),
        },
        developer("pre context"),
        developer("post first"),
        developer("post second"),
        {"type": "function_call_output", "call_id": "call_1", "output": "hi"},
    ]


def test_claude_code_tool_context_stays_after_the_tool_results(
    api: FakeOpenAI, tmp_path: Path
) -> None:
    home, project = write_project(tmp_path, {"PreToolUse": context_hook("PreToolUse", "codex")})
    answer = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "claude"}}
    group = {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": f"echo '{json.dumps(answer)}'"}],
    }
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [group]}})
    )
    _, second = run(home, project, api)
    kinds = [(item["type"], item.get("role")) for item in second["input"][1:]]
    assert kinds == [
        ("function_call", None),
        ("message", "developer"),
        ("function_call_output", None),
        ("message", "developer"),
    ]
    assert second["input"][2] == developer("codex")
    assert "claude" in second["input"][-1]["content"][0]["text"]


def test_context_whose_call_left_the_history_stays_where_it_is() -> None:
    """After a compaction drops the call, its context is a developer message in place."""
    history = [
        {"role": "system", "content": "prompt"},
        {"role": "user", "content": "go"},
        {"role": "system", "content": "gone\n\nother", BESIDE_CALL: [["call_9", "gone"]]},
    ]
    instructions, items = input_items(history)
    assert instructions == "prompt"
    assert items[1:] == [developer("gone\n\nother")]


class _Ending(LoopbackServer):
    """A Responses API stream that ends with `event` (and its `response` fields)."""

    def __init__(self, event: str, response: dict[str, Any]) -> None:
        self.event, self.response = event, response
        super().__init__(_EndingHandler)


class _EndingHandler(LoopbackHandler[_Ending]):
    def do_POST(self) -> None:
        self.read_json_object()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        events = [
            {"type": "response.output_text.delta", "delta": "partial", "item_id": "m"},
            {
                "type": self.owner.event,
                "response": {"id": "r", "model": "gpt-5", **self.owner.response},
            },
        ]
        for number, event in enumerate(events):
            data = json.dumps({**event, "sequence_number": number})
            self.wfile.write(f"event: {event['type']}\ndata: {data}\n\n".encode())
        self.wfile.flush()


def _complete(server: _Ending) -> ModelResponse:
    model = OpenAIResponsesModel("gpt-5", api_key="test-key", base_url=f"{server.origin}/v1")
    return asyncio.run(model.complete([{"role": "user", "content": "go"}]))


def test_a_failed_response_is_a_model_error_of_its_kind() -> None:
    error = {"code": "rate_limit_exceeded", "message": "slow down"}
    server = _Ending("response.failed", {"status": "failed", "error": error})
    with server, pytest.raises(ModelError) as raised:
        _complete(server)
    assert raised.value.kind == "rate_limit"
    assert raised.value.message == "openai-responses:gpt-5: slow down"


def test_an_incomplete_response_cut_at_max_output_tokens_finishes_by_length() -> None:
    ending = {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}
    ending["usage"] = {"input_tokens": 7, "output_tokens": 3, "total_tokens": 10}
    with _Ending("response.incomplete", ending) as server:
        response = _complete(server)
    assert (response.content, response.finish_reason) == ("partial", "length")
    assert response.usage == Usage(prompt_tokens=7, completion_tokens=3, total_tokens=10)
