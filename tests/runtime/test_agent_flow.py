"""End to end: one scripted session through the reference agent, every checkpoint recorded.

A recording hook on every event captures the order of events and the exact input fields, for a
session with planning, two tool rounds, a denied tool, a failed tool, a subagent, a Stop block
and a compaction.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookwright import Event, HookEngine, HookInput, HookResult, allow, block, deny
from hookwright.runtime.agent import Agent, AgentConfig
from hookwright.runtime.models.scripted import ScriptedModel
from hookwright.runtime.subagent import AgentTool
from hookwright.runtime.tools import default_tools


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


TURNS: list[dict[str, Any]] = [
    {"content": "PLAN: tools\n1. read notes\n2. clean up"},
    {
        "content": "Reading.",
        "tool_calls": [call("Read", file_path="notes.txt"), call("Bash", command="rm -rf /")],
    },
    {
        "content": "Trying a command and a helper.",
        "tool_calls": [
            call("Bash", command="echo oops >&2; exit 3"),
            call(
                "Agent",
                prompt="Summarize notes.txt",
                description="summarize",
                subagent_type="Explore",
            ),
        ],
    },
    {"content": "Sub: notes say hello."},
    {"content": "All done."},
    {"content": "All done, checked again."},
    {"content": "Summary of the earlier conversation."},
    {"content": "Second answer."},
]


class Recorder:
    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self.blocked_stop = False

    def __call__(self, inp: HookInput) -> HookResult | None:
        wire = inp.to_wire()
        self.seen.append((inp.event.value, json.loads(json.dumps(wire, default=str))))
        if inp.event is Event.PreToolUse and inp.tool_input.get("command") == "rm -rf /":
            return deny("no rm -rf /")
        if inp.event is Event.PermissionRequest and inp.tool_name == "Bash":
            return allow()
        if inp.event is Event.Stop and not self.blocked_stop:
            self.blocked_stop = True
            return block("check your work once more")
        return None

    def events(self) -> list[str]:
        return [name for name, _ in self.seen]

    def of(self, event: str) -> list[dict[str, Any]]:
        return [wire for name, wire in self.seen if name == event]


@pytest.fixture
def session(tmp_path: Path, isolated_home: Path) -> Any:
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("hello\n")
    engine = HookEngine(audit_path=tmp_path / "audit.jsonl")
    recorder = Recorder()
    for event in Event:
        engine.add(recorder, event, name=f"rec-{event.value}")
    model = ScriptedModel.from_turns(TURNS)
    config = AgentConfig(project_dir=project, home=isolated_home, planning=True)
    tools = default_tools()
    events: list[dict[str, Any]] = []
    agent = Agent(engine, model, tools, config, session_id="sess-1", on_event=events.append)
    tools.register(AgentTool(agent))
    yield agent, recorder, model, events, project
    engine.close()


EXPECTED_ORDER = [
    "SessionStart",
    "UserPromptSubmit",
    "PrePlanning",
    "PreContextBuild", "PostContextBuild", "PreModelCall", "PostModelCall",
    "PreAgentStep",
    "PreContextBuild", "PostContextBuild", "PreModelCall", "PostModelCall",
    "PreToolUse", "PermissionRequest", "PostToolUse",
    "PreToolUse",
    "PostToolBatch",
    "PreAgentStep",
    "PreContextBuild", "PostContextBuild", "PreModelCall", "PostModelCall",
    "PreToolUse", "PermissionRequest", "PostToolUseFailure",
    "PreToolUse", "PermissionRequest", "SubagentStart",
    "PreAgentStep", "PreContextBuild", "PostContextBuild", "PreModelCall", "PostModelCall",
    "SubagentStop",
    "PostToolUse",
    "PostToolBatch",
    "PreAgentStep",
    "PreContextBuild", "PostContextBuild", "PreModelCall", "PostModelCall",
    "Stop",
    "PreAgentStep",
    "PreContextBuild", "PostContextBuild", "PreModelCall", "PostModelCall",
    "Stop",
    "UserPromptSubmit",
    "PreAgentStep",
    "PreCompact", "SessionStart", "PostCompact",
    "PreContextBuild", "PostContextBuild", "PreModelCall", "PostModelCall",
    "Stop",
    "SessionEnd",
]  # fmt: skip


async def test_every_checkpoint_fires_in_order_with_exact_fields(session: Any) -> None:
    agent, recorder, model, events, project = session
    await agent.start()
    first = await agent.run("Tidy the project.")
    assert first.status == "completed"
    assert first.final_text == "All done, checked again."
    agent.config.compact_tokens = 1
    agent.config.planning = False
    agent.config.keep_recent = 2
    second = await agent.run("And now?")
    assert second.final_text == "Second answer."
    await agent.close("prompt_input_exit")

    assert recorder.events() == EXPECTED_ORDER

    transcript = agent.transcript_path
    common = {
        "session_id": "sess-1",
        "cwd": str(project),
        "transcript_path": transcript,
        "permission_mode": "default",
    }
    start = recorder.of("SessionStart")[0]
    assert start == {
        **common,
        **{k: start[k] for k in ("channel", "chat_id", "workspace_id", "run_id", "project_dir")},
        "hook_event_name": "SessionStart",
        "source": "startup",
        "effort": {"level": "high"},
    }
    compacted = recorder.of("SessionStart")[1]
    assert (compacted["source"], compacted["model"]) == ("compact", "scripted")

    prompt = recorder.of("UserPromptSubmit")[0]
    assert prompt["prompt"] == "Tidy the project."
    assert prompt["turn_id"].startswith("turn-")
    assert {k: prompt[k] for k in common} == common
    assert "agent_id" not in prompt

    steps = recorder.of("PreAgentStep")
    assert [(s["round"], s["first"]) for s in steps if "agent_id" not in s] == [
        (1, True),
        (2, False),
        (3, False),
        (4, False),
        (1, True),
    ]

    pre_model = recorder.of("PreModelCall")
    assert pre_model[0]["tools"] == []
    assert [t["function"]["name"] for t in pre_model[1]["tools"]] == [
        "Bash",
        "Read",
        "Write",
        "Edit",
        "Glob",
        "Grep",
        "Agent",
    ]
    assert [p["iteration"] for p in pre_model if "agent_id" not in p][:5] == [0, 1, 2, 3, 4]
    post_model = recorder.of("PostModelCall")
    assert post_model[1]["response"]["tool_calls"][0]["function"]["name"] == "Read"

    pre_tools = recorder.of("PreToolUse")
    read, rm, failing, _agent_call = pre_tools
    assert read["tool_name"] == "Read"
    assert read["tool_input"] == {"file_path": str(project / "notes.txt")}  # as Claude Code
    assert read["tool_use_id"]
    assert rm["tool_input"] == {"command": "rm -rf /"}
    post_read = recorder.of("PostToolUse")[0]
    assert post_read["tool_name"] == "Read"
    assert post_read["tool_use_id"] == read["tool_use_id"]
    assert post_read["tool_response"]["file"]["content"].rstrip("\n") == "hello"
    assert post_read["tool_result"]["is_error"] is False

    read_check, permission, agent_check = recorder.of("PermissionRequest")
    assert (read_check["tool_name"], read_check["permission_prompt"]) == ("Read", False)
    assert (agent_check["tool_name"], agent_check["permission_prompt"]) == ("Agent", False)
    assert permission["permission_prompt"] is True
    assert permission["tool_name"] == "Bash"
    assert permission["tool_input"] == {"command": "echo oops >&2; exit 3"}
    failure = recorder.of("PostToolUseFailure")[0]
    assert failure["tool_use_id"] == failing["tool_use_id"]
    assert failure["error"].startswith("Exit code 3")

    sub_start = recorder.of("SubagentStart")[0]
    assert sub_start["agent_type"] == "Explore"
    agent_id = sub_start["agent_id"]
    inside = [wire for name, wire in recorder.seen if wire.get("agent_id") == agent_id]
    assert [wire["hook_event_name"] for wire in inside] == [
        "SubagentStart",
        "PreAgentStep",
        "PreContextBuild",
        "PostContextBuild",
        "PreModelCall",
        "PostModelCall",
        "SubagentStop",
    ]
    assert all(wire["agent_type"] == "Explore" for wire in inside)
    # The subagent's one turn from SubagentStart on (Codex names it there), not the parent's.
    assert {wire["turn_id"] for wire in inside} == {sub_start["turn_id"]}
    assert sub_start["turn_id"] != prompt["turn_id"]
    # The session's transcript on every input inside the subagent, its own beside it.
    assert {wire["transcript_path"] for wire in inside} == {transcript}
    sub_stop = recorder.of("SubagentStop")[0]
    assert {wire["agent_transcript_path"] for wire in inside} == {sub_stop["agent_transcript_path"]}
    assert sub_stop["last_assistant_message"] == "Sub: notes say hello."
    assert sub_stop["stop_hook_active"] is False
    assert Path(sub_stop["agent_transcript_path"]).is_file()
    assert sub_stop["agent_transcript_path"] != transcript
    agent_post = recorder.of("PostToolUse")[1]
    assert agent_post["tool_name"] == "Agent"
    assert agent_post["tool_response"]["agentId"] == agent_id
    assert agent_post["tool_response"]["content"][0]["text"] == "Sub: notes say hello."

    batches = recorder.of("PostToolBatch")
    assert [[c["tool_name"] for c in b["tool_calls"]] for b in batches] == [
        ["Read", "Bash"],
        ["Bash", "Agent"],
    ]

    stops = recorder.of("Stop")
    assert [(s["stop_hook_active"], s["last_assistant_message"]) for s in stops] == [
        (False, "All done."),
        (True, "All done, checked again."),
        (False, "Second answer."),
    ]

    compact = recorder.of("PreCompact")[0]
    assert compact["trigger"] == "auto"
    assert compact["custom_instructions"] is None
    assert (
        recorder.of("PostCompact")[0]["compact_summary"] == "Summary of the earlier conversation."
    )
    assert recorder.of("SessionEnd")[0]["reason"] == "prompt_input_exit"

    # What the model saw: the denied call's reason, the failure, the Stop feedback.
    round_two = model.calls[2].messages
    tool_contents = [m["content"] for m in round_two if m["role"] == "tool"]
    assert tool_contents[0] == "1\thello\n2\t"
    assert tool_contents[1] == "no rm -rf /"
    after_stop = model.calls[5].messages
    assert after_stop[-1] == {
        "role": "user",
        "content": "Stop hook feedback:\ncheck your work once more",
    }
    compacted = model.calls[7].messages
    assert compacted[0]["role"] == "system"
    assert "Summary of the earlier conversation." in compacted[1]["content"]
    assert any(e["type"] == "compact" for e in events)

    # The transcript is Claude Code JSONL, every line whole.
    lines = [json.loads(line) for line in Path(transcript).read_text().splitlines()]
    assert {line["type"] for line in lines} >= {"user", "assistant", "system"}
    assert all(line["sessionId"] == "sess-1" for line in lines)
    tool_uses = [
        block
        for line in lines
        if line["type"] == "assistant"
        for block in line["message"]["content"]
        if block["type"] == "tool_use"
    ]
    assert [b["name"] for b in tool_uses] == ["Read", "Bash", "Bash", "Agent"]
