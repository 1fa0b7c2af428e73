"""HookManager and SkillHookFlow, driven through simulated requests with hooks loaded from disk.

A scripted "model" snapshots the message list at every model call (a deep copy for the contents
and the list of the objects themselves for identity checks).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from hookwright.skills import TIMINGS, HookInfo, HookManager, SkillHookFlow, scan_hooks

Message = dict[str, Any]

FLOW_HOOKS = [
    ("aui", "after_user_input", None),
    ("bp", "before_planning", None),
    ("bfa", "before_first_agent", None),
    ("bea", "before_each_agent", None),
    ("atc-read", "after_tool_call", ["read_file"]),
    ("atc-any", "after_tool_call", None),
]
PERSISTENT_HOOKS = [
    ("p-aui", "after_user_input", None),
    ("p-atc", "after_tool_call", ["write_file"]),
]
ROUNDS = [["read_file", "write_file"], ["search_text"], []]


def write_skill(
    root: Path, skill: str, hooks: list[tuple[str, str, list[str] | None]], *, persistent: bool
) -> None:
    hooks_dir = root / skill / "hooks"
    hooks_dir.mkdir(parents=True)
    entries = []
    for name, timing, tool_filter in hooks:
        hook: dict[str, Any] = {
            "name": name,
            "file": f"{name}.md",
            "timing": timing,
            "role": "system",
            "persistent": persistent,
        }
        if tool_filter is not None:
            hook["tool_filter"] = tool_filter
        entries.append(hook)
        (hooks_dir / f"{name}.md").write_text(f"H:{name}\n", encoding="utf-8")
    (hooks_dir / "hooks.json").write_text(json.dumps({"hooks": entries}), encoding="utf-8")


@pytest.fixture
def skills_dir(tmp_path: Path) -> str:
    write_skill(tmp_path, "flow", FLOW_HOOKS, persistent=False)
    write_skill(tmp_path, "memory", PERSISTENT_HOOKS, persistent=True)
    return str(tmp_path)


@dataclass
class Snapshot:
    contents: list[str]
    messages: list[Message]
    objects: list[Message]

    def count(self, content: str) -> int:
        return self.contents.count(content)

    def holds(self, message: Message) -> bool:
        return any(obj is message for obj in self.objects)


@dataclass
class Run:
    """One simulated request; `calls` maps each model call to what the model saw."""

    messages: list[Message]
    flow: SkillHookFlow
    calls: dict[str, Snapshot] = field(default_factory=dict)
    events: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    injected: dict[str, dict[str, list[Message]]] = field(default_factory=dict)

    def model_call(self, label: str) -> None:
        self.calls[label] = Snapshot(
            contents=[m["content"] for m in self.messages],
            messages=copy.deepcopy(self.messages),
            objects=list(self.messages),
        )
        self.injected[label] = {t: self.flow.manager.injected(t) for t in TIMINGS}

    def all_events(self) -> list[dict[str, str]]:
        return [event for events in self.events.values() for event in events]


def new_messages(user: str = "U") -> list[Message]:
    return [{"role": "system", "content": "S"}, {"role": "user", "content": user}]


def run_request(
    messages: list[Message], hooks: list[HookInfo], rounds: list[list[str]] = ROUNDS
) -> Run:
    """The seed's flow with a planning call, then agent rounds until one makes no tool call."""
    run = Run(messages, SkillHookFlow(HookManager(messages, hooks)))
    run.events["start"] = run.flow.start()
    run.events["before_planning"] = run.flow.before_planning("PLAN")
    run.model_call("planning")
    run.events["after_planning"] = run.flow.after_planning()
    for index, tools in enumerate(rounds, start=1):
        run.events[f"round{index}"] = run.flow.before_round(index, f"STEP{index}")
        run.model_call(f"round{index}")
        if not tools:
            messages.append({"role": "assistant", "content": "final answer"})
            run.events[f"end{index}"] = run.flow.end_round()
            break
        messages.append(
            {
                "role": "assistant",
                "content": f"A{index}",
                "tool_calls": [{"name": t} for t in tools],
            }
        )
        for tool in tools:
            messages.append({"role": "tool", "name": tool, "content": f"T{index}:{tool}"})
        run.events[f"tools{index}"] = run.flow.after_tools(tools)
        run.events[f"end{index}"] = run.flow.end_round()
    run.events["finish"] = run.flow.finish()
    run.model_call("after")
    return run


