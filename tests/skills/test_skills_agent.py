"""Skill prompt hooks through the reference agent's real loop.

Each test builds an `Agent` with a `ScriptedModel`, real tools (Read, Glob) and skills written to
``<project>/skills/<name>/hooks/``, then reads what every model call received from
``model.calls[i].messages``. Messages are turned into short labels (`label`) so each assertion
states the whole list the model saw, in order.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hookwright.engine.kernel import HookEngine
from hookwright.runtime.agent import (
    DEFAULT_SYSTEM_PROMPT,
    PLANNING_PROMPT,
    STEP_PROMPT,
    Agent,
    AgentConfig,
    TurnResult,
)
from hookwright.runtime.models.scripted import ScriptedModel
from hookwright.runtime.opening import SessionOptions, open_session
from hookwright.runtime.tools import ToolRegistry, default_tools
from hookwright.skills import HookInfo, scan_hooks

Message = dict[str, Any]
HookDecl = tuple[str, str, list[str] | None]

PROMPT = "Look at the notes."
PLAN = "read the notes, then list the text files"

FLOW_HOOKS: list[HookDecl] = [
    ("aui", "after_user_input", None),
    ("bp", "before_planning", None),
    ("bfa", "before_first_agent", None),
    ("bea", "before_each_agent", None),
    ("atc-any", "after_tool_call", None),
    ("atc-read", "after_tool_call", ["Read"]),
    ("atc-glob", "after_tool_call", ["Glob"]),
    ("atc-never", "after_tool_call", ["read_file", "search_text"]),
]

PERSISTENT_HOOKS: list[HookDecl] = [
    ("p-aui", "after_user_input", None),
    ("p-bea", "before_each_agent", None),
]


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def planned_turns(final: str = "Done.") -> list[dict[str, Any]]:
    """Planning says tools are needed; round 1 reads, round 2 globs, round 3 answers."""
    return [
        {"content": f"PLAN: tools\n{PLAN}"},
        {"content": "", "tool_calls": [call("Read", file_path="notes.txt")]},
        {"content": "", "tool_calls": [call("Glob", pattern="*.txt")]},
        {"content": final},
    ]


def write_skill(
    skills: Path, skill: str, hooks: list[HookDecl], *, persistent: bool, role: str = "system"
) -> None:
    hooks_dir = skills / skill / "hooks"
    hooks_dir.mkdir(parents=True)
    entries: list[dict[str, Any]] = []
    for name, timing, tool_filter in hooks:
        entry: dict[str, Any] = {
            "name": name,
            "file": f"{name}.md",
            "timing": timing,
            "role": role,
            "persistent": persistent,
        }
        if tool_filter is not None:
            entry["tool_filter"] = tool_filter
        entries.append(entry)
        (hooks_dir / f"{name}.md").write_text(f"H:{name}\n", encoding="utf-8")
    (hooks_dir / "hooks.json").write_text(json.dumps({"hooks": entries}), encoding="utf-8")


def label(message: Message) -> str:
    """A short name for one message: a hook's name, a built-in prompt, or role[:tool]."""
    content = message.get("content")
    if isinstance(content, str) and content.startswith("H:"):
        return content[2:]
    if content == PLANNING_PROMPT:
        return "planning-prompt"
    if content == STEP_PROMPT:
        return "step-prompt"
    if content == DEFAULT_SYSTEM_PROMPT:
        return "system"
    role = str(message["role"])
    if role == "assistant" and message.get("tool_calls"):
        return "assistant:" + ",".join(c["function"]["name"] for c in message["tool_calls"])
    if role == "assistant" and content == PLAN:
        return "plan"
    return role


def labels(messages: list[Message]) -> list[str]:
    return [label(m) for m in messages]


class Harness:
    """Builds agents on one project; closes every engine it made."""

    def __init__(self, project: Path, home: Path) -> None:
        self.project = project
        self.home = home
        self.engines: list[HookEngine] = []

    @property
    def skills_dir(self) -> Path:
        return self.project / "skills"

    def hooks(self, *skills: str) -> list[HookInfo]:
        errors: list[Any] = []
        loaded = scan_hooks(list(skills), str(self.skills_dir), errors=errors)
        assert errors == []
        return loaded

    def agent(
        self,
        turns: list[dict[str, Any]],
        skills: tuple[str, ...],
        *,
        messages: list[Message] | None = None,
        tools: ToolRegistry | None = None,
        planning: bool = True,
    ) -> tuple[Agent, ScriptedModel, list[dict[str, Any]]]:
        engine = HookEngine(audit_path=None)
        self.engines.append(engine)
        model = ScriptedModel.from_turns(turns)
        events: list[dict[str, Any]] = []
        config = AgentConfig(
            project_dir=self.project,
            home=self.home,
            planning=planning,
            skill_hooks=self.hooks(*skills),
        )
        agent = Agent(
            engine,
            model,
            tools if tools is not None else default_tools(),
            config,
            messages=messages,
            on_event=events.append,
        )
        return agent, model, events


