"""`PromptFlow`, the host's side of prompt injections: at each fixed point of a request it hands
the placement exactly the injections of that point; where they go in the message list is the
placement's (by default the skills dialect's, supplied by `host.open`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hookwright.host import PromptFlow, PromptInjection


def injection(
    name: str, timing: str, *, persistent: bool = False, position: int = 0
) -> PromptInjection:
    return PromptInjection(name, timing, "system", f"<{name}>", persistent, position)


class RecordingPlacement:
    """A host's own placement: records what each fixed point was given, places nothing."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.messages = messages
        self.calls: list[tuple[str, list[str]]] = []

    def _got(self, point: str, *groups: Sequence[PromptInjection]) -> list[dict[str, str]]:
        self.calls.append((point, [p.name for group in groups for p in group]))
        return [{"type": "hook", "name": point, "role": "system", "content": ""}]

    def start(self, prompts: Sequence[PromptInjection]) -> list[dict[str, str]]:
        return self._got("start", prompts)

    def before_planning(
        self, planning_prompt: str, prompts: Sequence[PromptInjection]
    ) -> list[dict[str, str]]:
        return self._got(f"before_planning:{planning_prompt}", prompts)

    def after_planning(self) -> list[dict[str, str]]:
        return self._got("after_planning")

    def before_round(
        self,
        round_index: int,
        step_prompt: str,
        each: Sequence[PromptInjection],
        first: Sequence[PromptInjection],
    ) -> list[dict[str, str]]:
        return self._got(f"before_round:{round_index}:{step_prompt}", each, first)

    def after_tools(self, prompts: Sequence[PromptInjection]) -> list[dict[str, str]]:
        return self._got("after_tools", prompts)

    def end_round(self) -> list[dict[str, str]]:
        return self._got("end_round")

    def finish(self) -> list[dict[str, str]]:
        return self._got("finish")


ALL = [
    injection("input", "after_user_input"),
    injection("plan", "before_planning"),
    injection("each", "before_each_agent"),
    injection("first", "before_first_agent"),
    injection("second-tool", "after_tool_call", position=1),
    injection("first-tool", "after_tool_call", position=0),
]


def test_a_host_placement_gets_each_fixed_points_injections_and_its_events_come_back() -> None:
    placements: list[RecordingPlacement] = []

    def placement(messages: list[dict[str, Any]]) -> RecordingPlacement:
        placements.append(RecordingPlacement(messages))
        return placements[-1]

    told: list[str] = []
    messages: list[dict[str, Any]] = []
    flow = PromptFlow(messages, lambda p: told.append(p.name), placement)
    events = [
        *flow.start(ALL),
        *flow.before_planning("plan it", ALL),
        *flow.after_planning(),
        *flow.before_round(1, "step", ALL),
        *flow.after_tools(ALL),
        *flow.end_round(),
        *flow.before_round(2, "step", ALL),
        *flow.end_round(),
        *flow.finish(),
    ]
    [used] = placements
    assert used.messages is messages
    assert used.calls == [
        ("start", ["input"]),
        ("before_planning:plan it", ["plan"]),
        ("after_planning", []),
        ("before_round:1:step", ["each", "first"]),
        ("after_tools", ["first-tool", "second-tool"]),
        ("end_round", []),
        ("before_round:2:step", ["each"]),
        ("end_round", []),
        ("finish", []),
    ]
    assert [event["name"] for event in events] == [point for point, _ in used.calls]
    assert told == ["input", "plan", "each", "first", "first-tool", "second-tool", "each"]


def test_the_default_placement_inserts_and_takes_out_by_the_skills_table() -> None:
    history: list[dict[str, Any]] = [{"role": "user", "content": "hi"}]
    messages = list(history)
    flow = PromptFlow(messages)
    kept = injection("kept", "after_user_input", persistent=True)
    events = flow.start([kept, injection("input", "after_user_input")])
    flow.before_round(0, "step", [injection("first", "before_first_agent")])
    assert [m["content"] for m in messages] == ["hi", "<kept>", "<input>", "<first>", "step"]
    assert events == [{"type": "hook", "name": "kept", "role": "system", "content": "<kept>"}]
    flow.end_round()
    assert flow.finish() == []
    assert [m["content"] for m in messages] == ["hi", "<kept>"]
