"""`hookwright serve` over a real socket: uvicorn on 127.0.0.1 and the `websockets` client."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import typer
from tests.procs import running
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from hookwright.cli.serve import settings_from_options
from hookwright.runtime.models import Message, ModelResponse, TextCallback, ToolDefinition
from hookwright.runtime.models.scripted import ScriptedModel

from .conftest import LiveServer, ServerFactory
from .elicitation_project import calling, elicitation_project, hook_events, lines

RECV_TIMEOUT = 30.0
REMEMBER = {"role": "system", "content": "H:remember"}


class Client:
    def __init__(self, connection: ClientConnection) -> None:
        self.connection = connection

    def send(self, frame: dict[str, Any] | str) -> None:
        self.connection.send(frame if isinstance(frame, str) else json.dumps(frame))

    def recv(self) -> dict[str, Any]:
        frame = json.loads(self.connection.recv(timeout=RECV_TIMEOUT))
        assert isinstance(frame, dict)
        return frame

    def until_end(self) -> list[dict[str, Any]]:
        """Frames up to and including the next done or error frame."""
        frames = [self.recv()]
        while frames[-1]["type"] not in ("done", "error"):
            frames.append(self.recv())
        return frames

    def chat(
        self, message: str, history: list[dict[str, Any]], **extra: Any
    ) -> list[dict[str, Any]]:
        self.send({"type": "chat", "history": history, "message": message, **extra})
        return self.until_end()

    def error_for(self, frame: dict[str, Any] | str) -> str:
        self.send(frame)
        reply = self.recv()
        assert reply["type"] == "error", reply
        return str(reply["message"])


@contextmanager
def client(server: LiveServer) -> Iterator[Client]:
    with connect(
        server.ws_url, origin=Origin(server.origin), open_timeout=RECV_TIMEOUT
    ) as connection:
        yield Client(connection)


def kinds(frames: list[dict[str, Any]]) -> list[str]:
    """Frame types in order, with runs of text frames collapsed into one."""
    out: list[str] = []
    for frame in frames:
        if not (frame["type"] == "text" and out and out[-1] == "text"):
            out.append(frame["type"])
    return out


def of_type(frames: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [frame for frame in frames if frame["type"] == kind]


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


# A conversation through the client ---------------------------------------------------------


def test_persistent_hook_travels_through_the_client_history(serve: ServerFactory) -> None:
    model = ScriptedModel.from_turns(
        [
            {"content": "Let me read.", "tool_calls": [call("Read", file_path="notes.txt")]},
            {"content": "Answer one."},
            {"content": "Answer two."},
            {"content": "Answer three."},
        ]
    )
    server = serve(model=lambda: model, skills=("memory", "flow"), trust=True)
    with client(server) as ws:
        first = ws.chat("read the notes", [])
        assert kinds(first) == ["hook", "text", "tool_call", "tool_result", "text", "done"]
        hook = first[0]
        assert hook == {
            "type": "hook",
            "name": "remember",
            "role": "system",
            "content": "H:remember",
            "file": "skills/memory/hooks/remember.md",  # the page's file badge
        }
        (tool_call,) = of_type(first, "tool_call")
        (tool_result,) = of_type(first, "tool_result")
        assert tool_call["name"] == "Read"
        assert tool_call["input"] == {"file_path": "notes.txt"}
        assert tool_result["id"] == tool_call["id"]
        assert "the notes" in tool_result["content"]
        assert tool_result["is_error"] is False
        done = first[-1]
        assert done["status"] == "completed"
        assert done["text"] == "Answer one."
        assert "".join(f["delta"] for f in first if f["type"] == "text") == (
            "Let me read.Answer one."
        )
        history = done["messages"]
        # Only the persistent hook is handed back; the non-persistent ones stayed on the server.
        assert [m["role"] for m in history] == ["user", "system", "assistant", "tool", "assistant"]
        assert history[0] == {"role": "user", "content": "read the notes"}
        kept = {**REMEMBER, "_hook": "remember", "_hook_file": "skills/memory/hooks/remember.md"}
        assert history[1] == kept

        second = ws.chat("and again", history)
        assert kinds(second) == ["hook", "text", "done"]
        seen = model.calls[-1].messages
        assert seen.count(REMEMBER) == 2
        assert not any("_hook" in m or "_hook_file" in m for m in seen)
        assert {"role": "system", "content": "H:start"} in seen
        history += second[-1]["messages"]
        assert history.count(kept) == 2

        third = ws.chat("skills off", history, skills=[])
        assert kinds(third) == ["text", "done"]
        seen = model.calls[-1].messages
        assert seen.count(REMEMBER) == 2
        assert {"role": "system", "content": "H:start"} not in seen
        assert third[-1]["messages"] == [
            {"role": "user", "content": "skills off"},
            {"role": "assistant", "content": "Answer three."},
        ]


def test_skills_named_by_the_request_replace_the_server_list(serve: ServerFactory) -> None:
    model = ScriptedModel.from_turns([{"content": "ok"}])
    server = serve(model=lambda: model, trust=True)
    with client(server) as ws:
        frames = ws.chat("hi", [], skills=["memory"])
    assert kinds(frames) == ["hook", "text", "done"]
    assert model.calls[0].messages.count(REMEMBER) == 1
    assert {"role": "system", "content": "H:start"} not in model.calls[0].messages


def test_dialect_hook_decisions_stream_as_hook_result_frames(
    serve: ServerFactory, project: Path
) -> None:
    hooks = project / ".hookwright"
    hooks.mkdir()
    (hooks / "guard.py").write_text(
        "from hookwright import deny\ndef no_bash(inp):\n    return deny('no shell here')\n"
    )
    (hooks / "hooks.yaml").write_text(
        "hooks:\n  - {name: no-bash, event: PreToolUse, matcher: Bash, call: 'guard:no_bash'}\n"
    )
    model = ScriptedModel.from_turns(
        [{"tool_calls": [call("Bash", command="echo hi")]}, {"content": "Fine."}]
    )
    server = serve(model=lambda: model, trust=True)
    with client(server) as ws:
        frames = ws.chat("run it", [])
    assert kinds(frames) == ["tool_call", "hook_result", "tool_result", "text", "done"]
    (decision,) = of_type(frames, "hook_result")
    assert decision["event"] == "PreToolUse"
    assert decision["hook"] == "no-bash"
    assert decision["decision"] == "deny"
    assert decision["reason"] == "no shell here"
    (result,) = of_type(frames, "tool_result")
    assert result["is_error"] is True
    assert result["content"] == "no shell here"


def test_the_page_is_served(serve: ServerFactory) -> None:
    server = serve()
    with urllib.request.urlopen(server.http_url, timeout=RECV_TIMEOUT) as response:
        page = response.read().decode()
    assert 'src="app.js"' in page
    with urllib.request.urlopen(server.origin + "/app.js", timeout=RECV_TIMEOUT) as response:
        assert "localStorage" in response.read().decode()


# Bad input ---------------------------------------------------------------------------------


def test_bad_frames_get_clear_errors_and_the_socket_stays_usable(serve: ServerFactory) -> None:
    model = ScriptedModel.from_turns([{"content": "Still here."}])
    server = serve(model=lambda: model)
    chat: dict[str, Any] = {"type": "chat", "history": [], "message": "hi"}
    with client(server) as ws:
        assert ws.error_for("{not json").startswith("malformed JSON: ")
        assert "nest" in ws.error_for("[" * 5000 + "]" * 5000)
        assert "digits" in ws.error_for('{"type": "chat", "n": ' + "9" * 5000 + "}")
        assert ws.error_for("[1, 2]") == "a frame must be a JSON object, got array"
        assert ws.error_for({"message": "hi"}).startswith("field 'type' is missing")
        assert ws.error_for({"type": "ping"}) == (
            "unknown frame type 'ping'; expected one of: chat, permission, elicitation"
        )
        missing = ws.error_for({"type": "chat", "history": []})
        assert missing == "invalid chat frame: message: Field required"
        assert "message: String should have at least 1 character" in ws.error_for(
            {**chat, "message": ""}
        )
        assert "history[0].role: Input should be 'system', 'user', 'assistant' or 'tool'" in (
            ws.error_for({**chat, "history": [{"role": "robot", "content": "x"}]})
        )
        assert "history[0]: a tool message needs tool_call_id" in ws.error_for(
            {**chat, "history": [{"role": "tool", "content": "x"}]}
        )
        assert "history: Input should be a valid list" in ws.error_for({**chat, "history": {}})
        assert "colour: Extra inputs are not permitted" in ws.error_for({**chat, "colour": 1})
        assert "skills[0]: String should match pattern" in ws.error_for(
            {**chat, "skills": ["../etc"]}
        )
        unknown = ws.error_for({**chat, "skills": ["nope"]})
        assert unknown.startswith("unknown skill: nope; skills in ")
        assert unknown.endswith(": flow, memory")
        assert model.calls == []

        frames = ws.chat("hi", [])
    assert frames[-1]["type"] == "done"
    assert frames[-1]["text"] == "Still here."


def test_oversize_frames_and_long_histories_are_refused(serve: ServerFactory) -> None:
    model = ScriptedModel.from_turns([{"content": "Small is fine."}])
    server = serve(model=lambda: model, max_history=3)
    limit = 1024 * 1024
    with client(server) as ws:
        big = json.dumps({"type": "chat", "history": [], "message": "x" * limit})
        assert ws.error_for(big) == (
            f"frame of {len(big)} bytes is over the limit of {limit} bytes"
        )
        history = [{"role": "user", "content": str(n)} for n in range(4)]
        assert ws.error_for({"type": "chat", "history": history, "message": "hi"}) == (
            "history has 4 messages; the limit is 3 (start a new conversation or drop old messages)"
        )
        assert model.calls == []
        frames = ws.chat("hi", history[:3])
    assert frames[-1]["text"] == "Small is fine."
    assert len(model.calls[0].messages) == 5


# Cancellation ------------------------------------------------------------------------------


class BlockingModel:
    """Streams one delta, then waits forever; records that its call was cancelled."""

    name = "blocking"

    def __init__(self) -> None:
        self.cancelled = threading.Event()

    async def complete(
        self,
        messages: list[Message],
        tools: list[ToolDefinition] | None = None,
        *,
        options: dict[str, Any] | None = None,
        on_text: TextCallback | None = None,
        model: str | None = None,
    ) -> ModelResponse:
        if on_text is not None:
            on_text("thinking")
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        raise AssertionError("unreachable: the wait never ends")


def test_a_client_that_disconnects_mid_stream_cancels_its_run(serve: ServerFactory) -> None:
    model = BlockingModel()
    server = serve(model=lambda: model)
    with client(server) as ws:
        ws.send({"type": "chat", "history": [], "message": "take your time"})
        assert ws.recv() == {"type": "text", "delta": "thinking"}
        busy = ws.error_for({"type": "chat", "history": [], "message": "second"})
        assert busy.startswith("a chat request is already running on this connection")
        assert not model.cancelled.is_set()
    assert model.cancelled.wait(timeout=RECV_TIMEOUT), "the run was not cancelled"

    quick = ScriptedModel.from_turns([{"content": "after"}])
    other = serve(model=lambda: quick)
    with client(other) as ws:
        assert ws.chat("hello", [])[-1]["text"] == "after"


def test_a_page_gone_mid_turn_interrupts_the_turn_and_its_interrupt_hooks_run(
    serve: ServerFactory, project: Path
) -> None:
    """Closing the page (its socket) is the person's stop: the run is cancelled and the
    Interrupt hooks run with the session's ids, as Codex runs them on Ctrl-C."""
    told = project / "interrupted.json"
    hooks = project / ".hookwright"
    hooks.mkdir()
    (hooks / "told.py").write_text(
        "import json, os, pathlib\n"
        "def note(inp):\n"  # written whole, then named: the test never reads half a file
        f"    pathlib.Path({str(told) + '.part'!r}).write_text(\n"
        "        json.dumps([inp.event.value, inp.session_id, inp.turn_id]))\n"
        f"    os.replace({str(told) + '.part'!r}, {str(told)!r})\n"
    )
    (hooks / "hooks.yaml").write_text(
        "hooks:\n  - {name: told, event: Interrupt, call: 'told:note'}\n"
    )
    model = BlockingModel()
    server = serve(model=lambda: model, trust=True)
    with client(server) as ws:
        ws.send({"type": "chat", "history": [], "message": "take your time"})
        assert ws.recv() == {"type": "text", "delta": "thinking"}
        assert not told.exists()
    assert model.cancelled.wait(timeout=RECV_TIMEOUT), "the run was not cancelled"
    deadline = time.monotonic() + RECV_TIMEOUT
    while not told.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    event, session_id, turn_id = json.loads(told.read_text())
    assert event == "Interrupt" and session_id and turn_id


