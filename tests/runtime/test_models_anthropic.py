"""The Anthropic model and its message conversion, against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from hookwright.runtime.models import (
    ModelConfigError,
    ModelError,
    RetryingModel,
    ToolCall,
    make_model,
)

from .fake_llm_server import FakeError, FakeLLMServer, FakeReply, FakeToolCall, split

if TYPE_CHECKING:
    from hookwright.runtime.models.anthropic_model import AnthropicModel


def sdk_module() -> ModuleType:
    """The Anthropic-backed module, imported when a test runs: the SDK's import costs seconds
    that every pytest worker would otherwise pay just to collect this file."""
    from hookwright.runtime.models import anthropic_model

    return anthropic_model


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
def model(server: FakeLLMServer) -> AnthropicModel:
    return sdk_module().AnthropicModel(
        "claude-test", api_key="sk-ant-test", base_url=server.anthropic_base_url
    )


class Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


async def test_streams_text(server: FakeLLMServer, model: AnthropicModel) -> None:
    server.queue_anthropic(FakeReply("Hello from the fake", text_chunks=4, prompt_tokens=20))
    chunks: list[str] = []
    reply = await model.complete(USER, on_text=chunks.append)
    assert chunks == split("Hello from the fake", 4)
    assert reply.content == "Hello from the fake"
    assert (reply.tool_calls, reply.finish_reason, reply.model) == ([], "stop", "claude-test")
    assert reply.usage is not None
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (20, 7)
    assert reply.usage.total_tokens == 27


async def test_streams_text_and_tool_use(server: FakeLLMServer, model: AnthropicModel) -> None:
    server.queue_anthropic(
        FakeReply(
            "Let me check.",
            tool_calls=[
                FakeToolCall("Read", '{"path": "src/app.py"}', id="toolu_1", chunks=4),
                FakeToolCall("Grep", '{"pattern": "x"}', id="toolu_2"),
            ],
        )
    )
    chunks: list[str] = []
    reply = await model.complete(USER, [READ_TOOL], on_text=chunks.append)
    assert "".join(chunks) == reply.content == "Let me check."
    assert reply.finish_reason == "tool_calls"
    assert reply.tool_calls == [
        ToolCall("toolu_1", "Read", {"path": "src/app.py"}, '{"path": "src/app.py"}'),
        ToolCall("toolu_2", "Grep", {"pattern": "x"}, '{"pattern": "x"}'),
    ]


async def test_tool_use_without_input_deltas(server: FakeLLMServer, model: AnthropicModel) -> None:
    server.queue_anthropic(FakeReply(tool_calls=[FakeToolCall("Now", arguments="")]))
    (call,) = (await model.complete(USER)).tool_calls
    assert (call.arguments, call.raw_arguments) == ({}, "{}")


async def test_invalid_tool_input_is_kept_raw(server: FakeLLMServer, model: AnthropicModel) -> None:
    server.queue_anthropic(FakeReply(tool_calls=[FakeToolCall("Read", '{"path": ')]))
    (call,) = (await model.complete(USER)).tool_calls
    assert (call.arguments, call.raw_arguments) == (None, '{"path": ')


@pytest.mark.parametrize(
    ("stop_reason", "finish"),
    [("max_tokens", "length"), ("stop_sequence", "stop"), ("refusal", "content_filter")],
)
async def test_stop_reasons(
    server: FakeLLMServer, model: AnthropicModel, stop_reason: str, finish: str
) -> None:
    server.queue_anthropic(FakeReply("x", finish_reason=stop_reason))
    assert (await model.complete(USER)).finish_reason == finish


async def test_max_tokens_and_options(server: FakeLLMServer, model: AnthropicModel) -> None:
    server.queue_anthropic("a", "b")
    await model.complete(USER)
    await model.complete(USER, options={"max_tokens": 100, "temperature": 0.5})
    first, second = (r.body for r in server.requests)
    assert first["max_tokens"] == sdk_module().DEFAULT_MAX_TOKENS == 4096
    assert "temperature" not in first
    assert (second["max_tokens"], second["temperature"]) == (100, 0.5)


async def test_reserved_options_are_rejected(server: FakeLLMServer, model: AnthropicModel) -> None:
    with pytest.raises(ModelConfigError, match="options: system cannot be overridden"):
        await model.complete(USER, options={"system": "sneaky"})
    assert server.requests == []


# -- conversion ---------------------------------------------------------------------------------

CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "You are terse."},
    {"role": "system", "content": "Project: hookwright."},
    {"role": "user", "content": "Read a and b"},
    {
        "role": "assistant",
        "content": "Reading both.",
        "tool_calls": [
            {
                "id": "t1",
                "type": "function",
                "function": {"name": "Read", "arguments": '{"p": "a"}'},
            },
            {
                "id": "t2",
                "type": "function",
                "function": {"name": "Read", "arguments": '{"p": "b"}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "t1", "content": "contents of a"},
    {"role": "tool", "tool_call_id": "t2", "content": "contents of b"},
    {"role": "user", "content": "Now summarise."},
]
EXPECTED_MESSAGES = [
    {"role": "user", "content": [{"type": "text", "text": "Read a and b"}]},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Reading both."},
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {"p": "a"}},
            {"type": "tool_use", "id": "t2", "name": "Read", "input": {"p": "b"}},
        ],
    },
    {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "contents of a"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "contents of b"},
            {"type": "text", "text": "Now summarise."},
        ],
    },
]


async def test_request_carries_the_converted_conversation(
    server: FakeLLMServer, model: AnthropicModel
) -> None:
    server.queue_anthropic("Summary.")
    await model.complete(CONVERSATION, [READ_TOOL])
    (request,) = server.requests
    assert request.api == "anthropic"
    assert request.path == "/v1/messages"
    assert request.headers["authorization"] == "Bearer sk-ant-test"
    assert request.body == {
        "model": "claude-test",
        "max_tokens": 4096,
        "stream": True,
        "system": "You are terse.\n\nProject: hookwright.",
        "messages": EXPECTED_MESSAGES,
        "tools": [
            {
                "name": "Read",
                "description": "Read a file",
                "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
            }
        ],
    }


async def test_reply_round_trips_through_history(
    server: FakeLLMServer, model: AnthropicModel
) -> None:
    server.queue_anthropic(
        FakeReply(tool_calls=[FakeToolCall("Read", '{"p": "a"}', id="toolu_7")]), "done"
    )
    reply = await model.complete(USER, [READ_TOOL])
    history = [
        *USER,
        reply.to_message(),
        {"role": "tool", "tool_call_id": "toolu_7", "content": "A"},
    ]
    await model.complete(history, [READ_TOOL])
    assert server.requests[1].body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "hello"}]},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_7", "name": "Read", "input": {"p": "a"}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_7", "content": "A"}],
        },
    ]
    assert "system" not in server.requests[1].body


def test_conversion_edge_cases() -> None:
    request = sdk_module().to_anthropic(
        [
            {
                "role": "user",
                "content": [{"type": "text", "text": "part one"}, {"type": "text", "text": "two"}],
            },
            {"role": "assistant", "content": ""},
            {"role": "user", "content": "again"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "x",
                        "type": "function",
                        "function": {"name": "T", "arguments": "{oops"},
                    },
                    {"id": "y", "type": "function", "function": {"name": "U", "arguments": ""}},
                ],
            },
        ],
        [{"type": "function", "function": {"name": "T"}}],
    )
    assert request.system == ""
    assert request.messages == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "part one"},
                {"type": "text", "text": "two\n"},  # texts of two messages meet at a newline
                {"type": "text", "text": "again"},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "x",
                    "name": "T",
                    "input": {"_invalid_arguments": "{oops"},
                },
                {"type": "tool_use", "id": "y", "name": "U", "input": {}},
            ],
        },
    ]
    assert request.tools == [
        {"name": "T", "description": "", "input_schema": {"type": "object", "properties": {}}}
    ]


@pytest.mark.parametrize(
    ("message", "error"),
    [
        (
            {"role": "user", "content": [{"type": "image_url"}]},
            r"messages\[1\]\.content\[0\]: .*'image_url'",
        ),
        ({"role": "tool", "content": "x"}, r"messages\[1\]\.tool_call_id: missing"),
        ({"role": "function", "content": "x"}, r"messages\[1\]\.role: unsupported 'function'"),
        ({"role": "user", "content": 5}, r"messages\[1\]\.content: expected a string"),
        (
            {"role": "assistant", "tool_calls": [{"id": "x"}]},
            r"messages\[1\]\.tool_calls: each needs",
        ),
    ],
)
def test_unconvertible_messages_name_the_index(message: dict[str, Any], error: str) -> None:
    with pytest.raises(ModelError, match=error) as info:
        sdk_module().to_anthropic([*USER, message], None)
    assert info.value.kind == "invalid_request"


# -- errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "kind", "transient"),
    [
        (FakeError(529, "Overloaded"), "overloaded", True),
        (FakeError(429), "rate_limit", True),
        (FakeError(500), "server_error", True),
        (FakeError(401, "invalid x-api-key"), "authentication_failed", False),
        (FakeError(402), "billing_error", False),
        (FakeError(404), "model_not_found", False),
        (FakeError(400, "prompt is too long"), "invalid_request", False),
    ],
)
async def test_status_errors_map_to_kinds(
    server: FakeLLMServer, model: AnthropicModel, error: FakeError, kind: str, transient: bool
) -> None:
    server.queue_anthropic(error)
    with pytest.raises(ModelError) as info:
        await model.complete(USER)
    assert (info.value.kind, info.value.transient, info.value.status) == (
        kind,
        transient,
        error.status,
    )
    assert error.message in str(info.value)


async def test_overloaded_event_inside_the_stream(
    server: FakeLLMServer, model: AnthropicModel
) -> None:
    server.queue_anthropic(FakeError(529, "Overloaded", mid_stream=True))
    with pytest.raises(ModelError) as info:
        await model.complete(USER)
    assert (info.value.kind, info.value.transient, info.value.status) == ("overloaded", True, None)


async def test_529_then_success_through_retrying_model(server: FakeLLMServer) -> None:
    server.queue_anthropic(FakeError(529), FakeError(529, mid_stream=True), "finally")
    sleeps = Sleeps()
    seen: list[str] = []
    model = RetryingModel(
        sdk_module().AnthropicModel("claude-test", api_key="k", base_url=server.anthropic_base_url),
        sleep=sleeps,
        rng=lambda: 0.0,
        on_retry=lambda attempt, error, delay: seen.append(error.kind),
    )
    assert (await model.complete(USER)).content == "finally"
    assert seen == ["overloaded", "overloaded"]
    assert sleeps.delays == [0.5, 1.0]
    assert len(server.requests) == 3


async def test_401_is_not_retried(server: FakeLLMServer) -> None:
    server.queue_anthropic(FakeError(401), "never sent")
    sleeps = Sleeps()
    model = RetryingModel(
        sdk_module().AnthropicModel(
            "claude-test", api_key="bad", base_url=server.anthropic_base_url
        ),
        sleep=sleeps,
    )
    with pytest.raises(ModelError) as info:
        await model.complete(USER)
    assert info.value.kind == "authentication_failed"
    assert (sleeps.delays, len(server.requests)) == ([], 1)


# -- configuration ------------------------------------------------------------------------------


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_missing_env_names_the_variables(clean_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(ModelConfigError) as info:
        make_model("anthropic:claude-sonnet")
    message = str(info.value)
    assert "anthropic:claude-sonnet" in message
    assert "ANTHROPIC_API_KEY" in message and "ANTHROPIC_BASE_URL" in message


@pytest.mark.parametrize(
    ("variables", "authorization"),
    [
        ({}, None),
        ({"ANTHROPIC_API_KEY": "sk-ant-env"}, "Bearer sk-ant-env"),
        ({"ANTHROPIC_AUTH_TOKEN": "proxy-token"}, "Bearer proxy-token"),
    ],
)
async def test_credentials_from_env(
    server: FakeLLMServer,
    clean_env: pytest.MonkeyPatch,
    variables: dict[str, str],
    authorization: str | None,
) -> None:
    """`None`: the placeholder key stands in for the missing credentials."""
    clean_env.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
    for name, value in variables.items():
        clean_env.setenv(name, value)
    model = make_model("anthropic:claude-test")
    assert isinstance(model, RetryingModel)
    server.queue_anthropic("hi")
    assert (await model.complete(USER)).content == "hi"
    expected = authorization or f"Bearer {sdk_module().PLACEHOLDER_API_KEY}"
    assert server.requests[0].headers["authorization"] == expected


def test_later_system_messages_stay_in_messages_as_claude_code_sends_them() -> None:
    call = {"id": "t1", "type": "function", "function": {"name": "Bash", "arguments": "{}"}}
    request = sdk_module().to_anthropic(
        [
            {"role": "system", "content": "prompt"},
            {"role": "system", "content": "also leading"},
            {"role": "user", "content": "go"},
            {"role": "system", "content": "after the prompt"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "t1", "content": "denied", "is_error": True},
            {"role": "system", "content": "one"},
            {"role": "system", "content": "two"},
            {"role": "assistant", "content": "done"},
            {"role": "user", "content": "Stop hook feedback:\nA"},
            {"role": "user", "content": "Stop hook feedback:\nB"},
        ],
        None,
    )
    assert request.system == "prompt\n\nalso leading"
    assert request.messages == [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {"role": "system", "content": "after the prompt"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "denied", "is_error": True}
            ],
        },
        {"role": "system", "content": "one\n\ntwo"},
        {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Stop hook feedback:\nA\n"},
                {"type": "text", "text": "Stop hook feedback:\nB"},
            ],
        },
    ]
