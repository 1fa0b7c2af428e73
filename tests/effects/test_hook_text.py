"""Where Claude Code hook text reaches the model, and in which words: the reference agent with
real command hooks and the scripted model, whose requests are asserted message by message.

Every expectation is what Claude Code 2.1.240 sent to the Messages API in the same situation
(docs/claude-code.md, "Where hook text reaches the model"). Hooks of one event run in parallel
and their paragraphs follow completion order, so hooks whose order matters sleep first.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from hookwright.runtime.tools.files import FRESH_STATE

from .support import Project, jsonl, reply, run_once, specific

#: A hook body that echoes the tool-use id of the call it sees into its answer.
BY_CALL = "use = data['tool_use_id']\n"


def later(seconds: float, body: str) -> str:
    """`body` after a pause: the hook finishes after the ones that do not wait."""
    return f"import time\ntime.sleep({seconds})\n{body}"


def bash(call_id: str, command: str) -> dict[str, Any]:
    return {"id": call_id, "name": "Bash", "arguments": {"command": command}}


def system(text: str) -> dict[str, Any]:
    return {"role": "system", "content": text}


def tool(call_id: str, content: str, *, error: bool = False) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "tool", "tool_call_id": call_id, "content": content}
    if error:
        message["is_error"] = True
    return message


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path / "project")


# After the prompt ---------------------------------------------------------------------------------


async def test_session_start_and_prompt_text_is_one_system_message_after_the_prompt(
    project: Project, isolated_home: Path
) -> None:
    project.on("SessionStart", reply(specific("SessionStart", additionalContext="S1")))
    project.on("SessionStart", later(0.4, reply(specific("SessionStart", additionalContext="S2"))))
    project.on("SessionStart", reply("S3 plain"))
    project.on("UserPromptSubmit", reply(specific("UserPromptSubmit", additionalContext="U1")))
    project.on("UserPromptSubmit", later(0.4, reply("  U2 plain\n")))
    same = specific("UserPromptSubmit", additionalContext="U1")
    project.on("UserPromptSubmit", later(0.8, reply(same)))
    live = await run_once(project.root, isolated_home, [{"content": "ok"}], "go")
    [request] = live.calls
    assert request.messages[1:] == [
        {"role": "user", "content": "go"},
        system(
            "SessionStart:startup hook success: S3 plain\n\n"
            "SessionStart hook additional context: S1\nS2\n\n"
            "UserPromptSubmit hook additional context: U1\n\n"
            "UserPromptSubmit hook success: U2 plain\n\n"
            "UserPromptSubmit hook additional context: U1"
        ),
    ]


async def test_a_blocked_prompt_is_shown_in_claude_codes_words_and_reaches_no_model(
    project: Project, isolated_home: Path
) -> None:
    project.on("UserPromptSubmit", reply({"decision": "block", "reason": "first"}))
    project.on("UserPromptSubmit", later(0.4, reply("", 2, "second")))
    stop = project.on("Stop", "")
    live = await run_once(project.root, isolated_home, [{"content": "never"}], "go")
    assert live.calls == [] and jsonl(stop) == []
    [blocked] = live.of("prompt_blocked")
    assert blocked["message"] == (
        "UserPromptSubmit operation blocked by hook:\nfirst\n\nOriginal prompt: go"
    )
    assert (live.results[0].status, live.results[0].reason) == ("blocked", "first")


async def test_continue_false_on_the_prompt_ends_the_turn_before_the_model(
    project: Project, isolated_home: Path
) -> None:
    project.on("UserPromptSubmit", reply({"continue": False, "stopReason": "not today"}))
    stop = project.on("Stop", "")
    live = await run_once(project.root, isolated_home, [{"content": "never"}], "go")
    assert live.calls == [] and jsonl(stop) == []
    assert (live.results[0].status, live.results[0].reason) == ("stopped", "not today")


# After the tool results ---------------------------------------------------------------------------


async def test_pre_tool_use_blocks_are_the_tool_results(
    project: Project, isolated_home: Path
) -> None:
    project.on(
        "PreToolUse",
        "command = data['tool_input']['command']\n"
        "if command == 'echo a':\n"
        "    print('no a', file=sys.stderr)\n"
        "    sys.exit(2)\n"
        "if command == 'echo b':\n"
        "    print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
        "        'permissionDecision': 'deny', 'permissionDecisionReason': 'no b',\n"
        "        'additionalContext': 'about b'}}))\n"
        "if command == 'echo c':\n"
        "    print(json.dumps({'decision': 'block', 'reason': 'no c'}))\n",
        matcher="Bash",
    )
    calls = [bash("a", "echo a"), bash("b", "echo b"), bash("c", "echo c")]
    live = await run_once(project.root, isolated_home, [{"tool_calls": calls}, {"content": "done"}])
    hook = project.command("PreToolUse")
    assert live.calls[1].messages[-4:] == [
        tool("a", f"PreToolUse:Bash hook error: [{hook}]: no a\n", error=True),
        tool("b", "no b", error=True),
        tool("c", "no c", error=True),
        system("PreToolUse:Bash hook additional context: about b"),
    ]


async def test_of_two_pre_tool_use_blocks_the_last_to_finish_is_shown(
    project: Project, isolated_home: Path
) -> None:
    project.on("PreToolUse", reply("", 2, "first"), matcher="Bash")
    project.on("PreToolUse", later(0.4, reply("", 2, "second")), matcher="Bash")
    live = await run_once(
        project.root,
        isolated_home,
        [{"tool_calls": [bash("a", "touch ran.txt")]}, {"content": "done"}],
    )
    later_hook = project.command("PreToolUse", 1)
    assert live.calls[1].messages[-1] == tool(
        "a", f"PreToolUse:Bash hook error: [{later_hook}]: second\n", error=True
    )
    assert not (project.root / "ran.txt").exists()


async def test_post_tool_use_feedback_and_context_follow_the_unchanged_result(
    project: Project, isolated_home: Path
) -> None:
    both = {
        "decision": "block",
        "reason": "B1",
        **specific("PostToolUse", additionalContext="C1"),
    }
    project.on("PostToolUse", reply(both), matcher="Bash")
    project.on("PostToolUse", later(0.4, reply("", 2, "B2")), matcher="Bash")
    project.on(
        "PostToolUse",
        later(0.8, reply(specific("PostToolUse", additionalContext="  C3\n"))),
        matcher="Bash",
    )
    live = await run_once(
        project.root,
        isolated_home,
        [{"tool_calls": [bash("a", "echo out")]}, {"content": "done"}],
    )
    first, second = project.command("PostToolUse"), project.command("PostToolUse", 1)
    assert live.calls[1].messages[-2:] == [
        tool("a", "out"),
        system(
            f'PostToolUse:Bash hook blocking error from command: "{first}": B1\n\n'
            "PostToolUse:Bash hook additional context: C1\n\n"
            f'PostToolUse:Bash hook blocking error from command: "{second}": [{second}]: B2\n'
            "\n\nPostToolUse:Bash hook additional context:   C3\n"
        ),
    ]


async def test_post_tool_use_failure_feedback_names_its_event(
    project: Project, isolated_home: Path
) -> None:
    answer = {"decision": "block", "reason": "F1", **specific("PostToolUseFailure")}
    answer["hookSpecificOutput"]["additionalContext"] = "F2"
    project.on("PostToolUseFailure", reply(answer), matcher="Bash")
    live = await run_once(
        project.root,
        isolated_home,
        [{"tool_calls": [bash("a", "exit 3")]}, {"content": "done"}],
    )
    hook = project.command("PostToolUseFailure")
    result, note = live.calls[1].messages[-2:]
    assert (result["role"], result["is_error"]) == ("tool", True)
    assert note == system(
        f'PostToolUseFailure:Bash hook blocking error from command: "{hook}": F1\n\n'
        "PostToolUseFailure:Bash hook additional context: F2"
    )


async def test_a_rounds_paragraphs_go_call_by_call_then_the_batch(
    project: Project, isolated_home: Path
) -> None:
    project.on(
        "PreToolUse",
        BY_CALL + "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
        "    'additionalContext': 'PRE-' + use}}))\n",
    )
    project.on(
        "PostToolUse",
        BY_CALL + "print(json.dumps({'decision': 'block', 'reason': 'POSTB-' + use,\n"
        "    'hookSpecificOutput': {'hookEventName': 'PostToolUse',\n"
        "    'additionalContext': 'POST-' + use}}))\n",
    )
    project.on("PostToolBatch", reply(specific("PostToolBatch", additionalContext="BATCH")))
    calls = [bash("a", "echo one"), bash("b", "echo two")]
    live = await run_once(project.root, isolated_home, [{"tool_calls": calls}, {"content": "done"}])
    post = project.command("PostToolUse")
    blocking = f'PostToolUse:Bash hook blocking error from command: "{post}": POSTB-'
    assert live.calls[1].messages[-3:] == [
        tool("a", "one"),
        tool("b", "two"),
        system(
            "PreToolUse:Bash hook additional context: PRE-a\n\n"
            f"{blocking}a\n\n"
            "PostToolUse:Bash hook additional context: POST-a\n\n"
            "PreToolUse:Bash hook additional context: PRE-b\n\n"
            f"{blocking}b\n\n"
            "PostToolUse:Bash hook additional context: POST-b\n\n"
            "PostToolBatch hook additional context: BATCH"
        ),
    ]


async def test_post_tool_batch_sees_the_models_input_and_the_model_facing_results(
    project: Project, isolated_home: Path
) -> None:
    project.on(
        "PreToolUse",
        "command = data['tool_input']['command']\n"
        "if command == 'echo original':\n"
        "    print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
        "        'permissionDecision': 'allow',\n"
        "        'updatedInput': {'command': 'echo rewritten'}}}))\n"
        "if command == 'echo denied':\n"
        "    print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
        "        'permissionDecision': 'deny', 'permissionDecisionReason': 'not this'}}))\n",
    )
    batch = project.on("PostToolBatch", "")
    calls = [bash("a", "echo original"), bash("b", "echo denied")]
    await run_once(project.root, isolated_home, [{"tool_calls": calls}, {"content": "done"}])
    [seen] = jsonl(batch)
    assert seen["tool_calls"] == [
        {
            "tool_name": "Bash",
            "tool_input": {"command": "echo original"},
            "tool_use_id": "a",
            "tool_response": "rewritten",
        },
        {
            "tool_name": "Bash",
            "tool_input": {"command": "echo denied"},
            "tool_use_id": "b",
            "tool_response": "not this",
        },
    ]


# Replaced tool output -----------------------------------------------------------------------------

REPLACEMENTS: dict[str, Any] = {
    "a": {"stdout": "\n  new out  \n", "stderr": " err \n", "interrupted": False},
    "b": "a string is not a Bash result",
    "c": {"stdout": "no interrupted field", "stderr": ""},
    "d": {"stdout": "", "stderr": "", "interrupted": True, "isImage": False},
    "e": {"stdout": "", "stderr": "", "interrupted": False},
}


async def test_updated_tool_output_reads_as_bashs_own_result(
    project: Project, isolated_home: Path
) -> None:
    project.on(
        "PostToolUse",
        BY_CALL + f"out = {REPLACEMENTS!r}[use]\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PostToolUse',\n"
        "    'updatedToolOutput': out}}))\n",
    )
    batch = project.on("PostToolBatch", "")
    calls = [bash(key, "echo original") for key in REPLACEMENTS]
    live = await run_once(project.root, isolated_home, [{"tool_calls": calls}, {"content": "done"}])
    expected = [
        tool("a", "  new out\nerr"),
        tool("b", "original"),
        tool("c", "original"),
        tool("d", "<error>Command was aborted before completion</error>", error=True),
        tool("e", "(Bash completed with no output)"),
    ]
    assert live.calls[1].messages[-5:] == expected
    [seen] = jsonl(batch)
    assert [c["tool_response"] for c in seen["tool_calls"]] == [m["content"] for m in expected]


async def test_updated_tool_output_reads_as_the_file_tools_own_results(
    project: Project, isolated_home: Path
) -> None:
    (project.root / "a.txt").write_text("alpha\n")
    replacements = {
        "w": {
            "type": "create",
            "filePath": "/elsewhere/new.txt",
            "content": "x",
            "structuredPatch": [],
            "originalFile": None,
        },
        "e": {
            "filePath": "/elsewhere/edited.txt",
            "oldString": "a",
            "newString": "b",
            "originalFile": "a",
            "structuredPatch": [],
            "userModified": False,
            "replaceAll": False,
        },
        "r": {
            "type": "text",
            "file": {
                "filePath": "/elsewhere/r.txt",
                "content": "X1\nX2",
                "numLines": 2,
                "startLine": 5,
                "totalLines": 9,
            },
        },
        "x": {"type": "create", "filePath": "/elsewhere/partial.txt"},
    }
    project.on(
        "PostToolUse",
        BY_CALL + f"out = {replacements!r}[use]\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PostToolUse',\n"
        "    'updatedToolOutput': out}}))\n",
    )
    file = str(project.root / "a.txt")
    calls = [
        {"id": "w", "name": "Write", "arguments": {"file_path": "b.txt", "content": "b\n"}},
        {
            "id": "e",
            "name": "Edit",
            "arguments": {"file_path": file, "old_string": "alpha", "new_string": "beta"},
        },
        {"id": "r", "name": "Read", "arguments": {"file_path": file}},
        {"id": "x", "name": "Write", "arguments": {"file_path": "c.txt", "content": "c\n"}},
    ]
    live = await run_once(project.root, isolated_home, [{"tool_calls": calls}, {"content": "done"}])
    assert live.calls[1].messages[-4:] == [
        tool("w", f"File created successfully at: /elsewhere/new.txt {FRESH_STATE}"),
        tool("e", f"The file /elsewhere/edited.txt has been updated successfully. {FRESH_STATE}"),
        tool("r", "5\tX1\n6\tX2"),
        tool("x", f"File created successfully at: c.txt {FRESH_STATE}"),  # the path as given
    ]
    assert (project.root / "a.txt").read_text() == "beta\n"


# continue: false ----------------------------------------------------------------------------------


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse"])
async def test_continue_false_on_a_tool_event_ends_the_turn_after_the_round(
    project: Project, isolated_home: Path, event: str
) -> None:
    project.on(
        event,
        "if data['tool_use_id'] == 'a':\n"
        "    print(json.dumps({'continue': False, 'stopReason': 'enough'}))\n",
    )
    post = project.on("PostToolUse", "")
    batch = project.on("PostToolBatch", "")
    stop = project.on("Stop", "")
    calls = [bash("a", "touch one"), bash("b", "touch two")]
    live = await run_once(
        project.root, isolated_home, [{"tool_calls": calls}, {"content": "never"}]
    )
    assert (project.root / "one").exists() and (project.root / "two").exists()
    assert [i["tool_use_id"] for i in jsonl(post)] == ["a", "b"]
    assert jsonl(batch) == [] and jsonl(stop) == []
    assert len(live.calls) == 1
    assert (live.results[0].status, live.results[0].reason) == ("stopped", "enough")


async def test_continue_false_on_stop_wins_over_a_block(
    project: Project, isolated_home: Path
) -> None:
    project.on("Stop", reply({"continue": False, "stopReason": "halt"}))
    project.on("Stop", reply({"decision": "block", "reason": "go on"}))
    live = await run_once(project.root, isolated_home, [{"content": "first"}, {"content": "never"}])
    assert len(live.calls) == 1
    assert (live.results[0].status, live.results[0].reason) == ("stopped", "halt")


# Stop ---------------------------------------------------------------------------------------------

ONCE = "if data['stop_hook_active']:\n    sys.exit(0)\n"


async def test_stop_blocks_are_user_messages_and_context_a_system_message(
    project: Project, isolated_home: Path
) -> None:
    project.on("Stop", ONCE + reply({"decision": "block", "reason": "B1"}))
    project.on("Stop", later(0.4, ONCE + reply("", 2, "B2")))
    project.on("Stop", later(0.8, ONCE + reply(specific("Stop", additionalContext="C3"))))
    live = await run_once(
        project.root, isolated_home, [{"content": "first"}, {"content": "second"}]
    )
    second = project.command("Stop", 1)
    assert live.calls[1].messages[-4:] == [
        {"role": "assistant", "content": "first"},
        {"role": "user", "content": "Stop hook feedback:\nB1"},
        {"role": "user", "content": f"Stop hook feedback:\n[{second}]: B2\n"},
        system("Stop hook additional context: C3"),
    ]
    assert live.results[0].final_text == "second"


async def test_stop_context_alone_is_a_reminder_that_makes_the_loop_go_on(
    project: Project, isolated_home: Path
) -> None:
    project.on("Stop", ONCE + reply(specific("Stop", additionalContext="C1")))
    project.on("Stop", later(0.4, ONCE + reply(specific("Stop", additionalContext="C2"))))
    project.on("Stop", reply("plain stdout is not context on Stop"))
    live = await run_once(
        project.root, isolated_home, [{"content": "first"}, {"content": "second"}]
    )
    assert live.calls[1].messages[-1] == {
        "role": "user",
        "content": "<system-reminder>\nStop hook additional context: C1\n\n"
        "Stop hook additional context: C2\n</system-reminder>",
    }


# Subagents ----------------------------------------------------------------------------------------


async def test_subagent_start_context_and_subagent_stop_feedback(
    project: Project, isolated_home: Path
) -> None:
    project.on("SubagentStart", reply(specific("SubagentStart", additionalContext="sub ctx")))
    project.on("SubagentStop", ONCE + reply({"decision": "block", "reason": "not yet"}))
    agent_call = {
        "id": "t",
        "name": "Agent",
        "arguments": {"description": "d", "prompt": "sub task", "subagent_type": "helper"},
    }
    live = await run_once(
        project.root,
        isolated_home,
        [
            {"tool_calls": [agent_call]},
            {"content": "sub first"},
            {"content": "sub second"},
            {"content": "done"},
        ],
    )
    first, second = live.calls[1], live.calls[2]
    assert first.messages[1:] == [
        {"role": "user", "content": "sub task"},
        system("SubagentStart hook additional context: sub ctx"),
    ]
    assert second.messages[-2:] == [
        {"role": "assistant", "content": "sub first"},
        {"role": "user", "content": "Stop hook feedback:\nnot yet"},
    ]


# Other hook types ---------------------------------------------------------------------------------


class _Endpoint(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = json.dumps({"decision": "block", "reason": "from http"}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def http_hook() -> Iterator[str]:
    """The URL of a loopback HTTP hook that blocks."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


