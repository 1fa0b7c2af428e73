"""Tool inputs refused before any hook runs as Claude Code refuses them, and inputs Claude
Code takes that reach the hooks and run (measured with 2.1.240 and 2.1.332), through
`hookwright run` and a real HTTP model server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .fake_llm_server import FakeLLMServer, FakeReply, FakeToolCall
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


def test_an_empty_old_string_creates_a_missing_file_through_its_hooks(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    created = tmp_path / "deep" / "er" / "new.txt"
    blank = tmp_path / "blank.txt"
    blank.write_text(" \n")

    def edit(use_id: str, path: Path, old: str, new: str) -> FakeToolCall:
        arguments = {"file_path": str(path), "old_string": old, "new_string": new}
        return FakeToolCall("Edit", json.dumps(arguments), id=use_id)

    seen = logged_stdin(
        tmp_path,
        isolated_home,
        server,
        edit("t2", created, "hello", "bye"),
        edit("t3", blank, "", "y\n"),
        first=(edit("t1", created, "", "hello\n"),),
        version="2.1.332",
    )
    lines = [json.loads(line) for line in seen.splitlines()]
    events = [(line["hook_event_name"], line.get("tool_use_id")) for line in lines]
    assert events == [
        ("PreToolUse", "t1"),
        ("PostToolUse", "t1"),
        ("PostToolBatch", None),
        ("PreToolUse", "t2"),
        ("PostToolUse", "t2"),
        ("PreToolUse", "t3"),
        ("PostToolUse", "t3"),
        ("PostToolBatch", None),
    ]
    response = lines[1]["tool_response"]
    assert response["originalFile"] == ""
    assert response["structuredPatch"] == [
        {"oldStart": 1, "oldLines": 0, "newStart": 1, "newLines": 1, "lines": ["+hello"]}
    ]
    assert lines[6]["tool_response"]["contentNotInModelContext"] is True, lines[6]
    fresh = "(file state is current in your context \u2014 no need to Read it back)"
    read = {
        call["tool_use_id"]: call["tool_response"]
        for line in lines
        if line["hook_event_name"] == "PostToolBatch"
        for call in line["tool_calls"]
    }
    assert read == {
        "t1": f"The file {created} has been updated successfully. {fresh}",
        "t2": f"The file {created} has been updated successfully. {fresh}",
        "t3": f"The file {blank} has been updated successfully.",
    }
    assert created.read_text() == "bye\n"
    assert blank.read_text() == "y\n"


def test_an_agent_call_with_an_unknown_key_runs_and_its_hooks_read_it_without_the_key(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    arguments = {"prompt": "touch sub.txt", "zeta": 1, "description": "make it"}
    server.queue_anthropic(FakeReply(tool_calls=[FakeToolCall("Agent", json.dumps(arguments))]))
    touch = FakeToolCall("Bash", json.dumps({"command": "touch sub.txt"}), id="t2")
    seen = logged_stdin(tmp_path, isolated_home, server, first=(touch,))
    lines = [json.loads(line) for line in seen.splitlines()]
    agent = [line for line in lines if line.get("tool_name") == "Agent"]
    assert [line["hook_event_name"] for line in agent] == ["PreToolUse", "PostToolUse"]
    assert agent[0]["tool_input"] == {"description": "make it", "prompt": "touch sub.txt"}
    (batch,) = [
        call["tool_input"]
        for line in lines
        if line["hook_event_name"] == "PostToolBatch"
        for call in line["tool_calls"]
        if call["tool_name"] == "Agent"
    ]
    assert list(batch.items()) == list(arguments.items())
    assert (tmp_path / "sub.txt").exists()


@pytest.mark.parametrize(("version", "odd_hinted"), [("2.1.332", False), ("2.1.240", True)])
def test_a_missing_file_names_a_similar_one_as_each_version_does(
    server: FakeLLMServer,
    tmp_path: Path,
    isolated_home: Path,
    version: str,
    odd_hinted: bool,
) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    for name in ("notes.txt", "data.a=b", "src/app.py"):
        (project / name).write_text("x\n")
    outside = str(tmp_path / "src" / "app.py")
    reads = ["notes.md", "NOTES.txt", "note.txt", "data.md", outside]

    def call(use_id: str, tool: str, path: str, **more: str) -> FakeToolCall:
        return FakeToolCall(tool, json.dumps({"file_path": path, **more}), id=use_id)

    seen = logged_stdin(
        project,
        isolated_home,
        server,
        *(call(f"r{n}", "Read", path) for n, path in enumerate(reads)),
        call("e0", "Edit", "notes.md", old_string="x", new_string="y"),
        version=version,
    )
    lines = [json.loads(line) for line in seen.splitlines()]
    (batch,) = [line for line in lines if line["hook_event_name"] == "PostToolBatch"]
    read = {call["tool_use_id"]: call["tool_response"] for call in batch["tool_calls"]}
    missing = f"File does not exist. Note: your current working directory is {project}."
    assert read == {
        "r0": f"{missing} Did you mean notes.txt?",
        "r1": missing,
        "r2": missing,
        "r3": f"{missing} Did you mean data.a=b?" if odd_hinted else missing,
        "r4": f"{missing} Did you mean {project / 'src' / 'app.py'}?",
        "e0": f"<tool_use_error>{missing} Did you mean notes.txt?</tool_use_error>",
    }
    pre = [line["tool_use_id"] for line in lines if line["hook_event_name"] == "PreToolUse"]
    assert pre == [f"r{n}" for n in range(len(reads))], "the Edit is refused before its hooks"
    assert not (project / "notes.md").exists()