def test_a_page_gone_during_session_start_stops_it_and_the_interrupt_hooks_run(
    serve: ServerFactory, project: Path
) -> None:
    """Closing the page while a SessionStart hook runs: the hook is stopped, no model is
    asked, and the Interrupt hooks run, as Codex runs them on Ctrl-C at that point."""
    told = project / "interrupted.json"
    started = project / "start.pid"
    hooks = project / ".hookwright"
    hooks.mkdir()
    (hooks / "told.py").write_text(
        "import json, os, pathlib\n"
        "def note(inp):\n"
        f"    pathlib.Path({str(told) + '.part'!r}).write_text(\n"
        "        json.dumps([inp.event.value, inp.session_id, inp.turn_id]))\n"
        f"    os.replace({str(told) + '.part'!r}, {str(told)!r})\n"
    )
    (hooks / "hooks.yaml").write_text(
        "hooks:\n  - {name: told, event: Interrupt, call: 'told:note'}\n"
    )
    slow = {"type": "command", "command": f"echo $$ > {started}; exec sleep 60", "timeout": 120}
    (project / ".claude").mkdir()
    settings = {"hooks": {"SessionStart": [{"hooks": [slow]}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    model = BlockingModel()
    server = serve(model=lambda: model, trust=True)
    with client(server) as ws:
        ws.send({"type": "chat", "history": [], "message": "hello"})
        deadline = time.monotonic() + RECV_TIMEOUT
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists() and not told.exists()
    deadline = time.monotonic() + RECV_TIMEOUT
    while not told.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    event, session_id, turn_id = json.loads(told.read_text())
    assert event == "Interrupt" and session_id and turn_id
    assert not model.cancelled.is_set(), "the model was never asked"
    deadline = time.monotonic() + RECV_TIMEOUT
    while running(int(started.read_text())) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(int(started.read_text())), "the SessionStart hook was stopped"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("nonsense", "unknown model 'nonsense': use scripted:PATH"),
        ("scripted:missing.yaml", "missing.yaml: scripted model file not found"),
    ],
)
def test_a_model_that_cannot_be_built_is_an_error_frame(
    serve: ServerFactory, spec: str, expected: str
) -> None:
    server = serve(model=spec)
    with client(server) as ws:
        message = ws.error_for({"type": "chat", "history": [], "message": "hi"})
    assert expected in message


# Command-line options ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"skill": ["memory", "nope"]}, "unknown skill nope: not in "),
        ({"model": "bogus"}, "unknown model 'bogus'"),
        ({"permission_mode": "yolo"}, "unknown permission mode 'yolo'"),
    ],
)
def test_serve_refuses_bad_options_at_startup(
    project: Path, capsys: pytest.CaptureFixture[str], options: dict[str, Any], expected: str
) -> None:
    arguments: dict[str, Any] = {
        "project": project,
        "model": None,
        "skill": None,
        "trust": False,
        "permission_mode": "default",
        **options,
    }
    with pytest.raises(typer.Exit) as raised:
        settings_from_options(**arguments)
    assert raised.value.exit_code == 2
    assert expected in capsys.readouterr().err