@pytest.fixture
def flow_run(skills_dir: str) -> Run:
    return run_request(new_messages(), scan_hooks(["flow"], skills_dir))


CALLS = ["planning", "round1", "round2", "round3", "after"]


def test_model_sees_exactly_these_messages(flow_run: Run) -> None:
    seen = {label: snap.contents for label, snap in flow_run.calls.items()}

    assert seen == {
        "planning": ["S", "U", "H:aui", "H:bp", "PLAN"],
        "round1": ["S", "U", "H:aui", "H:bea", "H:bfa", "STEP1"],
        "round2": [
            "S", "U", "H:aui", "H:bfa",
            "A1", "T1:read_file", "T1:write_file", "H:atc-read", "H:atc-any", "H:atc-any",
            "H:bea", "STEP2",
        ],
        "round3": [
            "S", "U", "H:aui", "H:bfa",
            "A1", "T1:read_file", "T1:write_file",
            "A2", "T2:search_text", "H:atc-any",
            "H:bea", "STEP3",
        ],
        "after": [
            "S", "U", "H:aui",
            "A1", "T1:read_file", "T1:write_file",
            "A2", "T2:search_text",
            "H:bea", "final answer",
        ],
    }  # fmt: skip
    assert flow_run.calls["round1"].messages[3] == {"role": "system", "content": "H:bea"}


# How many copies of each hook the model sees at each call: the checkpoint table, with the
# remove table implied (before_planning gone after planning, before_first_agent and
# after_tool_call gone after the loop, before_each_agent replaced each round).
VISIBILITY = {
    "after_user_input": ("H:aui", [1, 1, 1, 1, 1]),
    "before_planning": ("H:bp", [1, 0, 0, 0, 0]),
    "before_first_agent": ("H:bfa", [0, 1, 1, 1, 0]),
    "before_each_agent": ("H:bea", [0, 1, 1, 1, 1]),
    "after_tool_call": ("H:atc-any", [0, 0, 2, 1, 0]),
}


@pytest.mark.parametrize("timing", list(VISIBILITY))
def test_checkpoint_table_row(flow_run: Run, timing: str) -> None:
    content, expected = VISIBILITY[timing]

    assert [flow_run.calls[label].count(content) for label in CALLS] == expected


def test_after_user_input_is_one_message_for_the_whole_request(flow_run: Run) -> None:
    [aui] = flow_run.injected["planning"]["after_user_input"]

    assert all(flow_run.calls[label].holds(aui) for label in CALLS)
    assert flow_run.flow.manager.injected("after_user_input") == [aui]


def test_before_planning_is_removed_right_after_the_planning_call(flow_run: Run) -> None:
    [bp] = flow_run.injected["planning"]["before_planning"]

    assert flow_run.calls["planning"].holds(bp)
    assert flow_run.injected["round1"]["before_planning"] == []
    assert not any(flow_run.calls[label].holds(bp) for label in CALLS[1:])


def test_before_first_agent_is_injected_once_and_removed_after_the_loop(flow_run: Run) -> None:
    [bfa] = flow_run.injected["round1"]["before_first_agent"]

    assert [flow_run.calls[label].holds(bfa) for label in CALLS] == [False, True, True, True, False]
    assert flow_run.injected["round3"]["before_first_agent"] == [bfa]
    assert flow_run.flow.manager.injected("before_first_agent") == []


def test_before_each_agent_is_replaced_at_the_start_of_each_round(flow_run: Run) -> None:
    per_round = [flow_run.injected[f"round{i}"]["before_each_agent"] for i in (1, 2, 3)]

    assert [len(messages) for messages in per_round] == [1, 1, 1]
    first, second, third = (messages[0] for messages in per_round)
    assert first is not second and second is not third
    assert flow_run.calls["round1"].holds(first)
    assert not flow_run.calls["round2"].holds(first) and flow_run.calls["round2"].holds(second)
    assert not flow_run.calls["round3"].holds(second) and flow_run.calls["round3"].holds(third)
    assert flow_run.calls["after"].holds(third), "finish() leaves the last round's, as the seed"