@pytest.fixture
def harness(tmp_path: Path, isolated_home: Path) -> Iterator[Harness]:
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("the notes\n", encoding="utf-8")
    (project / "todo.txt").write_text("the todo list\n", encoding="utf-8")
    write_skill(project / "skills", "flow", FLOW_HOOKS, persistent=False)
    write_skill(project / "skills", "memory", PERSISTENT_HOOKS, persistent=True)
    built = Harness(project, isolated_home)
    yield built
    for engine in built.engines:
        engine.close()


def hook_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "hook"]


async def run(agent: Agent, prompt: str = PROMPT) -> TurnResult:
    result = await agent.run(prompt)
    assert result.status == "completed", result
    return result


# The checkpoint and remove tables ------------------------------------------------------------


async def test_every_checkpoint_at_the_planning_call_each_round_and_after_the_loop(
    harness: Harness,
) -> None:
    agent, model, events = harness.agent(planned_turns(), ("flow",))
    result = await run(agent)

    assert result.final_text == "Done."
    assert len(model.calls) == 4
    assert model.calls[0].tools is None
    assert model.calls[1].tools
    planning, round1, round2, round3 = (labels(c.messages) for c in model.calls)
    # before_planning and the planning prompt: the planning call only.
    assert planning == ["system", "user", "aui", "bp", "planning-prompt"]
    # Round 1: before_each_agent and before_first_agent both fire, then the step prompt.
    assert round1 == ["system", "user", "aui", "plan", "bea", "bfa", "step-prompt"]
    # Round 2: round 1's before_each_agent and step prompt are gone, a new copy comes last;
    # after_tool_call for Read (no filter, and the Read filter) sits after the tool result.
    assert round2 == [
        "system", "user", "aui", "plan", "bfa",
        "assistant:Read", "tool",
        "atc-any", "atc-read",
        "bea", "step-prompt",
    ]  # fmt: skip
    # Round 3: round 1's after_tool_call messages replaced by round 2's (Glob), before_first_agent
    # still there, round 2's before_each_agent replaced.
    assert round3 == [
        "system", "user", "aui", "plan", "bfa",
        "assistant:Read", "tool", "assistant:Glob", "tool",
        "atc-any", "atc-glob",
        "bea", "step-prompt",
    ]  # fmt: skip
    # After the loop no non-persistent hook and no built-in prompt is left in the history.
    assert labels(agent.messages) == [
        "system", "user", "plan", "assistant:Read", "tool", "assistant:Glob", "tool", "assistant",
    ]  # fmt: skip
    assert hook_events(events) == []


async def test_each_row_of_the_visibility_table(harness: Harness) -> None:
    """Counts per call: the checkpoint table read column by column."""
    agent, model, _ = harness.agent(planned_turns(), ("flow",))
    await run(agent)
    seen = [labels(c.messages) for c in model.calls]

    def counts(name: str) -> list[int]:
        return [call.count(name) for call in seen] + [labels(agent.messages).count(name)]

    #                            planning R1 R2 R3 after
    assert counts("aui") == [1, 1, 1, 1, 0]
    assert counts("bp") == [1, 0, 0, 0, 0]
    assert counts("bfa") == [0, 1, 1, 1, 0]
    assert counts("bea") == [0, 1, 1, 1, 0]
    assert counts("atc-any") == [0, 0, 1, 1, 0]
    assert counts("atc-read") == [0, 0, 1, 0, 0]
    assert counts("atc-glob") == [0, 0, 0, 1, 0]
    assert counts("atc-never") == [0, 0, 0, 0, 0]
    assert counts("planning-prompt") == [1, 0, 0, 0, 0]
    assert counts("step-prompt") == [0, 1, 1, 1, 0]


