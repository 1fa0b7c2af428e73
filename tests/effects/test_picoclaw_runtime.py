"""PicoClaw hook processes through the reference agent, where hookwright used to differ from what
PicoClaw's agent loop does with them: which messages and events a hook process receives and in
what order, what the model is sent, which tool runs with which input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookwright.dialects.picoclaw.codec import HANDLED_NOTE

from .pico import PicoProject, answer, echo, received
from .support import Live, call, jsonl, run_once, session, tool_messages, two_turns_then_compact

BASH_THEN_DONE: list[dict[str, Any]] = [
    {"content": "", "tool_calls": [call("Bash", command="touch original.txt")]},
    {"content": "done"},
]
FAILING: list[dict[str, Any]] = [
    {"content": "", "tool_calls": [call("Bash", command="echo broken >&2; exit 3")]},
    {"content": "done"},
]


def runtime_events(log: Path, kind: str | None = None) -> list[dict[str, Any]]:
    return [e for e in received(log, "hook.runtime_event") if kind is None or e["kind"] == kind]


def methods(log: Path) -> list[str]:
    """Every message the process read, by method (events by kind), in order."""
    return [
        m["params"]["kind"] if m["method"] == "hook.runtime_event" else m["method"]
        for m in jsonl(log)
        if "method" in m
    ]


def before(sequence: list[str], first: str, then: str) -> bool:
    return sequence.index(first) < sequence.index(then)


# 1. Observe-only hooks ---------------------------------------------------------------------------


async def test_an_observe_only_hook_starts_with_the_session_and_sees_the_turn_end(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    pico_project.protocol = "current"
    log = pico_project.process("watcher", {}, intercept=[], observe=["turn_end"])
    async with session(pico_project.root, isolated_home, [{"content": "done"}]) as live:
        # started and greeted when the session opened, before any event
        assert methods(log) == ["hook.hello"]
        assert received(log, "hook.hello")[0]["modes"] == ["observe"]
        await live.run()
    # the turn's last event reaches it although the session closed right after the turn
    assert methods(log) == ["hook.hello", "agent.turn.end"]
    [end] = runtime_events(log)
    assert end["payload"]["FinalContent"] == "done"


async def test_a_slow_observer_start_is_not_cancelled_by_the_close(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    pico_project.protocol = "current"
    log = pico_project.process(
        "slow",
        {},
        intercept=[],
        observe=["turn_start", "turn_end"],
        hello={"delay": 1, "result": {}},
    )
    await run_once(pico_project.root, isolated_home, [{"content": "done"}])
    assert methods(log) == ["hook.hello", "agent.turn.start", "agent.turn.end"]


# 2. after_tool for a failing tool, in PicoClaw's order -------------------------------------------


async def test_a_failing_tool_gets_after_tool_between_its_exec_events(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    pico_project.protocol = "current"
    log = pico_project.process(
        "all",
        {
            "before_tool": [answer({"action": "continue"})],
            "approve_tool": [answer({"approved": True})],
        },
        observe=["agent.tool.exec_start", "agent.tool.exec_end"],
    )
    live = await run_once(pico_project.root, isolated_home, FAILING)
    sequence = methods(log)
    requests = [m for m in sequence if m.startswith("hook.")]
    assert requests == ["hook.hello", "hook.before_tool", "hook.approve_tool", "hook.after_tool"]
    assert before(sequence, "agent.tool.exec_start", "agent.tool.exec_end")
    # exec_end reports the result after the after_tool chain, so it comes after it
    assert before(sequence, "hook.after_tool", "agent.tool.exec_end")
    [after] = received(log, "hook.after_tool")
    assert after["result"]["is_error"] is True
    [end] = runtime_events(log, "agent.tool.exec_end")
    assert end["payload"]["IsError"] is True
    assert end["payload"]["ForLLMLen"] == len(tool_messages(live.calls[1])[0].encode())
    assert end["severity"] == "warn"  # PicoClaw's severity for a failed tool


# 3. A before_llm model rewrite -------------------------------------------------------------------


async def test_a_model_rewrite_is_the_model_called_reported_and_observed(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    pico_project.protocol = "current"
    log = pico_project.process(
        "router",
        {"before_llm": echo("request", set={"model": "process-model"})},
        observe=["agent.llm.request"],
    )
    live = await run_once(pico_project.root, isolated_home, [{"content": "ok"}])
    assert live.model.requested_models == ["process-model"]
    [after] = received(log, "hook.after_llm")
    assert after["model"] == "process-model"
    [request] = runtime_events(log, "agent.llm.request")
    assert request["payload"]["Model"] == "process-model"


# 4. respond: a handled response with media -------------------------------------------------------


async def test_a_handled_respond_with_media_reaches_the_user_and_ends_the_turn(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    """On a channel that delivers media (here `telegram`); on an internal channel the media
    is only queued and the turn goes on (test_picoclaw_run_media.py)."""
    pico_project.protocol = "current"
    result = {
        "for_llm": "sent the report",
        "for_user": "Here is your report",
        "media": ["media://report.pdf"],
        "response_handled": True,
    }
    log = pico_project.process(
        "sender",
        {"before_tool": [answer({"action": "respond", "result": result})]},
        intercept=["before_tool", "approve_tool"],
        observe=["*"],
    )

    async with session(pico_project.root, isolated_home, BASH_THEN_DONE) as live:
        live.agent.config.channel = live.agent.hooks.identity.channel = "telegram"
        await live.run()
        await live.run("Thanks.")
    # the first turn made one model call; the tool did not run, approval was not asked
    assert len(live.calls) == 2 and not (pico_project.root / "original.txt").exists()
    assert "hook.approve_tool" not in methods(log)
    [to_user] = live.of("to_user")
    assert (to_user["text"], to_user["media"]) == ("Here is your report", ["media://report.pdf"])
    first_turn = methods(log)[: methods(log).index("agent.turn.end") + 1]
    tool_events = [m for m in first_turn if m.startswith("agent.tool")]
    assert tool_events == ["agent.tool.exec_start", "agent.tool.exec_end"]
    [end, *_] = runtime_events(log, "agent.tool.exec_end")
    assert end["payload"]["Duration"] == 0
    assert end["payload"]["ForUserLen"] == len("Here is your report")
    # the history keeps what PicoClaw shows the model of a handled result
    assert tool_messages(live.calls[1]) == [f"sent the report\n{HANDLED_NOTE}"]


# 5. Turn aborts, meta, events --------------------------------------------------------------------


async def test_abort_turn_fails_the_turn_as_an_error(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    pico_project.protocol = "current"
    log = pico_project.process(
        "stopper",
        {"before_llm": [answer({"action": "abort_turn", "reason": "enough"})]},
        observe=["agent.turn.end"],
    )
    live = await run_once(pico_project.root, isolated_home, [{"content": "never"}])
    assert live.calls == []
    assert (live.results[0].status, live.results[0].reason) == (
        "failed",
        "hook requested turn abort",
    )
    [end] = runtime_events(log, "agent.turn.end")
    assert (end["payload"]["Status"], end["severity"]) == ("error", "error")


async def test_meta_names_the_main_agent_and_counts_iterations_from_one(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    pico_project.protocol = "current"
    log = pico_project.process(
        "meta",
        {
            "before_llm": [answer({})],
            "before_tool": [answer({})],
            "approve_tool": [answer({"approved": True})],
        },
    )
    live = await run_once(pico_project.root, isolated_home, BASH_THEN_DONE)
    metas = {
        method: [p["meta"] for p in received(log, f"hook.{method}")]
        for method in ("before_llm", "after_llm", "before_tool", "approve_tool", "after_tool")
    }
    assert [m["Iteration"] for m in metas["before_llm"]] == [1, 2]
    assert [m["Iteration"] for m in metas["after_llm"]] == [1, 2]
    for method in ("before_tool", "approve_tool", "after_tool"):
        [meta] = metas[method]
        assert meta["Iteration"] == 1
    every = [meta for found in metas.values() for meta in found]
    assert {m["AgentID"] for m in every} == {"main"}
    assert {m["Source"] for m in every} == {"runTurn"}
    assert {m["TurnID"] for m in every} == {live.agent.turn_id}
    assert [m["TracePath"] for m in metas["before_llm"]] == ["turn.llm.request"] * 2


async def test_denials_are_observed_as_skips_with_the_denial_message(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    pico_project.protocol = "current"
    log = pico_project.process(
        "guard",
        {
            "before_tool": [answer({"action": "deny_tool", "reason": "too risky"}, tool="Bash")],
            "approve_tool": [answer({"approved": False, "reason": "not now"})],
        },
        observe=["agent.tool.exec_skipped"],
    )
    turns = [
        {
            "content": "",
            "tool_calls": [
                call("Bash", command="touch a.txt"),
                call("Write", file_path="b.txt", content="b"),
            ],
        },
        {"content": "done"},
    ]
    live = await run_once(pico_project.root, isolated_home, turns)
    messages = [
        "Tool execution denied by hook: too risky",
        "Tool execution denied by approval hook: not now",
    ]
    assert tool_messages(live.calls[1]) == messages
    skipped = runtime_events(log, "agent.tool.exec_skipped")
    assert [(e["payload"]["Tool"], e["payload"]["Reason"]) for e in skipped] == [
        ("Bash", messages[0]),
        ("Write", messages[1]),
    ]
    assert {e["severity"] for e in skipped} == {"warn"}
    assert {e["correlation"]["trace_id"] for e in skipped} == {"turn.tool.skipped"}


async def test_event_envelopes_carry_picoclaws_trace_and_source(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    pico_project.protocol = "current"
    log = pico_project.process("watch", {}, intercept=[], observe=["*"])
    live = await run_once(pico_project.root, isolated_home, BASH_THEN_DONE)
    events = runtime_events(log)
    assert [e["kind"] for e in events] == [
        "agent.turn.start",
        "agent.llm.request",
        "agent.llm.response",
        "agent.tool.exec_start",
        "agent.tool.exec_end",
        "agent.llm.request",
        "agent.llm.response",
        "agent.turn.end",
    ]
    assert [e["correlation"]["trace_id"] for e in events] == [
        "turn.start",
        "turn.llm.request",
        "turn.llm.response",
        "turn.tool.start",
        "turn.tool.end",
        "turn.llm.request",
        "turn.llm.response",
        "turn.end",
    ]
    assert [e.get("attrs") for e in events] == [
        {"agent_source": "runTurn"},  # iteration 0 is left out, as Go's attrs do
        *[{"agent_source": "runTurn", "iteration": 1}] * 4,
        *[{"agent_source": "runTurn", "iteration": 2}] * 3,
    ]
    scope = {
        "agent_id": "main",
        "session_key": live.agent.session_id,
        "turn_id": live.agent.turn_id,
        "channel": "cli",
        "chat_id": live.agent.session_id,
    }
    assert all(e["scope"] == scope for e in events)
    assert all(e["source"] == {"component": "agent", "name": "main"} for e in events)
    assert len({e["id"] for e in events}) == len(events)


async def test_turn_end_carries_all_of_picoclaws_fields(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    pico_project.protocol = "current"
    log = pico_project.process("watch", {}, intercept=[], observe=["agent.turn.end"])
    turns = [
        {
            "content": "",
            "tool_calls": [call("Bash", command="exit 4"), call("Bash", command="true")],
        },
        {"content": "done é"},
    ]
    await run_once(pico_project.root, isolated_home, turns)
    [end] = runtime_events(log)
    payload = end["payload"]
    assert list(payload) == [
        "Status",
        "Workspace",
        "Iterations",
        "Duration",
        "FinalContentLen",
        "UserMessage",
        "FinalContent",
        "ActiveSkills",
        "AttemptedSkills",
        "FinalSuccessfulPath",
        "SkillContextSnapshots",
        "ToolKinds",
        "ToolExecutions",
    ]
    assert payload["Status"] == "completed"
    assert payload["Workspace"] == str(pico_project.root.resolve())
    assert payload["Iterations"] == 2
    assert payload["UserMessage"] == "Do the task."
    assert (payload["FinalContent"], payload["FinalContentLen"]) == ("done é", 7)  # bytes
    assert payload["ToolKinds"] == ["Bash"]
    assert payload["ToolExecutions"] == [
        {"name": "Bash", "success": False, "error_summary": "Exit code 4"},
        {"name": "Bash", "success": True},
    ]
    assert payload["ActiveSkills"] is None and payload["SkillContextSnapshots"] is None


async def test_approval_runs_for_a_tool_that_does_not_exist(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    log = pico_project.process(
        "approver",
        {
            "approve_tool": [
                answer({"approved": False, "reason": "unknown"}, tool="Nope"),
                answer({"approved": True}),
            ]
        },
    )
    turns = [
        {"content": "", "tool_calls": [call("Nope", x=1), call("Missing", y=2)]},
        {"content": "done"},
    ]
    live = await run_once(pico_project.root, isolated_home, turns)
    approvals = received(log, "hook.approve_tool")
    assert [(a["tool"], a["arguments"]) for a in approvals] == [
        ("Nope", {"x": 1}),
        ("Missing", {"y": 2}),
    ]
    assert tool_messages(live.calls[1]) == [
        "Tool execution denied by approval hook: unknown",
        "Error: No such tool available: Missing",
    ]


async def test_answers_decode_like_go_case_insensitive_keys_and_a_null_method(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    rewrite = {
        "Action": "modify",
        "CALL": {"Tool": "Bash", "Arguments": {"command": "touch patched.txt"}, "extra": 1},
    }
    pico_project.process(
        "patcher",
        {
            "before_tool": [
                {"result": rewrite, "envelope": {"method": None}, "rename": {"result": "Result"}}
            ]
        },
    )
    await run_once(pico_project.root, isolated_home, BASH_THEN_DONE)
    assert (pico_project.root / "patched.txt").exists()
    assert not (pico_project.root / "original.txt").exists()


async def test_a_call_without_a_tool_names_no_tool_as_in_picoclaw(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    log = pico_project.process(
        "blank",
        {
            "before_tool": [answer({"action": "modify", "call": {"arguments": {"a": 1}}})],
            "approve_tool": [answer({"approved": True})],
        },
    )
    live = await run_once(pico_project.root, isolated_home, BASH_THEN_DONE)
    assert not (pico_project.root / "original.txt").exists()
    [approval] = received(log, "hook.approve_tool")
    assert (approval["tool"], approval["arguments"]) == ("", {"a": 1})
    assert tool_messages(live.calls[1]) == ["Error: No such tool available: "]


# 6. The seed protocol is PicoClaw v0.2.6's code --------------------------------------------------


async def test_seed_sends_what_picoclaw_v026_sent(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    log = pico_project.process(
        "old",
        {"before_tool": [answer({"action": "continue"})]},
        observe=["turn_start", "tool_exec_start", "turn_end"],
    )
    await run_once(pico_project.root, isolated_home, BASH_THEN_DONE)
    [params] = received(log, "hook.before_tool")
    assert list(params) == ["meta", "tool", "arguments", "channel", "chat_id"]
    assert (params["meta"]["Source"], params["meta"]["TracePath"]) == (
        "runTurn",
        "turn.tool.before",
    )
    events = received(log, "hook.event")
    assert [e["Kind"] for e in events] == [0, 8, 1]  # an untagged Go uint8
    assert list(events[0]) == ["Kind", "Time", "Meta", "Payload"]
    assert events[1]["Meta"]["TracePath"] == "turn.tool.start"


async def test_a_config_written_for_current_picoclaw_gets_a_notice(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    pico_project.protocol = None
    pico_project.process("modern", {}, intercept=[], observe=["agent.turn.end"])
    async with session(pico_project.root, isolated_home, [{"content": "ok"}]) as live:
        notices = [d for d in live.setup.diagnostics if "hooks.processes.modern.observe" in d]
    assert len(notices) == 1
    assert notices[0].startswith("warning:") and '"protocol": "current"' in notices[0]
    pico_project.protocol = "current"
    pico_project.process("modern", {}, intercept=[], observe=["agent.turn.end"])
    async with session(pico_project.root, isolated_home, [{"content": "ok"}]) as live:
        assert not [d for d in live.setup.diagnostics if "modern" in d]


# 7. Runtime event kinds the reference agent has a counterpart for --------------------------------


async def test_a_subagent_is_observed_as_a_subturn(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    pico_project.protocol = "current"
    log = pico_project.process("watch", {}, intercept=[], observe=["*"])
    turns = [
        {"content": "", "tool_calls": [call("Agent", prompt="Look around.", description="look")]},
        {"content": "nothing here"},
        {"content": "done"},
    ]
    live = await run_once(pico_project.root, isolated_home, turns)
    events = runtime_events(log)
    kinds = [e["kind"] for e in events]
    spawn_at, end_at = kinds.index("agent.subturn.spawn"), kinds.index("agent.subturn.end")
    assert kinds[spawn_at : end_at + 1] == [
        "agent.subturn.spawn",
        "agent.turn.start",
        "agent.llm.request",
        "agent.llm.response",
        "agent.turn.end",
        "agent.subturn.end",
    ]
    spawn, child_start, *_, child_end, end = events[spawn_at : end_at + 1]
    child = spawn["payload"]["AgentID"]
    assert child.startswith("agent-") and spawn["payload"]["Label"] == child
    assert spawn["payload"]["ParentTurnID"] == live.agent.turn_id
    assert spawn["correlation"]["trace_id"] == "subturn.spawn"
    assert spawn["attrs"] == {"agent_source": "spawnSubTurn"}
    assert end["payload"] == {"AgentID": child, "Status": "completed"}
    # the child's own turn is the subagent's
    assert child_start["scope"]["agent_id"] == child and child_end["scope"]["agent_id"] == child
    assert child_end["payload"]["FinalContent"] == "nothing here"
    assert kinds[spawn_at - 1] == "agent.tool.exec_start" and kinds[end_at + 1] == (
        "agent.tool.exec_end"
    )


async def test_a_model_failure_and_a_compaction_are_observed(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    pico_project.protocol = "current"
    log = pico_project.process(
        "watch",
        {},
        intercept=[],
        observe=["agent.error", "agent.session.summarize", "agent.turn.end"],
    )
    turns = [
        {"content": "first"},
        {"content": "second"},
        {"content": "the summary"},
        {"error": "invalid_request"},
    ]

    async def more(live: Live) -> None:
        assert await two_turns_then_compact(live)
        await live.run("Fail now.")

    await run_once(pico_project.root, isolated_home, turns, then=more)
    events = runtime_events(log)
    assert [e["kind"] for e in events] == [
        "agent.turn.end",
        "agent.turn.end",
        "agent.session.summarize",
        "agent.error",
        "agent.turn.end",
    ]
    summary, error, end = events[2:]
    assert summary["payload"]["SummaryLen"] == len("the summary")
    assert summary["attrs"] == {"agent_source": "summarizeSession"}
    assert (error["payload"]["Stage"], error["severity"]) == ("llm", "error")
    assert end["payload"]["Status"] == "error"