def test_serve_options_become_settings(project: Path) -> None:
    settings = settings_from_options(
        project=project,
        model=None,
        skill=["memory", "flow", "memory"],
        trust=True,
        permission_mode="acceptEdits",
        max_history=7,
    )
    assert settings.project_dir == project.resolve()
    assert settings.skills == ("memory", "flow")
    assert settings.trust is True
    assert settings.permission_mode == "acceptEdits"
    assert settings.max_history == 7


# Permission prompts over the socket ------------------------------------------------------


def test_permission_prompts_are_opt_in_and_answers_name_a_waiting_prompt(
    serve: ServerFactory, project: Path
) -> None:
    touch = call("Bash", command="touch made.txt")
    model = ScriptedModel.from_turns(
        [
            {"tool_calls": [touch]},
            {"content": "Not allowed."},
            {"tool_calls": [touch]},
            {"content": "Made."},
        ]
    )
    server = serve(model=lambda: model, trust=True)
    with client(server) as ws:
        silent = ws.chat("make it", [])
        assert of_type(silent, "permission_request") == []
        [denied] = of_type(silent, "tool_result")
        assert denied["is_error"] and not (project / "made.txt").exists()
        assert ws.error_for({"type": "permission", "id": "perm-nope", "allow": True}) == (
            "no permission prompt 'perm-nope' is waiting"
        )
        ws.send({"type": "chat", "history": [], "message": "make it", "permission_prompts": True})
        frames = [ws.recv()]
        while frames[-1]["type"] != "permission_request":
            frames.append(ws.recv())
        asked = frames[-1]
        assert asked["tool"] == "Bash" and asked["input"] == {"command": "touch made.txt"}
        assert asked["reason"] == "Bash needs permission" and asked["timeout"] == 300.0
        ws.send({"type": "permission", "id": asked["id"], "allow": True})
        rest = ws.until_end()
    assert of_type(rest, "permission_closed") == [
        {"type": "permission_closed", "id": asked["id"], "allowed": True, "by": "user"}
    ]
    assert (project / "made.txt").exists()
    assert rest[-1]["type"] == "done" and rest[-1]["text"] == "Made."