async def test_after_tool_call_goes_after_the_whole_batch_once_per_tool(harness: Harness) -> None:
    turns: list[dict[str, Any]] = [
        {"content": "PLAN: tools"},
        {
            "content": "",
            "tool_calls": [call("Glob", pattern="*.txt"), call("Read", file_path="todo.txt")],
        },
        {"content": "Both done."},
    ]
    agent, model, _ = harness.agent(turns, ("flow",))
    await run(agent)

    assert labels(model.calls[2].messages) == [
        "system", "user", "aui", "bfa",
        "assistant:Glob,Read", "tool", "tool",
        "atc-any", "atc-glob", "atc-any", "atc-read",
        "bea", "step-prompt",
    ]  # fmt: skip
    tool_results = [m["content"] for m in model.calls[2].messages if m["role"] == "tool"]
    assert "todo.txt" in tool_results[0]
    assert "the todo list" in tool_results[1]


async def test_planning_answers_directly_so_no_agent_round_runs(harness: Harness) -> None:
    agent, model, _ = harness.agent([{"content": "Just an answer."}], ("flow",))
    result = await run(agent)

    assert result.final_text == "Just an answer."
    assert [labels(c.messages) for c in model.calls] == [
        ["system", "user", "aui", "bp", "planning-prompt"]
    ]
    assert labels(agent.messages) == ["system", "user", "assistant"]


async def test_without_tools_one_plain_call_sees_only_after_user_input(harness: Harness) -> None:
    agent, model, _ = harness.agent(
        [{"content": "No tools here."}], ("flow",), tools=ToolRegistry()
    )
    result = await run(agent)

    assert result.final_text == "No tools here."
    assert [labels(c.messages) for c in model.calls] == [["system", "user", "aui"]]
    assert model.calls[0].tools is None
    assert labels(agent.messages) == ["system", "user", "assistant"]


async def test_without_planning_round_one_follows_after_user_input(harness: Harness) -> None:
    turns = planned_turns()[1:]
    agent, model, _ = harness.agent(turns, ("flow",), planning=False)
    await run(agent)

    assert labels(model.calls[0].messages) == [
        "system", "user", "aui", "bea", "bfa", "step-prompt",
    ]  # fmt: skip
    assert all("bp" not in labels(c.messages) for c in model.calls)


async def test_a_second_run_on_the_same_agent_starts_clean(harness: Harness) -> None:
    """The agent's history outlives a request: non-persistent hooks must not pile up in it."""
    turns = [{"content": "PLAN: tools"}, {"content": "First."}]
    turns += [{"content": "PLAN: tools"}, {"content": "Second."}]
    agent, model, _ = harness.agent(turns, ("flow",))
    await run(agent)
    await run(agent, "And again.")

    assert labels(model.calls[2].messages) == [
        "system", "user", "assistant", "user", "aui", "bp", "planning-prompt",
    ]  # fmt: skip
    assert labels(model.calls[3].messages).count("aui") == 1
    assert labels(agent.messages) == ["system", "user", "assistant", "user", "assistant"]


# Persistent hooks ----------------------------------------------------------------------------


async def test_persistent_hooks_are_yielded_per_trigger_and_never_removed(
    harness: Harness,
) -> None:
    agent, model, events = harness.agent(planned_turns(), ("memory",))
    await run(agent)

    assert hook_events(events) == [
        {"type": "hook", "name": "p-aui", "role": "system", "content": "H:p-aui"},
        {"type": "hook", "name": "p-bea", "role": "system", "content": "H:p-bea"},
        {"type": "hook", "name": "p-bea", "role": "system", "content": "H:p-bea"},
        {"type": "hook", "name": "p-bea", "role": "system", "content": "H:p-bea"},
    ]
    assert [labels(c.messages).count("p-bea") for c in model.calls] == [0, 1, 2, 3]
    assert labels(agent.messages) == [
        "system", "user", "p-aui", "plan",
        "p-bea", "assistant:Read", "tool",
        "p-bea", "assistant:Glob", "tool",
        "p-bea", "assistant",
    ]  # fmt: skip


async def test_persistent_hooks_travel_through_the_client_and_come_back_twice(
    harness: Harness,
) -> None:
    """Request 1 yields the hook; the client stores the new messages and sends them back."""
    first, _, events = harness.agent([{"content": "Hello."}], ("memory",), tools=ToolRegistry())
    await run(first, "hi")
    yielded = hook_events(events)
    assert [e["name"] for e in yielded] == ["p-aui"]
    history = first.messages[1:]
    assert labels(history) == ["user", "p-aui", "assistant"]

    system = {"role": "system", "content": DEFAULT_SYSTEM_PROMPT}
    second, model, events = harness.agent(
        [{"content": "Again."}], ("memory",), messages=[system, *history], tools=ToolRegistry()
    )
    await run(second, "still there?")

    assert labels(model.calls[0].messages) == [
        "system", "user", "p-aui", "assistant", "user", "p-aui",
    ]  # fmt: skip
    assert [e["name"] for e in hook_events(events)] == ["p-aui"]
    history = second.messages[1:]

    third, model, events = harness.agent(
        [{"content": "Off."}], (), messages=[system, *history], tools=ToolRegistry()
    )
    await run(third, "skill off")

    assert labels(model.calls[0].messages) == [
        "system", "user", "p-aui", "assistant", "user", "p-aui", "assistant", "user",
    ]  # fmt: skip
    assert hook_events(events) == []


