"""The scripted model, the shared model types, `RetryingModel` and `make_model`."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from hookwright.runtime.models import (
    END_OF_SCRIPT,
    ModelConfigError,
    ModelError,
    ModelResponse,
    RetryingModel,
    ScriptedModel,
    ToolCall,
    make_model,
)
from hookwright.runtime.models.base import classify_error, parse_arguments

USER = [{"role": "user", "content": "hello"}]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# -- loading ------------------------------------------------------------------------------------


async def test_yaml_list_of_turns(tmp_path: Path) -> None:
    script = write(
        tmp_path / "script.yaml",
        """
- content: Let me look.
  tool_calls:
    - name: Read
      arguments: {path: README.md}
- content: Done.
""",
    )
    model = ScriptedModel.from_file(script)
    assert model.name == "scripted"

    first = await model.complete(USER)
    assert first.content == "Let me look."
    assert first.finish_reason == "tool_calls"
    assert first.tool_calls == [
        ToolCall(
            id="call_1",
            name="Read",
            arguments={"path": "README.md"},
            raw_arguments='{"path": "README.md"}',
        )
    ]
    second = await model.complete(USER)
    assert (second.content, second.tool_calls, second.finish_reason) == ("Done.", [], "stop")
    assert second.model == "scripted"


async def test_json_mapping_with_model_name(tmp_path: Path) -> None:
    data = {"model": "demo-model", "turns": [{"content": "hi"}, {"finish_reason": "length"}]}
    model = ScriptedModel.from_file(write(tmp_path / "script.json", json.dumps(data)))
    assert model.name == "demo-model"
    assert model.remaining == 2
    assert (await model.complete(USER)).model == "demo-model"
    assert (await model.complete(USER)).finish_reason == "length"
    assert model.remaining == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "- content: a\n- content: b\n- tool_calls:\n    - arguments: {}\n",
            "script.yaml: turns[2].tool_calls[0].name: field required",
        ),
        (
            "- contnet: hi\n",
            "script.yaml: turns[0].contnet: unknown field 'contnet' (did you mean 'content'?);"
            " it takes: content, tool_calls, error, match, finish_reason",
        ),
        (
            "- tool_calls: [{name: Bash, input: {command: ls}}]\n",
            "script.yaml: turns[0].tool_calls[0].input: unknown field 'input'; it takes: name,"
            " arguments, id",
        ),
        ("- error: exploded\n", "script.yaml: turns[0].error: input should be 'rate_limit'"),
        (
            "- tool_calls: [{name: Read, arguments: [1, 2]}]\n",
            "script.yaml: turns[0].tool_calls[0].arguments: must be an object, or a string",
        ),
        (
            "- content: hi\n  error: rate_limit\n",
            "script.yaml: turns[0]: a turn with 'error' cannot also have 'content' or 'tool_calls'",
        ),
        ("- match: '('\n", "script.yaml: turns[0].match: invalid regular expression"),
        ("- content: [1]\n", "script.yaml: turns[0].content: input should be a valid string"),
        ("- tool_calls: [{name: ''}]\n", "script.yaml: turns[0].tool_calls[0].name: string should"),
        ("model: x\n", "script.yaml: turns: field required"),
        (
            "model: x\nturns: []\nextra: 1\n",
            "script.yaml: extra: unknown field 'extra'; it takes: model, turns",
        ),
        ("just text\n", "script.yaml: expected a list of turns or a mapping with 'turns', got str"),
        (
            "- content: [unclosed\n",
            "script.yaml: invalid YAML: expected ',' or ']', but got '<stream end>' (line 2",
        ),
        ("", "script.yaml: scripted model file is empty"),
    ],
)
def test_validation_errors_name_file_turn_and_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, expected: str
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "script.yaml", text)
    with pytest.raises(ModelConfigError) as info:
        ScriptedModel.from_file("script.yaml")
    assert str(info.value).startswith(expected)


def test_every_validation_error_is_listed(tmp_path: Path) -> None:
    script = write(tmp_path / "s.yaml", "- tool_calls: [{}]\n- error: nope\n")
    with pytest.raises(ModelConfigError) as info:
        ScriptedModel.from_file(script)
    lines = str(info.value).splitlines()
    assert [line.split(": ")[1] for line in lines] == [
        "turns[0].tool_calls[0].name",
        "turns[1].error",
    ]
    assert all(line.startswith(f"{script}: ") for line in lines)


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    script = write(tmp_path / "s.json", '[\n  {"content": }\n]')
    with pytest.raises(ModelConfigError, match=r"s\.json: invalid JSON: .* \(line 2 column 15\)"):
        ScriptedModel.from_file(script)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ModelConfigError, match=r"nope\.yaml: scripted model file not found"):
        ScriptedModel.from_file(tmp_path / "nope.yaml")


def test_from_turns_validates_like_a_file() -> None:
    with pytest.raises(ModelConfigError, match=r"turns\[1\]\.tool_calls: input should be"):
        ScriptedModel.from_turns([{"content": "ok"}, {"tool_calls": "Read"}])


# -- behaviour ----------------------------------------------------------------------------------


async def test_tool_call_ids_unique_across_the_session() -> None:
    model = ScriptedModel.from_turns(
        [
            {"tool_calls": [{"name": "A"}, {"name": "B", "id": "call_2"}]},
            {"tool_calls": [{"name": "C"}, {"name": "D", "id": "mine"}]},
        ]
    )
    ids = [c.id for _ in range(2) for c in (await model.complete(USER)).tool_calls]
    assert ids == ["call_1", "call_2", "call_3", "mine"]


async def test_string_arguments_pass_through_raw() -> None:
    model = ScriptedModel.from_turns(
        [
            {
                "tool_calls": [
                    {"name": "A", "arguments": '{"x": 1'},
                    {"name": "B", "arguments": '{"y":2}'},
                ]
            }
        ]
    )
    broken, valid = (await model.complete(USER)).tool_calls
    assert (broken.arguments, broken.raw_arguments) == (None, '{"x": 1')
    assert (valid.arguments, valid.raw_arguments) == ({"y": 2}, '{"y":2}')
    assert broken.to_message_part() == {
        "id": "call_1",
        "type": "function",
        "function": {"name": "A", "arguments": '{"x": 1'},
    }


async def test_error_turn_raises_then_the_script_continues() -> None:
    model = ScriptedModel.from_turns([{"error": "rate_limit"}, {"error": "billing_error"}, {}])
    with pytest.raises(ModelError) as first:
        await model.complete(USER)
    assert (first.value.kind, first.value.transient, first.value.status) == (
        "rate_limit",
        True,
        None,
    )
    assert "turns[0]" in str(first.value)
    with pytest.raises(ModelError) as second:
        await model.complete(USER)
    assert (second.value.kind, second.value.transient) == ("billing_error", False)
    assert (await model.complete(USER)).content == ""


async def test_exhausted_script_ends_the_conversation() -> None:
    model = ScriptedModel.from_turns([{"content": "only"}])
    await model.complete(USER)
    for _ in range(2):
        reply = await model.complete(USER)
        assert (reply.content, reply.tool_calls, reply.finish_reason) == (END_OF_SCRIPT, [], "stop")
    assert [call.turn_index for call in model.calls] == [0, None, None]


async def test_recorded_calls_are_deep_copies() -> None:
    model = ScriptedModel.from_turns([{"content": "a"}])
    messages: list[dict[str, Any]] = [{"role": "user", "content": "hi", "meta": {"n": 1}}]
    tools: list[dict[str, Any]] = [
        {"type": "function", "function": {"name": "Read", "parameters": {}}}
    ]
    options: dict[str, Any] = {"temperature": 0, "stop": ["x"]}
    await model.complete(messages, tools, options=options)

    messages[0]["meta"]["n"] = 2
    messages.append({"role": "assistant", "content": "later"})
    tools[0]["function"]["name"] = "Changed"
    options["stop"].append("y")

    (call,) = model.calls
    assert call.messages == [{"role": "user", "content": "hi", "meta": {"n": 1}}]
    assert call.tools == [{"type": "function", "function": {"name": "Read", "parameters": {}}}]
    assert call.options == {"temperature": 0, "stop": ["x"]}


async def test_recorded_arguments_are_not_shared_with_the_script() -> None:
    model = ScriptedModel.from_turns([{"tool_calls": [{"name": "A", "arguments": {"k": [1]}}]}] * 2)
    first = (await model.complete(USER)).tool_calls[0]
    assert first.arguments is not None
    first.arguments["k"].append(2)
    assert (await model.complete(USER)).tool_calls[0].arguments == {"k": [1]}


async def test_streamed_chunks_reassemble_the_content() -> None:
    content = "The quick brown fox jumps over the lazy dog."
    model = ScriptedModel.from_turns([{"content": content}, {"content": ""}])
    chunks: list[str] = []
    reply = await model.complete(USER, on_text=chunks.append)
    assert len(chunks) > 1
    assert "".join(chunks) == reply.content == content
    chunks.clear()
    await model.complete(USER, on_text=chunks.append)
    assert chunks == []


async def test_match_checks_the_messages_since_the_last_reply() -> None:
    model = ScriptedModel.from_turns(
        [{"tool_calls": [{"name": "Read"}]}, {"match": r"42 lines", "content": "ok"}]
    )
    first = await model.complete(USER)
    history = [
        *USER,
        first.to_message(),
        {"role": "tool", "tool_call_id": "call_1", "content": "42 lines"},
    ]
    assert (await model.complete(history)).content == "ok"


async def test_match_failure_names_the_turn() -> None:
    model = ScriptedModel.from_turns([{"match": "hookwright", "content": "ok"}])
    with pytest.raises(ModelConfigError, match=r"turns\[0\]\.match: 'hookwright' not found"):
        await model.complete([{"role": "user", "content": "something else"}])


def test_response_to_message() -> None:
    call = ToolCall(id="c1", name="Read", arguments={"a": 1}, raw_arguments='{"a": 1}')
    assert ModelResponse("", [call], "tool_calls", "m").to_message() == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "Read", "arguments": '{"a": 1}'}}
        ],
    }
    assert ModelResponse("hi", [], "stop", "m").to_message() == {
        "role": "assistant",
        "content": "hi",
    }


# -- shared types -------------------------------------------------------------------------------


def test_model_error_rejects_unknown_kinds() -> None:
    with pytest.raises(ValueError, match="unknown model error kind 'exploded'"):
        ModelError("exploded")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("status", "error_type", "code", "kind"),
    [
        (429, "requests", "rate_limit_exceeded", "rate_limit"),
        (429, "insufficient_quota", "insufficient_quota", "billing_error"),
        (404, "invalid_request_error", "model_not_found", "model_not_found"),
        (400, "invalid_request_error", None, "invalid_request"),
        (401, None, None, "authentication_failed"),
        (402, None, None, "billing_error"),
        (529, None, None, "overloaded"),
        (503, None, None, "server_error"),
        (None, "overloaded_error", None, "overloaded"),
        (None, "api_error", None, "server_error"),
        (None, "something", None, "unknown"),
        (418, None, None, "unknown"),
    ],
)
def test_classify_error(
    status: int | None, error_type: str | None, code: str | None, kind: str
) -> None:
    assert classify_error(status, error_type, code) == kind


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [('{"a": 1}', {"a": 1}), ("", {}), ("  ", {}), ("[1]", None), ('{"a": ', None), ("null", None)],
)
def test_parse_arguments(raw: str, parsed: dict[str, Any] | None) -> None:
    assert parse_arguments(raw) == parsed


# -- RetryingModel ------------------------------------------------------------------------------


class Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


async def test_retries_transient_errors_with_exponential_backoff() -> None:
    inner = ScriptedModel.from_turns(
        [
            {"error": "rate_limit"},
            {"error": "overloaded"},
            {"error": "server_error"},
            {"content": "ok"},
        ]
    )
    sleeps = Sleeps()
    seen: list[tuple[int, str, float]] = []
    model = RetryingModel(
        inner,
        sleep=sleeps,
        rng=lambda: 0.0,
        on_retry=lambda attempt, error, delay: seen.append((attempt, error.kind, delay)),
    )
    assert model.name == "scripted"
    assert (await model.complete(USER)).content == "ok"
    assert sleeps.delays == [0.5, 1.0, 2.0]
    assert seen == [(1, "rate_limit", 0.5), (2, "overloaded", 1.0), (3, "server_error", 2.0)]
    assert len(inner.calls) == 4


async def test_gives_up_after_max_retries() -> None:
    inner = ScriptedModel.from_turns([{"error": "overloaded"}] * 3 + [{"content": "too late"}])
    sleeps = Sleeps()
    model = RetryingModel(inner, max_retries=2, sleep=sleeps, rng=lambda: 0.0)
    with pytest.raises(ModelError) as info:
        await model.complete(USER)
    assert info.value.kind == "overloaded"
    assert sleeps.delays == [0.5, 1.0]
    assert inner.remaining == 1


async def test_non_transient_errors_are_not_retried() -> None:
    inner = ScriptedModel.from_turns([{"error": "authentication_failed"}, {"content": "unused"}])
    sleeps = Sleeps()
    with pytest.raises(ModelError, match="authentication_failed"):
        await RetryingModel(inner, sleep=sleeps).complete(USER)
    assert sleeps.delays == []
    assert inner.remaining == 1


async def test_async_on_retry_is_awaited_and_jitter_is_bounded() -> None:
    inner = ScriptedModel.from_turns([{"error": "server_error"}, {"content": "ok"}])
    seen: list[float] = []

    async def on_retry(attempt: int, error: ModelError, delay: float) -> None:
        seen.append(delay)

    sleeps = Sleeps()
    model = RetryingModel(inner, sleep=sleeps, rng=lambda: 1.0, jitter=0.25, on_retry=on_retry)
    await model.complete(USER)
    assert seen == sleeps.delays == [0.625]


def test_delay_honours_retry_after_and_the_cap() -> None:
    model = RetryingModel(ScriptedModel.from_turns([]), max_delay=8.0, rng=lambda: 0.0)
    assert model.delay_for(1, ModelError("rate_limit", retry_after=3.0)) == 3.0
    assert model.delay_for(1, ModelError("rate_limit", retry_after=60.0)) == 8.0
    assert model.delay_for(10, ModelError("rate_limit")) == 8.0


async def test_retry_passes_arguments_through() -> None:
    inner = ScriptedModel.from_turns([{"error": "rate_limit"}, {"content": "ok"}])
    model = RetryingModel(inner, sleep=Sleeps())
    chunks: list[str] = []
    tools = [{"type": "function", "function": {"name": "T", "parameters": {}}}]
    await model.complete(USER, tools, options={"max_tokens": 5}, on_text=chunks.append)
    assert "".join(chunks) == "ok"
    assert [(c.tools, c.options) for c in inner.calls] == [(tools, {"max_tokens": 5})] * 2


# -- make_model ---------------------------------------------------------------------------------


async def test_make_model_scripted_relative_to_base_dir(tmp_path: Path) -> None:
    write(tmp_path / "s.yaml", "- content: from base dir\n")
    model = make_model("scripted:s.yaml", base_dir=tmp_path)
    assert isinstance(model, ScriptedModel)
    assert (await model.complete(USER)).content == "from base dir"


async def test_make_model_scripted_relative_to_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "s.json", '[{"content": "from cwd"}]')
    monkeypatch.chdir(tmp_path)
    assert (await make_model("scripted:s.json").complete(USER)).content == "from cwd"


def test_make_model_scripted_missing_file_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(ModelConfigError, match=r"missing\.yaml: scripted model file not found"):
        make_model("scripted:missing.yaml", base_dir=tmp_path)


@pytest.mark.parametrize("spec", ["gpt-4o", "foo:bar", "", "scripted"])
def test_make_model_unknown_spec(spec: str) -> None:
    with pytest.raises(ModelConfigError) as info:
        make_model(spec)
    assert str(info.value) == (
        f"unknown model {spec!r}: use scripted:PATH, openai:NAME or anthropic:NAME"
    )


@pytest.mark.parametrize(("spec", "missing"), [("openai:", "NAME"), ("scripted: ", "PATH")])
def test_make_model_empty_name(spec: str, missing: str) -> None:
    with pytest.raises(ModelConfigError, match=f"has no {missing}"):
        make_model(spec)


async def test_a_long_run_keeps_one_copy_of_its_history() -> None:
    """Each call's history is kept as it was, yet the messages passed again unchanged are
    shared between the calls: what the model holds grows with the history, not with its
    square."""
    turns = 150
    model = ScriptedModel.from_turns([{"content": "ok"}] * turns)
    history: list[dict[str, Any]] = []
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(turns):
            history.append({"role": "user", "content": f"{n:04d}" + "x" * 2000})
            await model.complete(history)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    history_size = sum(len(m["content"]) for m in history)
    assert held < 4 * history_size
    assert [len(call.messages) for call in model.calls[:3]] == [1, 2, 3]
    history[0]["content"] = "changed"
    await model.complete(history)
    assert model.calls[0].messages[0]["content"].startswith("0000x")
    assert model.calls[-1].messages[0]["content"] == "changed"
