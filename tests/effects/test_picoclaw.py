"""PicoClaw hook processes (`.picoclaw/config.json`, JSON-RPC over stdio) through the reference
agent: what the model, the tools and the hook processes actually received, for each effect
docs/picoclaw.md and the dialect's README promise (spec §6). The plugin-tool pattern (before_llm
tool injection answered by `respond`, approval and after_tool skipped) is
tests/picoclaw/test_e2e_run.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .pico import PLUGIN_TOOL, PicoProject, answer, echo, received
from .support import Live, call, run_once, session, tool_messages

BASH_THEN_DONE: list[dict[str, Any]] = [
    {"content": "", "tool_calls": [call("Bash", command="touch original.txt")]},
    {"content": "done"},
]


# before_llm / after_llm ---------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", ["seed", "current"])
async def test_before_llm_request_rewrite_reaches_the_model(
    pico_project: PicoProject, isolated_home: Path, protocol: str
) -> None:
    pico_project.protocol = protocol
    note = {"role": "user", "content": "note from the hook"}
    pico_project.process(
        "rewriter",
        {
            "before_llm": echo(
                "request",
                push={"tools": PLUGIN_TOOL, "messages": note},
                set={"options": {"temperature": 0.25}},
            )
        },
    )
    live = await run_once(pico_project.root, isolated_home, [{"content": "ok"}])
    [request] = live.calls
    assert request.messages[-1] == note
    assert request.options == {"temperature": 0.25}
    names = [t["function"]["name"] for t in request.tools or []]
    # seed: the plugin pattern works; current: changed tool definitions are restored
    assert ("my_plugin_tool" in names) is (protocol == "seed")
    assert "Bash" in names


async def test_before_llm_model_rewrite_reaches_the_model_call(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    log = pico_project.process(
        "router", {"before_llm": echo("request", set={"model": "process-model"})}
    )
    live = await run_once(pico_project.root, isolated_home, [{"content": "ok"}])
    assert received(log, "hook.before_llm")[0]["model"] == "scripted"
    assert live.model.requested_models == ["process-model"]


async def test_after_llm_response_rewrite_is_the_reply(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    pico_project.process(
        "suffix",
        {"after_llm": echo("response", append={"response.content": "|ipc"})},
        intercept=["after_llm"],
    )

    async def again(live: Live) -> None:
        await live.run("And again.")

    live = await run_once(
        pico_project.root, isolated_home, [{"content": "provider content"}], then=again
    )
    assert live.results[0].final_text == "provider content|ipc"
    assert "provider content|ipc" in [m["content"] for m in live.calls[1].messages]


# before_tool / approve_tool / after_tool ----------------------------------------------------------


async def test_before_tool_arguments_rewrite_is_what_runs_and_what_approval_sees(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    log = pico_project.process(
        "patcher",
        {
            "before_tool": echo("call", set={"arguments.command": "touch patched.txt"}),
            "approve_tool": [answer({"approved": True})],
        },
    )
    await run_once(pico_project.root, isolated_home, BASH_THEN_DONE)
    assert (pico_project.root / "patched.txt").exists()
    assert not (pico_project.root / "original.txt").exists()
    [approval] = received(log, "hook.approve_tool")
    assert approval["arguments"] == {"command": "touch patched.txt"}
    [after] = received(log, "hook.after_tool")
    assert after["arguments"] == {"command": "touch patched.txt"}


async def test_before_tool_rename_runs_the_other_tool(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    (pico_project.root / "notes.txt").write_text("the notes\n")
    pico_project.process(
        "renamer",
        {
            "before_tool": echo(
                "call", set={"tool": "Read", "arguments": {"file_path": "notes.txt"}}
            )
        },
    )
    live = await run_once(pico_project.root, isolated_home, BASH_THEN_DONE)
    assert not (pico_project.root / "original.txt").exists()
    [content] = tool_messages(live.calls[1])
    assert "the notes" in content


async def test_after_tool_result_rewrite_is_what_the_model_sees(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    log = pico_project.process(
        "prefixer", {"after_tool": echo("result", prefix={"result.for_llm": "ipc:"})}
    )
    live = await run_once(
        pico_project.root,
        isolated_home,
        [{"content": "", "tool_calls": [call("Bash", command="echo hi")]}, {"content": "done"}],
    )
    [after] = received(log, "hook.after_tool")
    assert after["result"]["for_llm"] == "hi"
    assert tool_messages(live.calls[1]) == ["ipc:hi"]


FAILING: list[dict[str, Any]] = [
    {"content": "", "tool_calls": [call("Bash", command="echo broken >&2; exit 3")]},
    {"content": "done"},
]


async def test_after_tool_is_sent_for_a_failing_tool(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    log = pico_project.process("watcher", {"after_tool": [answer({"action": "continue"})]})
    live = await run_once(pico_project.root, isolated_home, FAILING)
    [after] = received(log, "hook.after_tool")
    assert after["tool"] == "Bash"
    assert after["arguments"] == {"command": "echo broken >&2; exit 3"}
    assert after["result"]["is_error"] is True
    assert after["result"]["for_llm"].startswith("Exit code 3")
    assert tool_messages(live.calls[1])[0].startswith("Exit code 3")


async def test_after_tool_rewrite_of_a_failing_tool_is_what_the_model_sees(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    pico_project.process(
        "fixer",
        {
            "after_tool": echo(
                "result", set={"result.for_llm": "retry with -v", "result.is_error": False}
            )
        },
    )
    live = await run_once(pico_project.root, isolated_home, FAILING)
    assert tool_messages(live.calls[1]) == ["retry with -v"]


async def test_deny_tool_reason_reaches_the_model_and_the_turn_goes_on(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    log = pico_project.process(
        "guard", {"before_tool": [answer({"action": "deny_tool", "reason": "too risky"})]}
    )
    live = await run_once(pico_project.root, isolated_home, BASH_THEN_DONE)
    assert not (pico_project.root / "original.txt").exists()
    assert tool_messages(live.calls[1]) == ["Tool execution denied by hook: too risky"]
    assert live.results[0].final_text == "done"
    assert received(log, "hook.after_tool") == []


async def test_approval_denial_reaches_the_model(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    log = pico_project.process(
        "approver",
        {"approve_tool": [answer({"approved": False, "reason": "blocked by ipc hook"})]},
    )
    live = await run_once(pico_project.root, isolated_home, BASH_THEN_DONE)
    assert not (pico_project.root / "original.txt").exists()
    assert tool_messages(live.calls[1]) == [
        "Tool execution denied by approval hook: blocked by ipc hook"
    ]
    # approval gates see every call, even in bypassPermissions mode
    [approval] = received(log, "hook.approve_tool")
    assert approval["arguments"] == {"command": "touch original.txt"}


async def test_approval_timeout_denies(pico_project: PicoProject, isolated_home: Path) -> None:
    pico_project.process(
        "gate",
        {"approve_tool": [{"delay": 3, "result": {"approved": True}}]},
        timeout_ms=300,
    )
    live = await run_once(pico_project.root, isolated_home, BASH_THEN_DONE)
    assert not (pico_project.root / "original.txt").exists()
    assert tool_messages(live.calls[1]) == [
        'Tool execution denied by approval hook: tool approval hook "gate" timed out'
    ]


# respond ------------------------------------------------------------------------------------------


def respond(**result: Any) -> list[dict[str, Any]]:
    return [answer({"action": "respond", "result": {"silent": False, "is_error": False, **result}})]


async def test_respond_is_observed_as_an_execution(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    log = pico_project.process(
        "responder",
        {"before_tool": respond(for_llm="hook-responded")},
        observe=["tool_exec_start", "tool_exec_end", "tool_exec_skipped"],
        seed_event_kind="name",
    )
    live = await run_once(pico_project.root, isolated_home, BASH_THEN_DONE)
    assert tool_messages(live.calls[1]) == ["hook-responded"]
    events = {e["Kind"]: e["Payload"] for e in received(log, "hook.event")}
    assert set(events) == {"tool_exec_start", "tool_exec_end"}
    assert events["tool_exec_end"]["Duration"] == 0
    assert events["tool_exec_end"]["ForLLMLen"] == len("hook-responded")


async def test_respond_handled_goes_to_the_user_and_ends_the_turn(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    pico_project.process(
        "sender",
        {
            "before_tool": respond(
                for_llm="sent the report",
                for_user="Here is your report",
                media=["media://report.pdf"],
                response_handled=True,
            )
        },
    )
    async with session(pico_project.root, isolated_home, BASH_THEN_DONE) as live:
        # a channel that delivers media; an internal one only queues it (the turn goes on)
        live.agent.config.channel = live.agent.hooks.identity.channel = "telegram"
        await live.run()
    assert len(live.calls) == 1
    to_user = [
        e for e in live.events if e["type"] not in ("tool_call", "tool_result", "hook_result")
    ]
    assert "media://report.pdf" in json.dumps(to_user)
    assert "Here is your report" in json.dumps(to_user)


async def test_respond_media_not_handled_is_shown_to_the_model(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    pico_project.process(
        "charter", {"before_tool": respond(for_llm="chart ready", media=["media://chart.png"])}
    )
    live = await run_once(pico_project.root, isolated_home, BASH_THEN_DONE)
    [content] = tool_messages(live.calls[1])
    assert content.startswith("chart ready") and "media://chart.png" in content


# Aborts -------------------------------------------------------------------------------------------


async def test_abort_turn_ends_the_turn_and_keeps_the_history(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    pico_project.process(
        "stopper", {"before_tool": [answer({"action": "abort_turn", "reason": "stop now"})]}
    )

    async def again(live: Live) -> None:
        await live.run("Second prompt.")

    live = await run_once(
        pico_project.root, isolated_home, [*BASH_THEN_DONE], "First prompt.", then=again
    )
    # PicoClaw ends the turn with an error that leaves the hook's reason out
    assert live.results[0].status == "failed"
    assert live.results[0].reason == "hook requested turn abort"
    assert not (pico_project.root / "original.txt").exists()
    _, second = live.calls  # no follow-up call in the aborted turn
    assert "First prompt." in [m["content"] for m in second.messages]
    assert second.messages[-1]["content"] == "Second prompt."


async def test_hard_abort_rolls_the_history_back(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    log = pico_project.process(
        "stopper",
        {"before_tool": [answer({"action": "hard_abort", "reason": "panic"})]},
        observe=["turn_end"],
    )

    async def again(live: Live) -> None:
        await live.run("Second prompt.")

    live = await run_once(
        pico_project.root, isolated_home, [*BASH_THEN_DONE], "First prompt.", then=again
    )
    assert live.results[0].status == "aborted"
    _, second = live.calls
    assert [m["role"] for m in second.messages] == ["system", "user"]
    assert second.messages[-1]["content"] == "Second prompt."
    ends = [e["Payload"]["Status"] for e in received(log, "hook.event")]
    assert ends == ["aborted", "completed"]


async def test_abort_turn_is_observed_as_an_error(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    log = pico_project.process(
        "stopper",
        {"before_tool": [answer({"action": "abort_turn", "reason": "stop now"})]},
        observe=["turn_end"],
    )
    await run_once(pico_project.root, isolated_home, BASH_THEN_DONE)
    [end] = [e["Payload"] for e in received(log, "hook.event")]
    assert end["Status"] == "error"