def test_after_tool_call_is_seen_by_the_next_round_then_replaced(flow_run: Run) -> None:
    manager = flow_run.flow.manager
    from_round1 = flow_run.injected["round2"]["after_tool_call"]
    from_round2 = flow_run.injected["round3"]["after_tool_call"]

    assert [m["content"] for m in from_round1] == ["H:atc-read", "H:atc-any", "H:atc-any"]
    assert [m["content"] for m in from_round2] == ["H:atc-any"]
    assert all(flow_run.calls["round2"].holds(m) for m in from_round1)
    assert not any(flow_run.calls["round3"].holds(m) for m in from_round1)
    assert flow_run.calls["round3"].holds(from_round2[0])
    assert not flow_run.calls["after"].holds(from_round2[0])
    assert manager.injected("after_tool_call") == []


def test_step_prompts_live_for_their_own_call_only(flow_run: Run) -> None:
    for label in CALLS:
        prompts = [c for c in flow_run.calls[label].contents if c == "PLAN" or c.startswith("STEP")]
        expected = {"planning": ["PLAN"], "after": []}.get(label, [f"STEP{label[-1]}"])
        assert prompts == expected, label


def test_each_agent_comes_before_first_agent_on_round_one(flow_run: Run) -> None:
    contents = flow_run.calls["round1"].contents

    assert contents.index("H:bea") < contents.index("H:bfa") < contents.index("STEP1")


def test_tool_hooks_follow_the_whole_batch_of_results(flow_run: Run) -> None:
    contents = flow_run.calls["round2"].contents
    start = contents.index("A1")

    assert contents[start : start + 4] == ["A1", "T1:read_file", "T1:write_file", "H:atc-read"]


def test_tool_filter_matches_only_listed_tools(flow_run: Run) -> None:
    assert flow_run.calls["round2"].count("H:atc-read") == 1
    assert flow_run.calls["round3"].count("H:atc-read") == 0


def test_non_persistent_hooks_yield_no_events(flow_run: Run) -> None:
    assert flow_run.all_events() == []


def test_persistent_hooks_are_yielded_once_per_trigger_and_never_removed(skills_dir: str) -> None:
    hooks = scan_hooks(["memory"], skills_dir)

    run = run_request(new_messages(), hooks)

    p_aui = {"type": "hook", "name": "p-aui", "role": "system", "content": "H:p-aui"}
    p_atc = {"type": "hook", "name": "p-atc", "role": "system", "content": "H:p-atc"}
    assert {k: v for k, v in run.events.items() if v} == {"start": [p_aui], "tools1": [p_atc]}
    assert [run.calls[label].count("H:p-aui") for label in CALLS] == [1, 1, 1, 1, 1]
    assert [run.calls[label].count("H:p-atc") for label in CALLS] == [0, 0, 1, 1, 1]
    [kept] = run.flow.manager.injected("after_tool_call")
    assert run.calls["after"].holds(kept)


def client_history(run: Run) -> list[Message]:
    """What a client keeps: the visible turns plus the persistent hooks it was sent."""
    history = [m for m in run.calls["planning"].messages if m["role"] == "user"]
    history += [
        {"role": e["role"], "content": e["content"], "_hook": e["name"]} for e in run.all_events()
    ]
    history.append({"role": "assistant", "content": "final answer"})
    return history


def test_second_request_holds_the_sent_back_copy_and_a_new_one(skills_dir: str) -> None:
    hooks = scan_hooks(["memory"], skills_dir)
    first = run_request(new_messages(), hooks)
    messages = [{"role": "system", "content": "S"}, *client_history(first)]
    messages.append({"role": "user", "content": "U2"})
    sent_back = [m for m in messages if m.get("_hook") == "p-aui"]

    second = run_request(messages, hooks)

    assert len(sent_back) == 1
    assert second.events["start"] == first.events["start"]
    assert [second.calls[label].count("H:p-aui") for label in CALLS] == [2, 2, 2, 2, 2]
    assert second.calls["after"].holds(sent_back[0])


