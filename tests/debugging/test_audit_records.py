"""Audit records say which call a hook was about, what it did and what ran; the writer
survives any record it is handed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hookwright import (
    Event,
    HookEngine,
    HookInput,
    HookResult,
    add_context,
    deny,
    rewrite_input,
)
from hookwright.core.results import Verdict


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def bash(command: str, use_id: str) -> HookInput:
    return HookInput(
        "PreToolUse",
        session_id="s1",
        turn_id="turn-1",
        payload={"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": use_id},
    )


def test_a_rewrite_records_the_call_the_effect_and_the_executed_input(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    engine = HookEngine(audit_path=path)
    engine.add(
        lambda inp: rewrite_input({"command": inp.tool_input["command"] + " --dry-run"}),
        "PreToolUse",
        name="dry",
    )
    engine.add(lambda inp: add_context("pushes are rehearsed"), "PreToolUse", name="ctx")
    engine.dispatch_sync(bash("git push", "toolu_1"))
    engine.close()
    dry, ctx = records(path)
    assert dry["hook"] == "dry"
    assert (dry["tool_name"], dry["tool_use_id"], dry["turn_id"]) == ("Bash", "toolu_1", "turn-1")
    assert dry["effect"] == "rewrite input"
    assert dry["tool_input"] == {"command": "git push"}
    assert dry["executed_input"] == {"command": "git push --dry-run"}
    assert ctx["effect"] == "context"
    assert ctx["context"] == "pushes are rehearsed"
    assert ctx["executed_input"] == {"command": "git push --dry-run"}


def test_a_denied_call_records_no_executed_input(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    engine = HookEngine(audit_path=path)
    engine.add(lambda inp: deny("no rm"), "PreToolUse", name="no-rm")
    engine.add(lambda inp: None, "PreToolUse", name="quiet")
    engine.dispatch_sync(bash("rm -rf /", "toolu_2"))
    engine.close()
    no_rm, quiet = records(path)
    assert (no_rm["effect"], no_rm["decision"], no_rm["reason"]) == ("deny", "deny", "no rm")
    assert no_rm["tool_input"] == {"command": "rm -rf /"}
    assert no_rm["executed_input"] is None
    assert quiet["effect"] is None


def test_non_tool_events_carry_the_turn_only(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    engine = HookEngine(audit_path=path)
    engine.add(lambda inp: add_context("x" * 5000), "Stop", name="long")
    engine.dispatch_sync(HookInput("Stop", session_id="s1", turn_id="turn-9"))
    engine.close()
    [record] = records(path)
    assert record["turn_id"] == "turn-9"
    assert record["tool_name"] is None and record["tool_input"] is None
    assert record["context"].startswith("x" * 2000)
    assert record["context"].endswith("[3000 more characters]")


def test_the_writer_survives_bad_records_and_keeps_writing(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    engine = HookEngine(audit_path=path)
    engine.add(lambda inp: HookResult(patches={"odd": object()}), "Stop", name="odd")
    engine.add(lambda inp: None, "SessionEnd", name="after")
    broken = Verdict(Event.Stop)
    broken.runs.append(("not a spec", HookResult(), 0))  # type: ignore[arg-type]
    broken.event = "Stop"  # type: ignore[assignment]
    engine.audit.submit(broken, "s1")
    engine.audit.flush()
    engine.dispatch_sync(HookInput("Stop", session_id="s1"))
    engine.dispatch_sync(HookInput("SessionEnd", session_id="s1"))
    engine.close()
    odd, after = records(path)
    assert odd["hook"] == "odd" and odd["patch"]["odd"].startswith("<object object")
    assert after["hook"] == "after"
    assert engine.audit.dropped == 1


def test_a_hook_a_chain_deny_kept_from_running_is_recorded_as_cut(tmp_path: Path) -> None:
    """The fast path (sync Python hooks) and the awaited one (an async hook) alike: the
    hook after a chain-mode deny never runs, and its record names the deny."""
    path = tmp_path / "audit.jsonl"
    engine = HookEngine(audit_path=path)
    ran: list[str] = []
    engine.add(lambda inp: deny("no rm"), "PreToolUse", name="no-rm", mode="chain")
    engine.add(lambda inp: ran.append("after"), "PreToolUse", name="after", mode="chain")
    engine.dispatch_sync(bash("rm -rf /", "toolu_3"))

    async def later(inp: HookInput) -> None:
        ran.append("later")

    engine.add(later, "PreToolUse", name="later", mode="chain")
    engine.dispatch_sync(bash("rm -rf /", "toolu_4"))
    engine.close()
    assert ran == []
    cut = [r for r in records(path) if r["status"] == "cut"]
    assert [(r["hook"], r["tool_use_id"]) for r in cut] == [
        ("after", "toolu_3"),
        ("after", "toolu_4"),
        ("later", "toolu_4"),
    ]
    assert {json.dumps(r["cut_by"]) for r in cut} == {'{"hook": "no-rm", "decision": "deny"}'}
    assert all(r["decision"] is None and r["effect"] is None for r in cut)
    assert all(r["tool_input"] == {"command": "rm -rf /"} for r in cut)


def test_a_dispatch_every_hook_ran_in_has_no_cut_records(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    engine = HookEngine(audit_path=path)
    engine.add(lambda inp: deny("no rm"), "PreToolUse", name="no-rm")
    engine.add(lambda inp: None, "PreToolUse", name="beside")  # same parallel stage: it runs
    verdict = engine.dispatch_sync(bash("rm -rf /", "toolu_5"))
    engine.close()
    assert verdict.cut == ()
    assert [r["status"] for r in records(path)] == ["ok", "ok"]
