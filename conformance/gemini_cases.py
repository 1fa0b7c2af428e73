"""The Gemini CLI conformance cases: each hook output rule a one-shot `gemini -p` run can
reach. Hooks are written in Gemini's own terms (event names, `run_shell_command`, timeouts
in milliseconds); the scripted turns name tools as the reference agent does (`Bash`), and the
fake Gemini API sends them under Gemini's names. Text a hook gives contains `MARK`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.fake_api import ToolUse, Turn
from conformance.harness import HOOK_PROGRAM, Action, Hook


@dataclass(frozen=True, slots=True)
class GeminiCase:
    name: str
    prompt: str
    turns: Sequence[Turn]
    hooks: Sequence[Hook] = ()
    #: Whether Gemini CLI trusts the project folder (`~/.gemini/trustedFolders.json`).
    trusted: bool = True
    settings: dict[str, Any] = field(default_factory=dict)
    #: False where hookwright differs on purpose: in a folder Gemini CLI does not trust, `gemini
    #: -p` refuses to run (exit 55); hookwright runs without the project's Gemini hooks and
    #: says why, so the tools still run.
    compare_files: bool = True


def bash(use_id: str, command: str) -> ToolUse:
    return ToolUse(use_id, "Bash", {"command": command, "description": "run it"})


def out(**fields: Any) -> Action:
    return Action.json(fields)


def context(text: str) -> Action:
    return Action.json({"hookSpecificOutput": {"additionalContext": text}})


ONE_BASH = [Turn(tools=[bash("call_a", "echo hi > hi.txt")]), Turn("done")]


def log(event: str, label: str, matcher: str | None = None) -> Hook:
    return Hook(event, label, matcher=matcher)


def tool_config(label: str, delay: float = 0, **config: Any) -> Hook:
    """A BeforeToolSelection hook answering `toolConfig`; `delay` makes it finish last."""
    command = f"sleep {delay}; python3 {HOOK_PROGRAM} {label}" if delay else None
    answer = Action.json({"hookSpecificOutput": {"toolConfig": config}})
    return Hook("BeforeToolSelection", label, answer, command=command)


SELECTED_BASH = [Turn("picking", [bash("call_a", "echo hi > hi.txt")]), Turn("done")]

GEMINI_CASES: list[GeminiCase] = [
    GeminiCase("allow", "run it", ONE_BASH, [log("BeforeTool", "bt", "*"), log("AfterTool", "at")]),
    GeminiCase(
        "block-exit-2",
        "run it",
        ONE_BASH,
        [Hook("BeforeTool", "bt", Action(stderr="MARK exit two", exit=2), "run_shell_command")],
    ),
    GeminiCase(
        "deny-json",
        "run it",
        ONE_BASH,
        [Hook("BeforeTool", "bt", out(decision="deny", reason="MARK denied"))],
    ),
    GeminiCase(
        "claude-permission-decision-ignored",
        "run it",
        ONE_BASH,
        [
            Hook(
                "BeforeTool",
                "bt",
                Action.json({"hookSpecificOutput": {"permissionDecision": "deny"}}),
            )
        ],
    ),
    GeminiCase(
        "input-rewrite",
        "run it",
        ONE_BASH,
        [
            Hook(
                "BeforeTool",
                "bt",
                Action.json(
                    {"hookSpecificOutput": {"tool_input": {"command": "echo MARK > new.txt"}}}
                ),
            )
        ],
    ),
    GeminiCase(
        "post-tool-context", "run it", ONE_BASH, [Hook("AfterTool", "at", context("MARK after"))]
    ),
    GeminiCase(
        "prompt-submit-context",
        "say hi",
        [Turn("hi")],
        [Hook("BeforeAgent", "ba", context("MARK prompt context"))],
    ),
    GeminiCase(
        "prompt-submit-block",
        "say hi",
        [Turn("hi")],
        [Hook("BeforeAgent", "ba", out(decision="deny", reason="MARK no prompt"))],
    ),
    GeminiCase(
        "session-start-context",
        "say hi",
        [Turn("hi")],
        [Hook("SessionStart", "ss", context("MARK session"), "startup")],
    ),
    GeminiCase(
        "stop-continuation",
        "say hi",
        [Turn("first"), Turn("second")],
        [
            Hook(
                "AfterAgent",
                "aa",
                command=f"in=$(cat); printf '%s' \"$in\" | python3 {HOOK_PROGRAM} aa; "
                'case "$in" in *\'"stop_hook_active":true\'*) exit 0;; esac; '
                'printf \'{"decision":"deny","reason":"MARK keep going"}\'',
            )
        ],
    ),
    GeminiCase(
        "after-agent-stdin",
        "run it",
        [Turn("Running it.", [bash("call_a", "echo hi > hi.txt")]), Turn("Done.")],
        [log("AfterAgent", "aa")],
    ),
    GeminiCase(
        "matchers",
        "run it",
        ONE_BASH,
        [
            log("BeforeTool", "exact", "run_shell_command"),
            log("BeforeTool", "regex", "^run_.*"),
            log("BeforeTool", "star", "*"),
            log("BeforeTool", "claude-name", "Bash"),
            log("BeforeTool", "other-tool", "write_file"),
        ],
    ),
    GeminiCase(
        "timeout",
        "run it",
        ONE_BASH,
        [Hook("BeforeTool", "slow", extra={"timeout": 1000}, command="sleep 4; exit 2")],
    ),
    GeminiCase(
        "invalid-json",
        "run it",
        ONE_BASH,
        [Hook("BeforeTool", "bad", Action(stdout="{MARK not json"))],
    ),
    GeminiCase(
        "untrusted-project",
        "run it",
        ONE_BASH,
        [log("BeforeTool", "bt"), log("SessionStart", "ss")],
        trusted=False,
        compare_files=False,
    ),
    GeminiCase(
        "before-model",
        "say hi",
        [Turn("hi")],
        [log("BeforeModel", "bm"), log("AfterModel", "am")],
    ),
    GeminiCase(
        "before-model-block",
        "run it",
        ONE_BASH,
        [
            Hook("BeforeModel", "bm", out(decision="deny", reason="MARK no model call")),
            log("BeforeTool", "bt"),
            log("AfterModel", "am"),
        ],
    ),
    GeminiCase(
        "before-model-rewrite",
        "say hi",
        [Turn("hi")],
        [
            Hook(
                "BeforeModel",
                "bm",
                Action.json(
                    {
                        "hookSpecificOutput": {
                            "llm_request": {
                                "messages": [{"role": "user", "content": "MARK rewritten prompt"}]
                            }
                        }
                    }
                ),
            )
        ],
    ),
    GeminiCase(
        "before-tool-selection",
        "run it",
        [Turn("no tools then", [bash("call_a", "echo hi > hi.txt")]), Turn("done")],
        [
            Hook(
                "BeforeToolSelection",
                "bts",
                Action.json({"hookSpecificOutput": {"toolConfig": {"mode": "NONE"}}}),
            )
        ],
    ),
    GeminiCase(
        "tool-selection-union",
        "run it",
        SELECTED_BASH,
        [
            tool_config("shell", allowedFunctionNames=["run_shell_command"]),
            tool_config("reader", 0.5, mode="ANY", allowedFunctionNames=["read_file"]),
        ],
    ),
    GeminiCase(
        "tool-selection-none-wins",
        "run it",
        SELECTED_BASH,
        [
            tool_config("none", mode="NONE"),
            tool_config("shell", 0.5, allowedFunctionNames=["run_shell_command"]),
        ],
    ),
]