def test_disabled_skill_injects_nothing_and_old_copies_stay(skills_dir: str) -> None:
    first = run_request(new_messages(), scan_hooks(["memory"], skills_dir))
    messages = [{"role": "system", "content": "S"}, *client_history(first)]
    old = [m for m in messages if "_hook" in m]

    hooks = scan_hooks(["flow"], skills_dir)
    second = run_request(messages, hooks)

    assert [m["_hook"] for m in old] == ["p-aui", "p-atc"]
    assert second.all_events() == []
    for label in CALLS:
        assert all(second.calls[label].holds(m) for m in old)
        assert second.calls[label].count("H:p-aui") == 1
        assert second.calls[label].count("H:p-atc") == 1


def test_remove_leaves_an_equal_text_copy_from_history(skills_dir: str) -> None:
    [hook] = [h for h in scan_hooks(["flow"], skills_dir) if h.timing == "before_planning"]
    from_history: Message = {"role": "system", "content": hook.content}
    messages = [from_history]
    manager = HookManager(messages, [hook])

    manager.inject("before_planning")
    manager.remove("before_planning")

    assert messages == [from_history] and messages[0] is from_history


def test_inject_prompt_and_remove_prompt_by_reference() -> None:
    twin: Message = {"role": "system", "content": "STEP"}
    messages: list[Message] = [twin]
    manager = HookManager(messages, [])

    ref = manager.inject_prompt("STEP")
    user_ref = manager.inject_prompt("STEP", role="user")

    assert ref == twin and ref is not twin
    assert user_ref == {"role": "user", "content": "STEP"}
    assert messages == [twin, ref, user_ref]
    manager.remove_prompt(ref)
    assert len(messages) == 2 and messages[0] is twin and messages[1] is user_ref
    manager.remove_prompt(ref)
    manager.remove_prompt(user_ref)
    assert messages == [twin] and messages[0] is twin


def hook(name: str, timing: str, **kw: Any) -> HookInfo:
    return HookInfo(
        name=name,
        file=f"{name}.md",
        timing=timing,
        role=kw.get("role", "system"),
        persistent=kw.get("persistent", False),
        tool_filter=kw.get("tool_filter"),
        content=f"C:{name}",
        skill="test",
    )


def test_inject_without_remove_adds_again() -> None:
    messages: list[Message] = []
    manager = HookManager(messages, [hook("h", "after_tool_call")])

    manager.inject("after_tool_call", tool_name="a")
    manager.inject("after_tool_call", tool_name="a")

    assert [m["content"] for m in messages] == ["C:h", "C:h"]
    assert messages[0] is not messages[1]
    manager.remove("after_tool_call")
    assert messages == []


@pytest.mark.parametrize(
    ("tool_filter", "tool_name", "fires"),
    [
        (None, "anything", True),
        (None, None, True),
        (["read_file", "search_text"], "search_text", True),
        (["read_file"], "write_file", False),
        (["read_file"], None, False),
        (["read_file"], "READ_FILE", False),
    ],
)
def test_tool_filter(tool_filter: list[str] | None, tool_name: str | None, fires: bool) -> None:
    messages: list[Message] = []
    manager = HookManager(messages, [hook("h", "after_tool_call", tool_filter=tool_filter)])

    if tool_name is None:
        manager.inject("after_tool_call")
    else:
        manager.inject("after_tool_call", tool_name=tool_name)

    assert len(messages) == (1 if fires else 0)


def test_tool_filter_is_ignored_outside_after_tool_call() -> None:
    messages: list[Message] = []
    manager = HookManager(messages, [hook("h", "before_each_agent", tool_filter=["x"])])

    manager.inject("before_each_agent")

    assert [m["content"] for m in messages] == ["C:h"]


def test_inject_returns_persistent_hooks_only_and_remove_keeps_them() -> None:
    messages: list[Message] = []
    manager = HookManager(
        messages,
        [
            hook("keep", "after_user_input", persistent=True, role="user"),
            hook("drop", "after_user_input"),
        ],
    )

    returned = manager.inject("after_user_input")
    manager.remove("after_user_input")

    assert returned == [{"name": "keep", "role": "user", "content": "C:keep"}]
    assert messages == [{"role": "user", "content": "C:keep"}]
    assert manager.injected("after_user_input") == messages
    assert manager.injected("after_user_input")[0] is messages[0]