async def test_persistent_user_role_hook_through_open_session(harness: Harness) -> None:
    write_skill(
        harness.skills_dir,
        "user-note",
        [("note", "before_first_agent", None)],
        persistent=True,
        role="user",
    )
    script = harness.project / "script.json"
    script.write_text(json.dumps(planned_turns()), encoding="utf-8")
    events: list[dict[str, Any]] = []
    setup = await open_session(
        SessionOptions(
            harness.project,
            home=harness.home,
            model=f"scripted:{script}",
            planning=True,
            skills=["user-note"],
            trust=True,
            on_event=events.append,
        )
    )
    try:
        await run(setup.agent)
    finally:
        await setup.agent.close()
        await setup.engine.aclose()

    assert hook_events(events) == [
        {"type": "hook", "name": "note", "role": "user", "content": "H:note"}
    ]
    assert {"role": "user", "content": "H:note"} in setup.agent.messages


async def test_a_disabled_skill_injects_nothing_and_old_copies_stay(harness: Harness) -> None:
    system = {"role": "system", "content": DEFAULT_SYSTEM_PROMPT}
    history: list[Message] = [
        {"role": "user", "content": "earlier"},
        {"role": "system", "content": "H:p-aui"},
        {"role": "assistant", "content": "earlier answer"},
    ]
    agent, model, events = harness.agent(planned_turns(), (), messages=[system, *history])
    await run(agent)

    for recorded in model.calls:
        assert labels(recorded.messages)[:4] == ["system", "user", "p-aui", "assistant"]
        assert labels(recorded.messages).count("p-aui") == 1
        assert not any(
            name.startswith(("bea", "bfa", "atc", "aui")) for name in labels(recorded.messages)
        )
    assert hook_events(events) == []
    assert labels(agent.messages)[:4] == ["system", "user", "p-aui", "assistant"]


# Built-in prompts by reference ---------------------------------------------------------------


async def test_step_and_planning_prompts_are_removed_by_reference(harness: Harness) -> None:
    """History messages with the very same text as the built-in prompts are left alone."""
    system = {"role": "system", "content": DEFAULT_SYSTEM_PROMPT}
    lookalikes: list[Message] = [
        {"role": "system", "content": PLANNING_PROMPT},
        {"role": "system", "content": STEP_PROMPT},
    ]
    agent, model, _ = harness.agent(planned_turns(), ("flow",), messages=[system, *lookalikes])
    await run(agent)

    counts = [
        (labels(c.messages).count("planning-prompt"), labels(c.messages).count("step-prompt"))
        for c in model.calls
    ]
    assert counts == [(2, 1), (1, 2), (1, 2), (1, 2)]
    assert labels(agent.messages)[:3] == ["system", "planning-prompt", "step-prompt"]
    assert labels(agent.messages).count("planning-prompt") == 1
    assert labels(agent.messages).count("step-prompt") == 1
    assert agent.messages[1] is lookalikes[0]
    assert agent.messages[2] is lookalikes[1]


async def test_skill_hooks_are_selected_and_audited_by_the_engine(harness: Harness) -> None:
    agent, _, _ = harness.agent(planned_turns(), ("flow",))
    records: list[tuple[str, str]] = []
    agent.engine.add_audit_callback(lambda record: records.append((record.event, record.hook)))
    await run(agent)
    agent.engine.close()
    skill_runs = [(event, hook) for event, hook in records if hook.startswith("flow/")]
    assert ("UserPromptSubmit", "flow/aui") in skill_runs
    assert ("PrePlanning", "flow/bp") in skill_runs
    assert skill_runs.count(("PreAgentStep", "flow/bfa")) == 1
    assert skill_runs.count(("PreAgentStep", "flow/bea")) == 3
    assert skill_runs.count(("PostToolBatch", "flow/atc-read")) == 2
    assert [h.name for h in agent.engine.hooks() if h.dialect == "skill"][:2] == [
        "flow/aui",
        "flow/bp",
    ]
