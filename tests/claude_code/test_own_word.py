"""Which Claude Code answers keep the word they decided in (`HookResult.own_word`): a PreToolUse
legacy top-level `decision` does; a `permissionDecision` beside it, or exit 2, decides in the
canonical word, and so does a top-level `decision: "block"` where it is the canonical one."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hookwright.core.events import Event, HookInput
from hookwright.core.results import Decision
from hookwright.dialects.claude_code import decode_command

PRE = HookInput(Event.PreToolUse, payload={"tool_name": "Bash", "tool_input": {"command": "ls"}})
DENY = {"hookEventName": "PreToolUse", "permissionDecision": "deny",
        "permissionDecisionReason": "no"}  # fmt: skip


@pytest.mark.parametrize(
    ("answer", "code", "decision", "word"),
    [
        ({"decision": "block", "reason": "no"}, 0, Decision.deny, "block"),
        ({"decision": "approve"}, 0, Decision.allow, "approve"),
        ({"hookSpecificOutput": DENY}, 0, Decision.deny, None),
        ({"decision": "approve", "hookSpecificOutput": DENY}, 0, Decision.deny, None),
        ({"decision": "approve"}, 2, Decision.deny, None),  # exit 2 decided, not the JSON
    ],
)
def test_a_pre_tool_use_answer_keeps_its_legacy_word_only(
    answer: dict[str, Any], code: int, decision: Decision, word: str | None
) -> None:
    stdout = json.dumps(answer)
    result = decode_command(PRE, exit_code=code, stdout=stdout, stderr="no", label="hook")
    assert (result.decision, result.own_word) == (decision, word), result


def test_a_post_tool_use_block_is_the_canonical_word() -> None:
    inp = HookInput(Event.PostToolUse, payload={"tool_name": "Bash", "tool_input": {}})
    stdout = json.dumps({"decision": "block", "reason": "no"})
    result = decode_command(inp, exit_code=0, stdout=stdout, stderr="", label="hook")
    assert (result.decision, result.own_word) == (Decision.block, None)