async def test_http_and_prompt_hooks_are_named_by_url_and_prompt(
    project: Project, isolated_home: Path, http_hook: str
) -> None:
    project.add("PostToolUse", {"type": "http", "url": http_hook})
    prompt = {"type": "prompt", "prompt": "judge $ARGUMENTS", "continueOnBlock": True}
    project.add("PostToolUse", prompt)
    live = await run_once(
        project.root,
        isolated_home,
        [
            {"tool_calls": [bash("a", "echo out")]},
            {"match": "judge", "content": json.dumps({"ok": False, "reason": "nope"})},
            {"content": "done"},
        ],
    )
    main = live.calls[-1].messages
    assert main[-2] == tool("a", "out")
    paragraphs = set(main[-1]["content"].split("\n\n"))
    assert paragraphs == {
        f'PostToolUse:Bash hook blocking error from command: "{http_hook}": from http',
        'PostToolUse:Bash hook blocking error from command: "judge $ARGUMENTS": '
        "[judge $ARGUMENTS]: nope",
    }


async def test_async_hook_reports_its_message_and_context_as_one_paragraph(
    project: Project, isolated_home: Path
) -> None:
    marker = project.root / "async-done"
    answer = {"systemMessage": "sys", **specific("UserPromptSubmit", additionalContext="ctx")}
    project.on(
        "UserPromptSubmit",
        f"print({json.dumps(answer)!r})\nopen({str(marker)!r}, 'w').close()\n",
        flags={"async": True},
    )
    wait = f"while [ ! -f {marker} ]; do sleep 0.05; done; sleep 1; echo waited"
    live = await run_once(
        project.root,
        isolated_home,
        [{"tool_calls": [bash("a", wait)]}, {"content": "done"}],
    )
    assert live.calls[1].messages[-2:] == [tool("a", "waited"), system("sys\nctx")]


# PermissionRequest --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("decision", "shown"),
    [
        ({"behavior": "deny", "message": "not now"}, "not now"),
        ({"behavior": "deny"}, "Permission denied by hook"),
    ],
)
async def test_permission_request_deny_message_is_the_tool_result(
    project: Project, isolated_home: Path, decision: dict[str, Any], shown: str
) -> None:
    project.on("PermissionRequest", reply(specific("PermissionRequest", decision=decision)))

    async def nobody(*_: Any) -> bool:
        raise AssertionError("the hook decided; nobody is asked")

    live = await run_once(
        project.root,
        isolated_home,
        [{"tool_calls": [bash("a", "touch ran.txt")]}, {"content": "done"}],
        permission_mode="default",
        interactive=True,
        ask_user=nobody,
    )
    assert live.calls[1].messages[-1] == tool("a", shown, error=True)
    assert not (project.root / "ran.txt").exists()