# MCP elicitation prompts over the socket ---------------------------------------------------


def until_type(ws: Client, kind: str) -> list[dict[str, Any]]:
    frames = [ws.recv()]
    while frames[-1]["type"] not in (kind, "done", "error"):
        frames.append(ws.recv())
    assert frames[-1]["type"] == kind, frames
    return frames


def test_elicitation_answers_are_checked_against_the_schema_before_the_server_gets_them(
    serve: ServerFactory, project: Path
) -> None:
    elicitation_project(project)
    model = ScriptedModel.from_turns(calling("profile"))
    server = serve(model=lambda: model, trust=True, permission_mode="bypassPermissions")
    with client(server) as ws:
        ws.send({"type": "chat", "history": [], "message": "profile", "permission_prompts": True})
        asked = until_type(ws, "elicitation_request")[-1]
        assert (asked["server"], asked["message"], asked["mode"]) == (
            "forms",
            "Tell me about you",
            "form",
        )
        schema = asked["requested_schema"]
        assert schema["required"] == ["name", "age", "color"]
        assert schema["properties"]["color"]["enum"] == ["red", "green", "blue"]
        assert asked["timeout"] == 300.0
        assert hook_events(project)[-2:] == [
            ("Elicitation", ""),
            ("Notification", "elicitation_dialog"),
        ], "the dialog notification fires before the page is asked"
        hostile = [
            ({"name": "Ada", "age": "41", "color": "red"}, "age: expected an integer, got string"),
            (
                {"name": "Ada", "age": 41.5, "color": "red"},
                "age: expected an integer, got number 41.5",
            ),
            ({"name": ["Ada"], "age": 41, "color": "red"}, "name: expected a string, got array"),
            (
                {"name": "Ada", "age": 41, "color": "pink"},
                "color: 'pink' is not one of: red, green, blue",
            ),
            (
                {"name": "Ada", "age": 41, "color": "red", "subscribed": "yes"},
                "subscribed: expected true or false, got string",
            ),
            ({"name": "Ada", "color": "red"}, "required: age"),
            ({"name": "Ada", "age": 41, "color": "red", "admin": True}, "unknown field: admin"),
        ]
        for content, error in hostile:
            ws.send(
                {"type": "elicitation", "id": asked["id"], "action": "accept", "content": content}
            )
            assert ws.recv() == {"type": "elicitation_invalid", "id": asked["id"], "error": error}
        assert (
            ws.error_for(
                {"type": "elicitation", "id": asked["id"], "action": "accept", "content": "Ada"}
            )
            == "invalid elicitation frame: content: Input should be a valid dictionary"
        )
        assert ws.error_for({"type": "elicitation", "id": "elicit-nope", "action": "cancel"}) == (
            "no elicitation prompt 'elicit-nope' is waiting"
        )
        assert lines(project / "calls.jsonl") == [], "nothing reached the server yet"
        good = {"name": "Ada", "age": 41, "color": "green", "subscribed": True}
        ws.send({"type": "elicitation", "id": asked["id"], "action": "accept", "content": good})
        rest = ws.until_end()
    assert of_type(rest, "elicitation_closed") == [
        {"type": "elicitation_closed", "id": asked["id"], "action": "accept", "by": "user"}
    ]
    received = {**good, "height": 1.5, "topics": []}
    assert lines(project / "calls.jsonl") == [
        {"tool": "profile", "action": "accept", "data": received}
    ]
    [result] = of_type(rest, "tool_result")
    assert result["content"] == f"profile:accept:{json.dumps(received, sort_keys=True)}"
    results = [
        e for e in lines(project / "hooks.jsonl") if e["hook_event_name"] == "ElicitationResult"
    ]
    assert [(e["action"], e["content"]) for e in results] == [("accept", good)]


