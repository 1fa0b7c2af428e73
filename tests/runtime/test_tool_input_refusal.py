"""Tool inputs refused before any hook runs as Claude Code refuses them, and inputs Claude
Code takes that reach the hooks and run (measured with 2.1.240 and 2.1.332), through
`hookwright run` and a real HTTP model server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .fake_llm_server import FakeLLMServer, FakeToolCall
from .test_tool_input_order import logged_stdin

OPTIONS_ISSUE = """\
InputValidationError: [
  {
    "code": "invalid_value",
    "values": [
      "sonnet",
      "opus",
      "haiku",
      "fable"
    ],
    "path": [
      "model"
    ],
    "message": "Invalid option: expected one of \\"sonnet\\"|\\"opus\\"|\\"haiku\\"|\\"fable\\""
  }
]"""


def batch_of(seen: str) -> dict[str, str]:
    """What the model read per call, from the last PostToolBatch; asserts no other hook ran."""
    lines = [json.loads(line) for line in seen.splitlines()]
    assert {line["hook_event_name"] for line in lines} == {"PostToolBatch"}, "no tool hook"
    return {call["tool_use_id"]: call["tool_response"] for call in lines[-1]["tool_calls"]}


@pytest.mark.parametrize("model", ["gpt", None, 5])
def test_a_value_outside_a_keys_options_alone_reads_as_the_raw_issue_list(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path, model: object
) -> None:
    arguments = {"description": "d", "prompt": "write ran.txt", "model": model}
    seen = logged_stdin(
        tmp_path, isolated_home, server, FakeToolCall("Agent", json.dumps(arguments), id="t1")
    )
    assert batch_of(seen) == {"t1": f"<tool_use_error>{OPTIONS_ISSUE}</tool_use_error>"}


@pytest.mark.parametrize(("version", "listed"), [("2.1.332", True), ("2.1.240", False)])
def test_beside_another_issue_a_value_outside_its_options_is_listed_per_version(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path, version: str, listed: bool
) -> None:
    arguments = {"description": "d", "prompt": 3, "model": "gpt"}
    seen = logged_stdin(
        tmp_path,
        isolated_home,
        server,
        FakeToolCall("Agent", json.dumps(arguments), id="t1"),
        version=version,
    )
    wrong = "The parameter `prompt` type is expected as `string` but provided as `number`"
    invalid = (
        "The parameter `model` is invalid: Invalid option: expected one of "
        '"sonnet"|"opus"|"haiku"|"fable"'
    )
    issues = [wrong, invalid] if listed else [wrong]
    several = "issues" if listed else "issue"
    assert batch_of(seen) == {
        "t1": f"<tool_use_error>InputValidationError: Agent failed due to the following "
        f"{several}:\n" + "\n".join(issues) + "</tool_use_error>"
    }


def test_edits_that_cannot_apply_are_refused_before_any_hook(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    text = tmp_path / "a.txt"
    text.write_text("hello\nhello\nworld\n")

    def edit(use_id: str, **fields: str) -> FakeToolCall:
        arguments = {"file_path": str(text), "old_string": "absent", "new_string": "b", **fields}
        return FakeToolCall("Edit", json.dumps(arguments), id=use_id)

    seen = logged_stdin(
        tmp_path,
        isolated_home,
        server,
        edit("t1"),
        edit("t2", old_string="hello", new_string="hello"),
        edit("t3", old_string="hello"),
        edit("t4", file_path=str(tmp_path / "missing.txt")),
        edit("t5", old_string=""),
        edit("t6", file_path=str(tmp_path)),
    )
    several = (
        "Found 2 matches of the string to replace, but replace_all is false. To replace all "
        "occurrences, set replace_all to true. To replace only one occurrence, please provide "
        "more context to uniquely identify the instance.\nString: hello"
    )
    refused = {
        "t1": "String to replace not found in file.\nString: absent",
        "t2": "No changes to make: old_string and new_string are exactly the same.",
        "t3": several,
        "t4": f"File does not exist. Note: your current working directory is {tmp_path}.",
        "t5": "Cannot create new file - file already exists.",
        "t6": "Error calling tool (Edit): EISDIR: illegal operation on a directory, read",
    }
    assert batch_of(seen) == {
        use_id: f"<tool_use_error>{text}</tool_use_error>" for use_id, text in refused.items()
    }
    assert text.read_text() == "hello\nhello\nworld\n"


def test_an_empty_command_and_timeouts_out_of_range_reach_the_hooks_and_run(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    calls = [
        {"command": ""},
        {"command": "touch zero.txt", "timeout": 0},
        {"command": "touch over.txt", "timeout": 700000},
    ]
    seen = logged_stdin(
        tmp_path,
        isolated_home,
        server,
        *(FakeToolCall("Bash", json.dumps(call), id=f"t{n}") for n, call in enumerate(calls)),
    )
    lines = [json.loads(line) for line in seen.splitlines()]
    pre = [line["tool_input"] for line in lines if line["hook_event_name"] == "PreToolUse"]
    assert pre == calls
    post = [line for line in lines if line["hook_event_name"] == "PostToolUse"]
    assert len(post) == 3
    assert (tmp_path / "zero.txt").exists() and (tmp_path / "over.txt").exists()


@pytest.mark.parametrize(("version", "refused"), [("2.1.332", True), ("2.1.240", False)])
def test_a_write_to_a_folder_fails_as_each_version_fails_it(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path, version: str, refused: bool
) -> None:
    folder = tmp_path / "sub"
    folder.mkdir()
    arguments = {"file_path": str(folder), "content": "x"}
    seen = logged_stdin(
        tmp_path,
        isolated_home,
        server,
        FakeToolCall("Write", json.dumps(arguments), id="t1"),
        version=version,
    )
    lines = [json.loads(line) for line in seen.splitlines()]
    events = [line["hook_event_name"] for line in lines]
    (batch,) = [line for line in lines if line["hook_event_name"] == "PostToolBatch"]
    (call,) = batch["tool_calls"]
    if refused:
        assert events == ["PostToolBatch"]
        assert call["tool_response"] == (
            f"<tool_use_error>{folder} is a directory, not a file. To create a file inside it, "
            "include the file name in file_path.</tool_use_error>"
        )
    else:
        assert events == ["PreToolUse", "PostToolBatch"]
        assert call["tool_response"] == "EISDIR: illegal operation on a directory, read"
    assert list(folder.iterdir()) == []


def test_read_hooks_see_its_input_without_the_bounds_it_ignores(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    calls = [
        {"file_path": "a.txt", "offset": -1},
        {"file_path": "a.txt", "limit": 0},
        {"file_path": ""},
    ]
    seen = logged_stdin(
        tmp_path,
        isolated_home,
        server,
        *(FakeToolCall("Read", json.dumps(call), id=f"t{n}") for n, call in enumerate(calls)),
    )
    lines = [json.loads(line) for line in seen.splitlines()]
    pre = [line["tool_input"] for line in lines if line["hook_event_name"] == "PreToolUse"]
    whole = {"file_path": str(tmp_path / "a.txt")}
    assert pre == [whole, whole, {"file_path": str(tmp_path)}]
    (batch,) = [line for line in lines if line["hook_event_name"] == "PostToolBatch"]
    read = {call["tool_use_id"]: call["tool_response"] for call in batch["tool_calls"]}
    assert read["t0"] == read["t1"] == "1\tone\n2\ttwo\n3\t"
