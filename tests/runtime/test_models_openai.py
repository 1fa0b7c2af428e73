"""The OpenAI-compatible model against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from hookwright.runtime.models import (
    ModelConfigError,
    ModelError,
    RetryingModel,
    ToolCall,
    make_model,
)
from hookwright.runtime.models.openai_model import PLACEHOLDER_API_KEY, OpenAIModel

from .fake_llm_server import FakeError, FakeLLMServer, FakeReply, FakeToolCall, split

USER = [{"role": "user", "content": "hello"}]
READ_TOOL = {
    "type": "function",
    "function": {
        "name": "Read",
        "description": "Read a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
}


@pytest.fixture
def model(server: FakeLLMServer) -> OpenAIModel:
    return OpenAIModel("gpt-test", api_key="sk-test", base_url=server.openai_base_url)


class Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


def test_fake_server_splits_into_the_requested_pieces() -> None:
    assert split('{"path": "a.txt"}', 4) == ['{"pat', 'h": ', '"a.t', 'xt"}']
    assert split("ab", 5) == ["a", "b"]


async def test_streams_text(server: FakeLLMServer, model: OpenAIModel) -> None:
    server.queue_openai(FakeReply("The quick brown fox", text_chunks=4))
    chunks: list[str] = []
    reply = await model.complete(USER, on_text=chunks.append)
    assert chunks == split("The quick brown fox", 4)
    assert reply.content == "The quick brown fox"
    assert (reply.tool_calls, reply.finish_reason, reply.model) == ([], "stop", "gpt-test")


async def test_tool_call_arguments_over_several_chunks(
    server: FakeLLMServer, model: OpenAIModel
) -> None:
    arguments = '{"path": "src/hookwright/engine.py", "limit": 40}'
    server.queue_openai(
        FakeReply("Reading.", tool_calls=[FakeToolCall("Read", arguments, id="call_a", chunks=5)])
    )
    chunks: list[str] = []
    reply = await model.complete(USER, [READ_TOOL], on_text=chunks.append)
    assert reply.finish_reason == "tool_calls"
    assert reply.tool_calls == [
        ToolCall(
            id="call_a",
            name="Read",
            arguments={"path": "src/hookwright/engine.py", "limit": 40},
            raw_arguments=arguments,
        )
    ]
    assert "".join(chunks) == "Reading."


@pytest.mark.parametrize("interleave", [False, True])
async def test_parallel_tool_calls(
    server: FakeLLMServer, model: OpenAIModel, interleave: bool
) -> None:
    server.queue_openai(
        FakeReply(
            tool_calls=[
                FakeToolCall("Read", '{"path": "a.txt"}', id="call_1"),
                FakeToolCall("Grep", '{"pattern": "def .*"}', id="call_2", chunks=4),
            ],
            interleave_tool_calls=interleave,
        )
    )
    reply = await model.complete(USER, [READ_TOOL])
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("call_1", "Read", {"path": "a.txt"}),
        ("call_2", "Grep", {"pattern": "def .*"}),
    ]
    assert reply.content == ""
    assert reply.to_message()["content"] is None


async def test_invalid_json_arguments_are_kept_raw(
    server: FakeLLMServer, model: OpenAIModel
) -> None:
    server.queue_openai(FakeReply(tool_calls=[FakeToolCall("Read", '{"path": "a.txt"')]))
    (call,) = (await model.complete(USER, [READ_TOOL])).tool_calls
    assert (call.arguments, call.raw_arguments) == (None, '{"path": "a.txt"')
    assert call.id.startswith("call_")


async def test_missing_tool_call_id_gets_a_unique_one(
    server: FakeLLMServer, model: OpenAIModel
) -> None:
    server.queue_openai(FakeReply(tool_calls=[FakeToolCall("A", id=""), FakeToolCall("B", id="")]))
    first, second = (await model.complete(USER)).tool_calls
    assert first.id.startswith("call_") and second.id.startswith("call_")
    assert first.id != second.id


async def test_usage_and_reported_model(server: FakeLLMServer, model: OpenAIModel) -> None:
    server.queue_openai(
        FakeReply("hi", prompt_tokens=120, completion_tokens=30, model="gpt-test-2025")
    )
    reply = await model.complete(USER)
    assert reply.usage is not None
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (120, 30)
    assert reply.usage.total_tokens == 150
    assert reply.model == "gpt-test-2025"


async def test_stream_usage_can_be_left_out(server: FakeLLMServer) -> None:
    model = OpenAIModel("m", api_key="k", base_url=server.openai_base_url, stream_usage=False)
    server.queue_openai("hi")
    reply = await model.complete(USER)
    assert reply.usage is None
    assert "stream_options" not in server.requests[0].body


async def test_request_body(server: FakeLLMServer, model: OpenAIModel) -> None:
    history: list[dict[str, Any]] = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Read a.txt"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "Read", "arguments": '{"path": "a.txt"'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "invalid arguments"},
    ]
    server.queue_openai("ok")
    await model.complete(history, [READ_TOOL], options={"temperature": 0.2, "max_tokens": 50})
    (request,) = server.requests
    assert request.api == "openai"
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.body == {
        "model": "gpt-test",
        "messages": history,
        "tools": [READ_TOOL],
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": 0.2,
        "max_tokens": 50,
    }


async def test_without_tools_the_field_is_absent(server: FakeLLMServer, model: OpenAIModel) -> None:
    server.queue_openai("ok")
    await model.complete(USER, [])
    assert "tools" not in server.requests[0].body


async def test_reply_round_trips_into_the_next_request(
    server: FakeLLMServer, model: OpenAIModel
) -> None:
    server.queue_openai(FakeReply(tool_calls=[FakeToolCall("Read", '{"path":"a"}', id="c9")]), "ok")
    reply = await model.complete(USER, [READ_TOOL])
    history = [*USER, reply.to_message(), {"role": "tool", "tool_call_id": "c9", "content": "x"}]
    await model.complete(history, [READ_TOOL])
    sent = server.requests[1].body["messages"][1]
    assert sent == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c9",
                "type": "function",
                "function": {"name": "Read", "arguments": '{"path":"a"}'},
            }
        ],
    }


@pytest.mark.parametrize(
    ("finish_sent", "tool_calls", "finish"),
    [("stop", [FakeToolCall("A")], "tool_calls"), ("length", [], "length")],
)
async def test_finish_reason(
    server: FakeLLMServer,
    model: OpenAIModel,
    finish_sent: str,
    tool_calls: list[FakeToolCall],
    finish: str,
) -> None:
    server.queue_openai(FakeReply("x", tool_calls=tool_calls, finish_reason=finish_sent))
    assert (await model.complete(USER)).finish_reason == finish


async def test_reserved_options_are_rejected(server: FakeLLMServer, model: OpenAIModel) -> None:
    with pytest.raises(ModelConfigError, match="options: messages, stream cannot be overridden"):
        await model.complete(USER, options={"stream": False, "messages": []})
    assert server.requests == []


# -- errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "kind", "transient"),
    [
        (FakeError(429), "rate_limit", True),
        (
            FakeError(429, type="insufficient_quota", code="insufficient_quota"),
            "billing_error",
            False,
        ),
        (FakeError(500), "server_error", True),
        (FakeError(503), "server_error", True),
        (FakeError(529), "overloaded", True),
        (FakeError(401), "authentication_failed", False),
        (FakeError(403), "authentication_failed", False),
        (FakeError(404), "model_not_found", False),
        (FakeError(400, "context too long"), "invalid_request", False),
    ],
)
async def test_status_errors_map_to_kinds(
    server: FakeLLMServer, model: OpenAIModel, error: FakeError, kind: str, transient: bool
) -> None:
    server.queue_openai(error)
    with pytest.raises(ModelError) as info:
        await model.complete(USER)
    assert (info.value.kind, info.value.transient, info.value.status) == (
        kind,
        transient,
        error.status,
    )
    assert error.message in str(info.value)


async def test_model_not_found_points_at_the_base_url(
    server: FakeLLMServer, model: OpenAIModel
) -> None:
    server.queue_openai(FakeError(404, "The model `gpt-test` does not exist"))
    with pytest.raises(
        ModelError, match=f"check the model name and the base URL {server.base_url}"
    ):
        await model.complete(USER)


async def test_error_event_inside_the_stream(server: FakeLLMServer, model: OpenAIModel) -> None:
    server.queue_openai(FakeError(500, "backend crashed", type="server_error", mid_stream=True))
    with pytest.raises(ModelError) as info:
        await model.complete(USER)
    assert (info.value.kind, info.value.transient, info.value.status) == (
        "server_error",
        True,
        None,
    )


async def test_retry_after_header_is_read(server: FakeLLMServer, model: OpenAIModel) -> None:
    server.queue_openai(FakeError(429, headers={"Retry-After": "7"}))
    with pytest.raises(ModelError) as info:
        await model.complete(USER)
    assert info.value.retry_after == 7.0


async def test_unreachable_server_is_a_transient_server_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = OpenAIModel("m", api_key="k", base_url=f"http://127.0.0.1:{port}/v1", timeout=5)
    with pytest.raises(ModelError) as info:
        await model.complete(USER)
    assert (info.value.kind, info.value.transient) == ("server_error", True)
    assert f"127.0.0.1:{port}" in str(info.value)


async def test_429_then_success_through_retrying_model(server: FakeLLMServer) -> None:
    server.queue_openai(FakeError(429, "slow down"), "recovered")
    sleeps = Sleeps()
    retries: list[tuple[int, str]] = []
    model = RetryingModel(
        OpenAIModel("gpt-test", api_key="k", base_url=server.openai_base_url),
        sleep=sleeps,
        rng=lambda: 0.0,
        on_retry=lambda attempt, error, delay: retries.append((attempt, error.kind)),
    )
    reply = await model.complete(USER)
    assert reply.content == "recovered"
    assert retries == [(1, "rate_limit")]
    assert sleeps.delays == [0.5]
    assert len(server.requests) == 2
    assert server.requests[0].body == server.requests[1].body


async def test_401_is_not_retried(server: FakeLLMServer) -> None:
    server.queue_openai(FakeError(401, "Incorrect API key provided"), "never sent")
    sleeps = Sleeps()
    model = RetryingModel(
        OpenAIModel("gpt-test", api_key="bad", base_url=server.openai_base_url), sleep=sleeps
    )
    with pytest.raises(ModelError) as info:
        await model.complete(USER)
    assert (info.value.kind, info.value.status) == ("authentication_failed", 401)
    assert sleeps.delays == []
    assert len(server.requests) == 1
    assert server.pending("openai") == 1


# -- configuration ------------------------------------------------------------------------------


def test_missing_env_names_both_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ModelConfigError) as info:
        make_model("openai:gpt-4o-mini")
    assert "openai:gpt-4o-mini" in str(info.value)
    assert "OPENAI_API_KEY" in str(info.value) and "OPENAI_BASE_URL" in str(info.value)


async def test_base_url_without_key_uses_a_placeholder(
    server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    model = make_model("openai:llama3")
    assert isinstance(model, RetryingModel)
    assert model.name == "llama3"
    server.queue_openai("local")
    assert (await model.complete(USER)).content == "local"
    assert server.requests[0].headers["authorization"] == f"Bearer {PLACEHOLDER_API_KEY}"


async def test_env_key_is_sent(server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    server.queue_openai("ok")
    await make_model("openai:gpt-test").complete(USER)
    assert server.requests[0].headers["authorization"] == "Bearer sk-from-env"