def test_hooks_of_other_timings_are_untouched() -> None:
    messages: list[Message] = []
    manager = HookManager(messages, [hook("a", "before_each_agent"), hook("b", "after_tool_call")])

    manager.inject("before_each_agent")
    manager.inject("after_tool_call")
    manager.remove("before_each_agent")

    assert [m["content"] for m in messages] == ["C:b"]


@pytest.mark.parametrize("method", ["inject", "remove", "injected"])
def test_unknown_timing_names_the_valid_ones(method: str) -> None:
    manager = HookManager([], [])

    with pytest.raises(ValueError, match="before_lunch") as info:
        getattr(manager, method)("before_lunch")

    assert all(timing in str(info.value) for timing in TIMINGS)


def test_unknown_inject_keyword_is_refused() -> None:
    manager = HookManager([], [hook("h", "after_tool_call", tool_filter=["x"])])

    with pytest.raises(TypeError, match="tool"):
        manager.inject("after_tool_call", tool="x")


@pytest.mark.parametrize(
    ("bad", "fragment"),
    [(hook("h", "whenever"), "whenever"), (hook("h", "after_user_input", role="bot"), "bot")],
)
def test_manager_refuses_hooks_it_could_never_fire(bad: HookInfo, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        HookManager([], [bad])


def test_remove_tolerates_messages_the_host_already_dropped() -> None:
    messages: list[Message] = []
    manager = HookManager(messages, [hook("h", "before_planning")])
    manager.inject("before_planning")
    messages.clear()

    manager.remove("before_planning")

    assert messages == []


def test_flow_without_tools_is_start_then_finish(skills_dir: str) -> None:
    messages = new_messages()
    flow = SkillHookFlow.for_request(messages, scan_hooks(["flow", "memory"], skills_dir))

    events = flow.start()
    seen = [m["content"] for m in messages]
    flow.finish()

    assert [e["name"] for e in events] == ["p-aui"]
    assert seen == ["S", "U", "H:aui", "H:p-aui"]
    assert [m["content"] for m in messages] == seen


def test_flow_may_skip_planning(skills_dir: str) -> None:
    messages = new_messages()
    flow = SkillHookFlow.for_request(messages, scan_hooks(["flow"], skills_dir))
    flow.start()

    flow.before_round(0, None)

    assert [m["content"] for m in messages] == ["S", "U", "H:aui", "H:bea", "H:bfa"]
    assert flow.current_round == 0


def test_flow_refuses_calls_out_of_order() -> None:
    flow = SkillHookFlow(HookManager([], []))

    with pytest.raises(RuntimeError, match=r"before_round\(\) cannot be called before start"):
        flow.before_round(1, None)
    flow.start()
    with pytest.raises(RuntimeError, match=r"after_tools\(\) cannot be called after start"):
        flow.after_tools(["x"])
    flow.before_round(1, None)
    flow.after_tools(["x"])
    with pytest.raises(RuntimeError, match=r"after_tools\(\) cannot be called after after_tools"):
        flow.after_tools(["y"])
    with pytest.raises(RuntimeError, match="before_planning"):
        flow.before_planning("late")
    flow.end_round()
    with pytest.raises(ValueError, match="must increase"):
        flow.before_round(1, None)
    flow.finish()
    with pytest.raises(RuntimeError, match="after finish"):
        flow.start()


def test_finish_cleans_up_an_aborted_round_and_is_idempotent(skills_dir: str) -> None:
    messages = new_messages()
    flow = SkillHookFlow.for_request(messages, scan_hooks(["flow"], skills_dir))
    flow.start()
    flow.before_round(1, "STEP1")

    assert flow.finish() == []
    assert flow.finish() == []

    assert [m["content"] for m in messages] == ["S", "U", "H:aui", "H:bea"]


def test_finish_cleans_up_an_aborted_planning_round(skills_dir: str) -> None:
    messages = new_messages()
    flow = SkillHookFlow.for_request(messages, scan_hooks(["flow"], skills_dir))
    flow.start()
    flow.before_planning("PLAN")

    flow.finish()

    assert [m["content"] for m in messages] == ["S", "U", "H:aui"]