def test_an_unanswered_elicitation_is_cancelled_after_the_timeout(
    serve: ServerFactory, project: Path
) -> None:
    elicitation_project(project)
    model = ScriptedModel.from_turns(calling("visit"))
    server = serve(
        model=lambda: model, trust=True, permission_mode="bypassPermissions", permission_timeout=1.0
    )
    with client(server) as ws:
        ws.send({"type": "chat", "history": [], "message": "visit", "permission_prompts": True})
        asked = until_type(ws, "elicitation_request")[-1]
        assert (asked["mode"], asked["url"], asked["elicitation_id"]) == (
            "url",
            "https://example.test/login?a=1",
            "el-7",
        )
        assert asked["requested_schema"] is None
        rest = ws.until_end()
    assert of_type(rest, "elicitation_closed") == [
        {"type": "elicitation_closed", "id": asked["id"], "action": "cancel", "by": "timeout"}
    ]
    assert "MCP server forms: no answer within 1 s; cancelled" in [
        f["text"] for f in of_type(rest, "notice")
    ]
    assert lines(project / "calls.jsonl") == [{"tool": "visit", "action": "cancel"}]
    [result] = of_type(rest, "tool_result")
    assert result["content"] == "visited:cancel"


def test_without_prompts_nobody_is_asked_and_the_elicitation_is_cancelled(
    serve: ServerFactory, project: Path
) -> None:
    elicitation_project(project)
    model = ScriptedModel.from_turns(calling("profile"))
    server = serve(model=lambda: model, trust=True, permission_mode="bypassPermissions")
    with client(server) as ws:
        frames = ws.chat("profile", [])
    assert of_type(frames, "elicitation_request") == []
    assert lines(project / "calls.jsonl") == [{"tool": "profile", "action": "cancel", "data": None}]


