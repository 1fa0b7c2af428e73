"""The `/model` cases: a switch typed before a prompt of the same session (the prompts read as
stream-json messages by Claude Code, as lines of `hookwright chat`). Compared on what the model
reads as well: both record the command, its output and a caveat in the conversation, worded per
version."""

from __future__ import annotations

from conformance.case_kit import WRITES, observers, specific
from conformance.harness import Case, Hook


def _switch(name: str, command: str, *hooks: Hook, read: str = "model") -> Case:
    """`command` typed, then the prompt `go`; the tool and stop hooks log what they read.
    `read`: how what the model reads is compared (`verdict`: each text's first line)."""
    return Case(
        name,
        command,
        WRITES,
        [*hooks, *observers("PreToolUse", "Stop")],
        follow_ups=("go",),
        compare=frozenset({"stdin", "order", read, "files", "models"} - {""}),
    )


def _gate(decision: str) -> Hook:
    answer = specific(
        "PreModelSwitch", permissionDecision=decision, permissionDecisionReason="MARK why"
    )
    return Hook("PreModelSwitch", f"pre-{decision}", answer)


def model_switch_cases() -> list[Case]:
    """`/model NAME` (a model the version names, a family name, one it does not know),
    `/model` alone, and a switch a PreModelSwitch hook denies or asks about or a
    PostModelSwitch hook adds context to (an older version has neither event: the switch
    goes through)."""
    context = specific("PostModelSwitch", additionalContext="MARK after the switch")
    return [
        _switch("effort-switch-sonnet", "/model claude-sonnet-5-5"),
        _switch("effort-switch-haiku-4-5", "/model claude-haiku-4-5"),
        _switch("model-switch-family", "/model sonnet", *observers("PreModelSwitch")),
        # After the first line, the names each agent takes.
        _switch("model-current", "/model", read="verdict"),
        # Claude Code adds a line on the context window it assumes for a model it does not
        # know; hookwright assumes none. The hooks' effort and the requests' model compared.
        _switch("model-switch-unknown", "/model claude-foo-9", read=""),
        _switch("model-switch-denied", "/model claude-sonnet-5-5", _gate("deny")),
        _switch("model-switch-ask", "/model claude-sonnet-5-5", _gate("ask")),
        _switch(
            "model-switch-context",
            "/model claude-sonnet-5-5",
            Hook("PostModelSwitch", "post", context),
        ),
    ]
