"""The bytes of `tool_input` a hook reads when the model wrote the keys in another order than
the tool's schema: Claude Code's schema order (measured with 2.1.240 and 2.1.332), through
`hookwright run` and a real HTTP model server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_hookwright

from .fake_llm_server import FakeLLMServer, FakeReply, FakeToolCall
from .hook_log import LOG_HOOK


def logged_stdin(
    tmp_path: Path,
    home: Path,
    server: FakeLLMServer,
    *calls: FakeToolCall,
    first: tuple[FakeToolCall, ...] = (),
    version: str | None = None,
) -> str:
    """The hooks' stdin, in order, after a run whose model makes `calls` in one turn (after
    `first` in a turn of their own), as Claude Code `version` (default: the version the
    tests pin)."""
    (tmp_path / ".claude").mkdir()
    (tmp_path / "hook.py").write_text(LOG_HOOK)
    hook = [{"hooks": [{"type": "command", "command": f"python3 {tmp_path / 'hook.py'}"}]}]
    events = ("PreToolUse", "PostToolUse", "PostToolBatch")
    settings = {"hooks": {event: hook for event in events}}
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(settings))
    replies = [FakeReply(tool_calls=first)] if first else []
    server.queue_anthropic(*replies, FakeReply(tool_calls=calls), FakeReply("done"))
    chosen = ("--claude-code-version", version) if version else ()
    done = run_hookwright(
        "run",
        "go",
        *chosen,
        "--project",
        str(tmp_path),
        "--trust",
        "--model",
        "anthropic:claude-opus-5",
        "--permission-mode",
        "bypassPermissions",
        home=home,
        env={
            "ANTHROPIC_BASE_URL": server.anthropic_base_url,
            "ANTHROPIC_API_KEY": "sk-ant-t",
            "HOOK_LOG": str(tmp_path / "hooks.jsonl"),
        },
    )
    assert done.returncode == 0, done.stderr
    return (tmp_path / "hooks.jsonl").read_text()


def test_hooks_read_the_input_in_the_schema_order(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    note = tmp_path / "note.txt"
    note.write_text("hello\n")
    bash = json.dumps({"description": "say hi", "command": "echo hi"})
    edit = json.dumps({"new_string": "bye", "old_string": "hello", "file_path": str(note)})
    seen = logged_stdin(
        tmp_path,
        isolated_home,
        server,
        FakeToolCall("Bash", bash, id="toolu_1"),
        FakeToolCall("Edit", edit, id="toolu_2"),
    )
    shown_bash = '"tool_input":{"command":"echo hi","description":"say hi"}'
    shown_edit = (
        f'"tool_input":{{"file_path":"{note}","old_string":"hello","new_string":"bye",'
        '"replace_all":false}'
    )
    batch_edit = (
        f'"tool_input":{{"replace_all":false,"file_path":"{note}","old_string":"hello",'
        '"new_string":"bye"}'
    )
    lines = seen.splitlines()
    pre = [line for line in lines if '"PreToolUse"' in line]
    post = [line for line in lines if '"PostToolUse"' in line]
    (batch,) = [line for line in lines if '"PostToolBatch"' in line]
    for each in (pre, post):
        assert sum(shown_bash in line for line in each) == 1
        assert sum(shown_edit in line for line in each) == 1
    assert shown_bash in batch and batch_edit in batch
    assert note.read_text() == "bye\n"


def test_keys_outside_the_schema_are_refused_before_any_hook(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    arguments = {"zeta": 1, "command": "touch ran.txt", "alpha": 2}
    seen = logged_stdin(
        tmp_path, isolated_home, server, FakeToolCall("Bash", json.dumps(arguments))
    )
    (batch,) = [json.loads(line) for line in seen.splitlines()]
    assert batch["hook_event_name"] == "PostToolBatch", "no PreToolUse or PostToolUse"
    (call,) = batch["tool_calls"]
    assert list(call["tool_input"]) == ["zeta", "command", "alpha"], "as the model wrote it"
    assert call["tool_response"] == (
        "<tool_use_error>InputValidationError: Bash failed due to the following issues:\n"
        "An unexpected parameter `zeta` was provided\n"
        "An unexpected parameter `alpha` was provided</tool_use_error>"
    )
    assert not (tmp_path / "ran.txt").exists()


@pytest.mark.parametrize(
    ("arguments", "issues"),
    [
        ({"description": "touch ran.txt"}, ["The required parameter `command` is missing"]),
        (
            {"command": "touch ran.txt", "timeout": "soon", "description": None},
            [
                "The parameter `timeout` type is expected as `number` but provided as `string`",
                "The parameter `description` type is expected as `string` but provided as `null`",
            ],
        ),
        (
            {"timeout": True, "zeta": 1, "description": "touch ran.txt"},
            [
                "The required parameter `command` is missing",
                "An unexpected parameter `zeta` was provided",
                "The parameter `timeout` type is expected as `number` but provided as `boolean`",
            ],
        ),
    ],
    ids=["missing", "wrong-types", "all-kinds"],
)
def test_an_input_the_schema_does_not_take_is_refused_before_any_hook(
    server: FakeLLMServer,
    tmp_path: Path,
    isolated_home: Path,
    arguments: dict[str, object],
    issues: list[str],
) -> None:
    seen = logged_stdin(
        tmp_path, isolated_home, server, FakeToolCall("Bash", json.dumps(arguments))
    )
    (batch,) = [json.loads(line) for line in seen.splitlines()]
    assert batch["hook_event_name"] == "PostToolBatch", "no PreToolUse or PostToolUse"
    (call,) = batch["tool_calls"]
    assert call["tool_input"] == arguments
    assert list(call["tool_input"]) == list(arguments), "as the model wrote it"
    several = "issues" if len(issues) > 1 else "issue"
    assert call["tool_response"] == (
        f"<tool_use_error>InputValidationError: Bash failed due to the following {several}:\n"
        + "\n".join(issues)
        + "</tool_use_error>"
    )
    assert not (tmp_path / "ran.txt").exists()


@pytest.mark.parametrize(("version", "marks"), [("2.1.332", True), ("2.1.240", False)])
def test_an_edit_of_a_file_the_model_has_not_read_says_so_per_version(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path, version: str, marks: bool
) -> None:
    unread, read = tmp_path / "unread.txt", tmp_path / "read.txt"
    for path in (unread, read):
        path.write_text("hello\n")

    def edit(path: Path, use_id: str, old: str = "hello", new: str = "bye") -> FakeToolCall:
        arguments = {"file_path": str(path), "old_string": old, "new_string": new}
        return FakeToolCall("Edit", json.dumps(arguments), id=use_id)

    seen = logged_stdin(
        tmp_path,
        isolated_home,
        server,
        edit(unread, "toolu_2"),
        edit(unread, "toolu_3", "bye", "ciao"),
        edit(read, "toolu_4"),
        first=(FakeToolCall("Read", json.dumps({"file_path": str(read)}), id="toolu_1"),),
        version=version,
    )
    lines = [json.loads(line) for line in seen.splitlines()]
    post = {line["tool_use_id"]: line for line in lines if line["hook_event_name"] == "PostToolUse"}
    (batch,) = [line for line in lines if line["hook_event_name"] == "PostToolBatch"][-1:]
    model_text = {call["tool_use_id"]: call["tool_response"] for call in batch["tool_calls"]}
    done = "has been updated successfully."
    note = " (file state is current in your context \u2014 no need to Read it back)"
    for use_id in ("toolu_2", "toolu_3"):
        assert model_text[use_id] == f"The file {unread} {done}" + ("" if marks else note)
        assert post[use_id]["tool_response"].get("contentNotInModelContext") is (
            True if marks else None
        )
    assert model_text["toolu_4"] == f"The file {read} {done}{note}"
    assert "contentNotInModelContext" not in post["toolu_4"]["tool_response"]
    assert (unread.read_text(), read.read_text()) == ("ciao\n", "bye\n")