def test_a_completed_url_elicitation_fires_elicitation_complete_after_the_call(
    serve: ServerFactory, project: Path
) -> None:
    elicitation_project(project)
    model = ScriptedModel.from_turns(calling("sign_in"))
    server = serve(model=lambda: model, trust=True, permission_mode="bypassPermissions")
    with client(server) as ws:
        ws.send({"type": "chat", "history": [], "message": "sign", "permission_prompts": True})
        asked = until_type(ws, "elicitation_request")[-1]
        ws.send({"type": "elicitation", "id": asked["id"], "action": "accept"})
        rest = ws.until_end()
    assert of_type(rest, "tool_result")[0]["content"] == "signed_in:accept"
    assert lines(project / "calls.jsonl") == [{"tool": "sign_in", "action": "accept"}]
    assert hook_events(project) == [
        ("Elicitation", ""),
        ("Notification", "elicitation_url_dialog"),
        ("ElicitationResult", ""),
        ("PostToolUse", "mcp__forms__sign_in"),
        ("Notification", "elicitation_response"),
        ("Notification", "elicitation_complete"),
        ("SessionEnd", ""),
    ]
    [complete] = [
        e
        for e in lines(project / "hooks.jsonl")
        if e.get("notification_type") == "elicitation_complete"
    ]
    assert complete["message"] == 'Elicitation for server "forms" completed'
