"""The `/model` cases: a switch typed before a prompt of the same session (the prompts read as
stream-json messages by Claude Code, as lines of `hookwright chat`). Compared on what the model
reads as well: both record the command, its output and a caveat in the conversation, worded per
version."""

from __future__ import annotations

import json

from conformance.case_kit import WRITES, observers, specific
from conformance.fake_api import Turn
from conformance.harness import Case, Hook

#: Both switch events, observed.
SWITCH_EVENTS = ("PreModelSwitch", "PostModelSwitch")


def _switch(name: str, command: str, *hooks: Hook) -> Case:
    """`command` typed, then the prompt `go`; the tool and stop hooks log what they read."""
    return Case(
        name,
        command,
        WRITES,
        [*hooks, *observers("PreToolUse", "Stop")],
        follow_ups=("go",),
        compare=frozenset({"stdin", "order", "model", "files", "models"}),
    )


def _gate(decision: str) -> Hook:
    answer = specific(
        "PreModelSwitch", permissionDecision=decision, permissionDecisionReason="MARK why"
    )
    return Hook("PreModelSwitch", f"pre-{decision}", answer)


def _deny_switch_to(model: str) -> Hook:
    """A PreModelSwitch hook that denies the switch to `model` alone (it reads the stdin JSON
    as both agents write it, without spaces)."""
    answer = json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreModelSwitch",
                "permissionDecision": "deny",
                "permissionDecisionReason": f"MARK not {model}",
            }
        }
    )
    command = f"grep '\"to_model\":\"{model}\"' >/dev/null && printf '%s' '{answer}' || true"
    return Hook("PreModelSwitch", "deny-one", command=command)


def model_name_cases() -> list[Case]:
    """`/model NAME` for the version's names that are no family name: where the requests go,
    what the output says, and what PreModelSwitch is asked (twice for 2.1.332's `haiku` and
    `opusplan`; `default` reads `requested_model: null`); a deny of the second model asked
    about keeps the model; a switch after the model answered (in the session, or before the session
    was resumed) reads the cache warm."""
    watched = observers(*SWITCH_EVENTS)
    after_answer = Case(
        "model-switch-cache-warm",
        "go",
        [Turn("done"), Turn("done again")],
        [*watched, *observers("Stop")],
        follow_ups=("/model claude-sonnet-5-5", "go"),
        compare=frozenset({"stdin", "order", "model", "files", "models"}),
    )
    after_resume = Case(
        "model-switch-after-resume",
        "go",
        [Turn("done")],
        watched,
        resume="/model sonnet",
        compare=frozenset({"stdin", "order", "files"}),
    )
    return [
        _switch("model-switch-haiku", "/model haiku", *watched),
        _switch("model-switch-opusplan", "/model opusplan", *watched),
        _switch_in_plan_mode("model-switch-opusplan-plan", "/model opusplan"),
        _switch_in_plan_mode(
            "model-switch-from-opusplan-plan", "/model opusplan", "go", "/model sonnet"
        ),
        _switch("model-switch-default", "/model default", *watched),
        _switch("model-switch-best", "/model best", *watched),
        _switch("model-switch-opus-1m", "/model opus[1m]", *watched),
        _switch(
            "model-switch-haiku-second-denied",
            "/model haiku",
            _deny_switch_to("claude-sonnet-5-5"),
            *watched,
        ),
        after_answer,
        after_resume,
    ]


def _flag(name: str, model: str, *, planning: bool = False) -> Case:
    """A session started on `model` (``--model`` for both agents): where its requests go and
    the `effort` its hooks read. In plan mode (`planning`) the model answers at once: each agent
    words plan mode its own way, so the texts are not compared."""
    if planning:
        turns, watched = [Turn("done")], observers("SessionStart", "UserPromptSubmit", "Stop")
        compared = frozenset({"stdin", "order", "models"})
    else:
        turns, watched = WRITES, observers("SessionStart", "PreToolUse", "PostToolUse", "Stop")
        compared = frozenset({"stdin", "order", "model", "files", "models"})
    return Case(
        name,
        "go",
        turns,
        watched,
        permission_mode="plan" if planning else "bypassPermissions",
        compare=compared,
        claude_args=("--model", model),
        hookwright_args=("--model", f"anthropic:{model}"),
    )


def _switch_in_plan_mode(name: str, command: str, *then: str) -> Case:
    """`command` typed in plan mode, then the prompts `then` and `go` the model answers at
    once: where the requests go and what the switch and Stop hooks read (each agent words
    plan mode its own way, so the texts are not compared; Claude Code's PostModelSwitch may
    run before or after the next prompt's UserPromptSubmit, so that is not observed)."""
    return Case(
        name,
        command,
        [Turn("done"), Turn("done again")],
        observers(*SWITCH_EVENTS, "Stop"),
        permission_mode="plan",
        follow_ups=(*then, "go"),
        compare=frozenset({"stdin", "order", "models"}),
    )


def model_flag_cases() -> list[Case]:
    """``opusplan`` (the version's Opus in plan mode, its Sonnet otherwise) and a ``[1m]``
    name (a family's or a model id's: the requests go to the model without the suffix)."""
    return [
        _flag("model-flag-opusplan", "opusplan"),
        _flag("model-flag-opusplan-plan", "opusplan", planning=True),
        _flag("model-flag-sonnet-1m", "sonnet[1m]"),
        _flag("model-flag-id-1m", "claude-opus-5[1m]"),
    ]


def model_switch_cases() -> list[Case]:
    """`/model NAME` (a model the version names, a family name, one it does not know),
    `/model` alone (listing the version's names for models), and a switch a PreModelSwitch
    hook denies or asks about or a PostModelSwitch hook adds context to (an older version has
    neither event: the switch goes through)."""
    context = specific("PostModelSwitch", additionalContext="MARK after the switch")
    return [
        _switch("effort-switch-sonnet", "/model claude-sonnet-5-5"),
        _switch("effort-switch-haiku-4-5", "/model claude-haiku-4-5"),
        _switch("model-switch-family", "/model sonnet", *observers("PreModelSwitch")),
        _switch("model-current", "/model"),
        Case(
            "model-current-opusplan",
            "/model opusplan",
            WRITES,
            observers("PreToolUse", "Stop"),
            follow_ups=("/model", "go"),
            compare=frozenset({"stdin", "order", "model", "files", "models"}),
        ),
        # 2.1.332 adds a note on the context window it assumes for a model it does not know.
        _switch("model-switch-unknown", "/model claude-foo-9", *observers(*SWITCH_EVENTS)),
        _switch("model-switch-denied", "/model claude-sonnet-5-5", _gate("deny")),
        *model_name_cases(),
        *model_flag_cases(),
        _switch("model-switch-ask", "/model claude-sonnet-5-5", _gate("ask")),
        _switch(
            "model-switch-context",
            "/model claude-sonnet-5-5",
            Hook("PostModelSwitch", "post", context),
        ),
    ]
