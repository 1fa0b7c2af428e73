"""The tool step on its own: a round's tool calls through hooks, permission and the tool, with
a recording owner in place of the agent loop."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from hookwright import Event, HookEngine, HookInput, deny, stop
from hookwright.host import HookSession, SessionIdentity
from hookwright.runtime.models import ToolCall
from hookwright.runtime.permissions import PermissionPolicy
from hookwright.runtime.tool_step import ToolStep
from hookwright.runtime.tools import ToolContext, ToolRegistry
from hookwright.runtime.tools.functions import function_tool
from hookwright.runtime.turn_end import TurnEnded


@dataclass
class Owner:
    """The agent loop's side of the tool step, recorded."""

    working_dir: Path
    interactive: bool = False
    channel: str = "cli"
    history: list[dict[str, Any]] = field(default_factory=list)
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    context: list[str] = field(default_factory=list)
    ran: list[tuple[str, str, bool]] = field(default_factory=list)

    def tool_context(self) -> ToolContext:
        return ToolContext(cwd=self.working_dir, session_id="s1")

    def move_to(self, cwd: Path) -> None:
        self.working_dir = cwd

    def emit(self, event_type: str, /, **data: Any) -> None:
        self.events.append((event_type, data))

    def observe(self, kind: str, fields: dict[str, Any]) -> None:
        self.events.append((kind, fields))

    def record(self, message: dict[str, Any], **meta: Any) -> None:
        self.history.append(message)

    def queue_context(self, texts: Sequence[str]) -> None:
        self.context.extend(texts)

    def queue_call_context(self, call_id: str, texts: Sequence[str]) -> None:
        self.context.extend(texts)

    def flush_context(self) -> None:
        self.history.extend({"role": "system", "content": text} for text in self.context)
        self.context = []

    def tool_ran(self, name: str, content: str, is_error: bool) -> None:
        self.ran.append((name, content, is_error))


def shout(text: str) -> str:
    """Upper-case the text."""
    return text.upper()


@pytest.fixture
def engine() -> Iterator[HookEngine]:
    built = HookEngine(audit_path=None)
    yield built
    built.close()


def tool_step(engine: HookEngine, owner: Owner, *, mode: str = "bypassPermissions") -> ToolStep:
    tools = ToolRegistry()
    tools.register(function_tool(shout))
    hooks = HookSession(engine, SessionIdentity(session_id="s1", cwd=str(owner.working_dir)))
    policy = PermissionPolicy(mode=mode)  # type: ignore[arg-type]
    return ToolStep(owner, hooks, tools, policy, ask_user=None)


def call(call_id: str, name: str, **arguments: Any) -> ToolCall:
    return ToolCall(call_id, name, arguments, json.dumps(arguments))


async def test_each_call_gets_its_result_in_order_and_the_batch_hook_sees_them(
    engine: HookEngine, tmp_path: Path
) -> None:
    batches: list[list[dict[str, Any]]] = []
    engine.add(lambda inp: deny("not this one"), "PreToolUse", matcher="shout")
    engine.add(lambda inp: batches.append(inp.get("tool_calls")) or None, "PostToolBatch")
    owner = Owner(tmp_path)
    calls = [call("c1", "shout", text="a"), call("c2", "missing")]
    batch = await tool_step(engine, owner).run_batch(calls, iteration=0)
    assert [m["tool_call_id"] for m in owner.history] == ["c1", "c2"]
    assert owner.history[0]["content"] == "not this one"
    assert owner.history[1]["content"] == "Error: No such tool available: missing"
    assert [c.tool_response for c in batch.calls] == [m["content"] for m in owner.history]
    assert [entry["tool_use_id"] for entry in batches[0]] == ["c1", "c2"]
    assert not batch.handled


async def test_a_permitted_call_runs_and_post_tool_use_sees_its_output(
    engine: HookEngine, tmp_path: Path
) -> None:
    seen: list[Any] = []
    engine.add(lambda inp: seen.append(inp.get("tool_response")) or None, "PostToolUse")
    owner = Owner(tmp_path)
    batch = await tool_step(engine, owner).run_batch([call("c1", "shout", text="hi")], 0)
    assert batch.calls[0].tool_response == "HI"
    assert seen == [{"content": "HI"}]
    assert owner.ran == [("shout", "HI", False)]


async def test_a_call_that_would_prompt_without_a_person_is_denied(
    engine: HookEngine, tmp_path: Path
) -> None:
    owner = Owner(tmp_path)
    step = tool_step(engine, owner, mode="default")
    batch = await step.run_batch([call("c1", "shout", text="hi")], 0)
    assert owner.ran == []
    assert batch.calls[0].tool_response is not None
    assert "shout" in batch.calls[0].tool_response
    assert ("permission", {"tool": "shout", "behavior": "deny"}) in [
        (kind, {k: data[k] for k in ("tool", "behavior")})
        for kind, data in owner.events
        if kind == "permission"
    ]


async def test_a_stop_after_a_call_ends_the_turn_before_post_tool_batch(
    engine: HookEngine, tmp_path: Path
) -> None:
    fired: list[Event] = []

    def record(inp: HookInput) -> None:
        fired.append(inp.event)

    engine.add(lambda inp: stop("enough"), "PostToolUse")
    engine.add(record, "PostToolBatch")
    owner = Owner(tmp_path)
    with pytest.raises(TurnEnded) as ended:
        await tool_step(engine, owner).run_batch([call("c1", "shout", text="hi")], 0)
    assert ended.value.status == "stopped"
    assert [m["tool_call_id"] for m in owner.history if m["role"] == "tool"] == ["c1"]
    assert fired == []


async def test_work_queued_while_a_tool_runs_happens_after_its_post_tool_use(
    engine: HookEngine, tmp_path: Path
) -> None:
    order: list[str] = []
    owner = Owner(tmp_path)
    step = tool_step(engine, owner)

    async def later() -> None:
        order.append("after the call")

    def queue(text: str) -> str:
        """Queue work for after the call."""
        order.append(f"queued: {step.after_running_tool(later)}")
        return text

    step.tools.register(function_tool(queue))
    engine.add(lambda inp: order.append("PostToolUse") or None, "PostToolUse")
    assert step.after_running_tool(later) is False
    await step.run_batch([call("c1", "queue", text="x")], 0)
    assert order == ["queued: True", "PostToolUse", "after the call"]
