"""The conformance cases: every hook output field of the Claude Code tables that a one-shot
`-p` run can reach, on every event the reference agent fires in such a run.

Each hook logs its stdin and answers as its `Action` says. Text a hook gives contains `MARK` so
a reader of a diff can see where it went.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from conformance.case_kit import (
    EVERY_EVENT,
    ONE_BASH,
    PROMPT_GATE,
    SKILL,
    SUBAGENT_INPUT,
    TOOL_EVENTS,
    WRITES,
    bash,
    blocked,
    observers,
    out,
    specific,
    typed_command,
    write,
)
from conformance.fake_api import ToolUse, Turn
from conformance.harness import Action, Case, Hook
from conformance.model_cases import model_switch_cases
from conformance.order_cases import input_order_cases, unread_file_cases
from conformance.refusal_cases import (
    agent_unknown_key_cases,
    bash_timeout_cases,
    edit_create_cases,
    missing_file_hint_cases,
    refusal_cases,
)
from conformance.skill_cases import (
    frontmatter_cases,
    nested_command_cases,
    repeated_skill_cases,
    resume_cases,
    slash_and_skill_cases,
    unknown_skill_cases,
)
from conformance.subagent_cases import read_set_cases

# A Stop-loop plugin in the popular style: it finds the transcript in its stdin and greps it for
# the assistant's lines. Claude Code writes the transcript shortly after the reply, so the hook
# waits for the reply's line before it decides: one more round, then stop.
STOP_LOOP = (
    'in=$(cat); t=$(printf \'%s\' "$in" | sed -n \'s/.*"transcript_path":"\\([^"]*\\)".*/\\1/p\'); '
    'want=1; case "$in" in *\'"stop_hook_active":true\'*) want=2;; esac; n=0; '
    "for i in 1 2 3 4 5 6 7 8 9 10; do "
    'n=$(grep -c \'"role":"assistant"\' "$t" 2>/dev/null); '
    '[ "${n:-0}" -ge "$want" ] && break; sleep 0.3; done; '
    'if [ "${n:-0}" -lt 2 ]; then echo "MARK keep going $n" >&2; exit 2; fi'
)


def _wire_cases() -> list[Case]:
    return [
        Case(
            "wire-every-event",
            "run it",
            [
                Turn(tools=[bash("toolu_a", "echo out; echo err >&2; echo out2")]),
                Turn(tools=[bash("toolu_b", "mkdir -p sub && cd sub"), bash("toolu_c", "true")]),
                Turn(tools=[bash("toolu_d", "pwd > where.txt; exit 3")]),
                Turn(tools=[write("toolu_e", "note.txt", "hello\n")]),
                Turn("done"),
            ],
            observers(*EVERY_EVENT, *TOOL_EVENTS),
        ),
        Case(
            "wire-grep-raw-stdin",
            "clean up",
            [Turn(tools=[bash("toolu_a", "rm -rf build")]), Turn("done")],
            [
                Hook(
                    "PreToolUse",
                    "grep",
                    matcher="Bash",
                    command='grep -q \'"command":"rm\' && '
                    "{ echo 'MARK no rm from grep' >&2; exit 2; } || exit 0",
                )
            ],
            files={"build/keep.txt": "kept\n"},
        ),
        Case(
            "wire-transcript-stop-loop",
            "work",
            [Turn("first answer"), Turn("second answer")],
            [Hook("Stop", "loop", command=STOP_LOOP)],
        ),
    ]


def _context_cases() -> list[Case]:
    return [
        Case(
            "context-every-event",
            "go",
            ONE_BASH,
            [
                Hook(
                    "SessionStart", "ss-ctx", specific("SessionStart", additionalContext="MARK ss")
                ),
                Hook("SessionStart", "ss-plain", Action(stdout="MARK ss plain")),
                Hook("UserPromptSubmit", "ups-plain", Action(stdout="MARK ups plain")),
                Hook(
                    "UserPromptSubmit",
                    "ups-ctx",
                    specific("UserPromptSubmit", additionalContext="MARK ups"),
                ),
                Hook(
                    "PreToolUse",
                    "pre",
                    specific("PreToolUse", additionalContext="MARK pre"),
                    "Bash",
                ),
                Hook(
                    "PostToolUse",
                    "post",
                    specific("PostToolUse", additionalContext="MARK post"),
                    "Bash",
                ),
                Hook(
                    "PostToolBatch",
                    "batch",
                    specific("PostToolBatch", additionalContext="MARK batch"),
                ),
            ],
        ),
        Case(
            "context-failure",
            "go",
            [Turn(tools=[bash("toolu_a", "echo bad >&2; exit 3")]), Turn("done")],
            [
                Hook(
                    "PostToolUseFailure",
                    "fail",
                    specific("PostToolUseFailure", additionalContext="MARK failed"),
                    "Bash",
                ),
                Hook("PostToolUse", "post", matcher="Bash"),
            ],
        ),
        Case(
            "context-silent-outputs",
            "go",
            ONE_BASH,
            [
                Hook("PreToolUse", "exit1", Action(stderr="MARK exit 1", exit=1), "Bash"),
                Hook("PostToolUse", "plain", Action(stdout="MARK post plain"), "Bash"),
                Hook("Stop", "sysmsg", out({"systemMessage": "MARK to the user"})),
                Hook("UserPromptSubmit", "suppress", out({"suppressOutput": True})),
            ],
        ),
    ]


def _pre_tool_cases() -> list[Case]:
    pre = "PreToolUse"
    return [
        Case(
            "pre-deny-json",
            "go",
            [Turn(tools=[bash("toolu_a", "echo hi"), bash("toolu_b", "echo two")]), Turn("done")],
            [
                Hook(
                    pre,
                    "deny",
                    specific(
                        pre,
                        permissionDecision="deny",
                        permissionDecisionReason="MARK no",
                        additionalContext="MARK ctx",
                    ),
                    "Bash",
                ),
                *observers("PostToolBatch", "Stop"),
            ],
        ),
        Case("pre-deny-exit2", "go", ONE_BASH, [Hook(pre, "e2", blocked("MARK stop"), "Bash")]),
        Case(
            "pre-legacy-block",
            "go",
            ONE_BASH,
            [Hook(pre, "legacy", out({"decision": "block", "reason": "MARK legacy"}), "Bash")],
        ),
        Case(
            "pre-legacy-approve",
            "go",
            ONE_BASH,
            [Hook(pre, "approve", out({"decision": "approve", "reason": "fine"}), "Bash")],
            permission_mode="default",
        ),
        Case(
            "pre-rewrite",
            "go",
            ONE_BASH,
            [
                Hook(
                    pre,
                    "rewrite",
                    specific(
                        pre,
                        permissionDecision="allow",
                        updatedInput={
                            "command": "echo rewritten > out.txt; echo rewritten",
                            "description": "run it",
                        },
                    ),
                    "Bash",
                ),
                *observers("PostToolUse", "PostToolBatch", matcher="Bash"),
            ],
        ),
        Case(
            "pre-ask-headless",
            "go",
            ONE_BASH,
            [
                Hook(
                    pre,
                    "ask",
                    specific(pre, permissionDecision="ask", permissionDecisionReason="MARK ask"),
                    "Bash",
                ),
                *observers("PostToolBatch"),
            ],
            permission_mode="default",
        ),
        Case(
            "pre-allow-default-mode",
            "go",
            [Turn(tools=[bash("toolu_a", "touch made.txt")]), Turn("done")],
            [Hook(pre, "allow", specific(pre, permissionDecision="allow"), "Bash")],
            permission_mode="default",
        ),
        Case(
            "pre-if-rule",
            "go",
            [Turn(tools=[bash("toolu_a", "git status"), bash("toolu_b", "echo hi")]), Turn("done")],
            [Hook(pre, "if-git", blocked("MARK no git"), "Bash", extra={"if": "Bash(git *)"})],
        ),
    ]


def _permission_cases() -> list[Case]:
    """A run without a person: a PreToolUse `ask` fires no PermissionRequest hook and the
    model gets the hook's reason; a file-writing command meets the working-directory check."""
    pre, request = "PreToolUse", "PermissionRequest"
    ask = specific(pre, permissionDecision="ask", permissionDecisionReason="MARK ask")
    allow = specific(request, decision={"behavior": "allow"})
    touch = [Turn(tools=[bash("toolu_a", "touch made.txt")]), Turn("done")]
    return [
        Case(
            "perm-ask-observed",
            "go",
            touch,
            [Hook(pre, "ask", ask, "Bash"), *observers(request, "PostToolUse", matcher="Bash")],
            permission_mode="default",
        ),
        Case(
            "perm-ask-hook-allows",
            "go",
            touch,
            [
                Hook(pre, "ask", ask, "Bash"),
                Hook(request, "allow", allow, "Bash"),
                *observers("PostToolUse", "PostToolBatch", matcher="Bash"),
            ],
            permission_mode="default",
        ),
        Case(
            "perm-ask-write-bypass",
            "go",
            [Turn(tools=[write("toolu_a", "note.txt", "hello\n")]), Turn("done")],
            [
                Hook(pre, "ask", ask, "Write"),
                Hook(request, "allow", allow, "Write"),
                *observers("PostToolUse", matcher="Write"),
            ],
        ),
        # A mode ask fires PermissionRequest hooks in `-p` in hookwright only (a deliberate
        # difference, see docs/claude-code.md), so these cases observe PostToolUse alone.
        Case(
            "perm-mode-ask-touch",
            "go",
            [Turn(tools=[bash("toolu_a", "touch made.txt && echo made")]), Turn("done")],
            observers("PostToolUse", matcher="Bash"),
            permission_mode="default",
        ),
    ]


def _post_tool_cases() -> list[Case]:
    post = "PostToolUse"
    return [
        Case(
            "post-block-json",
            "go",
            ONE_BASH,
            [Hook(post, "block", out({"decision": "block", "reason": "MARK post"}), "Bash")],
        ),
        Case("post-exit2", "go", ONE_BASH, [Hook(post, "e2", blocked("MARK post e2"), "Bash")]),
        Case(
            "post-updated-output",
            "go",
            ONE_BASH,
            [
                Hook(
                    post,
                    "replace",
                    specific(
                        post,
                        updatedToolOutput={
                            "stdout": "MARK new",
                            "stderr": "",
                            "interrupted": False,
                            "isImage": False,
                        },
                    ),
                    "Bash",
                ),
                *observers("PostToolBatch"),
            ],
        ),
        Case(
            "post-updated-output-string",
            "go",
            ONE_BASH,
            [Hook(post, "string", specific(post, updatedToolOutput="MARK ignored"), "Bash")],
        ),
        Case(
            "post-classifier-context",
            "go",
            ONE_BASH,
            [Hook(post, "classifier", specific(post, classifierContext="MARK note"), "Bash")],
        ),
    ]


def _stop_cases() -> list[Case]:
    return [
        Case(
            "stop-continue-false-pre",
            "go",
            ONE_BASH,
            [
                Hook("PreToolUse", "halt", out({"continue": False, "stopReason": "MARK"}), "Bash"),
                *observers("PostToolUse", "PostToolBatch", "Stop", matcher="Bash"),
            ],
        ),
        Case(
            "stop-continue-false-post",
            "go",
            ONE_BASH,
            [
                Hook("PostToolUse", "halt", out({"continue": False, "stopReason": "MARK"}), "Bash"),
                *observers("PostToolBatch", "Stop"),
            ],
        ),
        Case(
            "stop-batch-block",
            "go",
            ONE_BASH,
            [
                Hook("PostToolBatch", "block", out({"decision": "block", "reason": "MARK batch"})),
                *observers("Stop"),
            ],
        ),
        Case(
            "stop-block-json",
            "go",
            [Turn("first"), Turn("second"), Turn("third")],
            [Hook("Stop", "again", out({"decision": "block", "reason": "MARK again"}))],
            settings={"env": {"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "2"}},
        ),
        Case(
            "stop-block-exit2-cap",
            "go",
            [Turn("first"), Turn("second")],
            [Hook("Stop", "again", blocked("MARK again"))],
        ),
        Case(
            "stop-additional-context",
            "go",
            [Turn("first"), Turn("second")],
            [
                Hook(
                    "Stop",
                    "once",
                    command="grep -q '\"stop_hook_active\":false' && printf '%s' "
                    '\'{"hookSpecificOutput":{"hookEventName":"Stop",'
                    '"additionalContext":"MARK more"}}\' || true',
                )
            ],
        ),
        Case(
            "stop-prompt-block",
            "go",
            [Turn("never")],
            [
                Hook("UserPromptSubmit", "block", out({"decision": "block", "reason": "MARK no"})),
                *observers("Stop", "SessionEnd"),
            ],
        ),
        Case(
            "stop-prompt-continue-false",
            "go",
            [Turn("never")],
            [
                Hook("UserPromptSubmit", "halt", out({"continue": False, "stopReason": "MARK"})),
                *observers("Stop", "SessionEnd"),
            ],
        ),
    ]


def _session_cases() -> list[Case]:
    return [
        Case(
            "session-start-fields",
            "go",
            [Turn("done")],
            [
                Hook(
                    "SessionStart",
                    "fields",
                    specific(
                        "SessionStart",
                        additionalContext="MARK",
                        sessionTitle="MARK title",
                        initialUserMessage="MARK first",
                        watchPaths=[],
                        reloadSkills=False,
                    ),
                ),
                *observers("UserPromptSubmit"),
            ],
        ),
        Case(
            "session-env-file",
            "go",
            [Turn(tools=[bash("toolu_a", 'echo "$MARK_VAR"')]), Turn("done")],
            [
                Hook(
                    "SessionStart",
                    "env",
                    command="echo 'export MARK_VAR=from-env-file' >> \"$CLAUDE_ENV_FILE\"",
                )
            ],
        ),
        Case(
            "session-prompt-title",
            "go",
            [Turn("done")],
            [
                Hook(
                    "UserPromptSubmit",
                    "title",
                    specific("UserPromptSubmit", sessionTitle="MARK", additionalContext="MARK c"),
                )
            ],
        ),
    ]


# onFailure (Claude Code 2.1.295+): each failure kind of a command and an http hook, with
# "block" and "continue", and the places where "block" is ignored. The tool writes ran.txt, so
# `files` says whether it ran. Where the detail line is the agent's own error text (a spawn or
# network error, a JSON parser's message) only the first line of what the model read is compared.
ON_FAILURE = "2.1.295"
FULL = frozenset({"stdin", "order", "model", "files"})
NO_STDIN = frozenset({"order", "model", "files"})
HEADLINE = frozenset({"order", "verdict", "files"})
REFUSED_URL = "http://127.0.0.1:9/refused"
NOT_JSON = '{"hookSpecificOutput": {unquoted: 1}}'


#: onFailure on mcp_tool hooks (added between 2.1.325 and 2.1.328).
MCP_ON_FAILURE = "2.1.328"
# A foreground subagent that runs one Bash call and answers; then the main agent answers.
# Compared: which hooks ran, the files and every request of the parent and the subagent (a
# SubagentStop that kept the subagent working would add one), the hand-back itself aside: its
# framing is each agent's own.
SUBAGENT = [
    Turn(tools=[ToolUse("toolu_a", "Agent", SUBAGENT_INPUT)]),
    Turn(tools=[bash("toolu_s", "touch sub.txt")]),
    Turn("sub done"),
    Turn("main done"),
]
AROUND_SUBAGENT = frozenset({"order", "handback", "files"})


def failing(
    name: str,
    hook: Hook,
    compare: frozenset[str] = FULL,
    turns: list[Turn] = WRITES,
    since: str = ON_FAILURE,
) -> list[Case]:
    """The case `name` twice: the hook with onFailure "block" and with "continue"."""
    return [
        Case(
            f"{name}-{mode}",
            "go",
            turns,
            [replace(hook, extra={**hook.extra, "onFailure": mode})],
            compare=compare if hook.type != "http" else compare - {"stdin"},
            since=since,
        )
        for mode in ("block", "continue")
    ]


def _pre(action: Action | None = None, **fields: Any) -> Hook:
    """A PreToolUse hook on Bash."""
    return Hook("PreToolUse", "h", action or Action(), "Bash", **fields)


def _on_failure_cases() -> list[Case]:
    timeout = {"timeout": 1}
    two_turns = [Turn("first"), Turn("second")]
    return [
        *failing(
            "fail-start-command",
            _pre(command="/nonexistent/hook", extra={"args": []}),
            HEADLINE,
        ),
        *failing("fail-start-http", _pre(type="http", url=REFUSED_URL), HEADLINE),
        *failing("fail-timeout-command", _pre(Action(delay=5), extra=timeout)),
        *failing("fail-timeout-http", _pre(Action(delay=5), extra=timeout, type="http")),
        *failing("fail-exit1-command", _pre(Action(stderr="MARK one\nMARK two", exit=1))),
        *failing("fail-exit3-command", _pre(Action(exit=3))),
        *failing("fail-status500-http", _pre(Action(stdout="MARK", exit=500), type="http")),
        *failing("fail-exit1-json-command", _pre(out({"systemMessage": "MARK"}, exit=1))),
        *failing("fail-bad-json-command", _pre(Action(stdout=NOT_JSON)), HEADLINE),
        *failing("fail-bad-json-http", _pre(Action(stdout=NOT_JSON), type="http"), HEADLINE),
        *failing("fail-text-http", _pre(Action(stdout="MARK plain"), type="http")),
        *failing("fail-post-command", Hook("PostToolUse", "h", blocked_by(1), "Bash")),
        *failing("fail-prompt-command", Hook("UserPromptSubmit", "h", blocked_by(1))),
        *failing("fail-stop-command", Hook("Stop", "h", blocked_by(1)), turns=two_turns),
        *failing(
            "fail-stop-http", Hook("Stop", "h", blocked_by(500), type="http"), turns=two_turns
        ),
        # An async hook's run may outlive the session, so whether it logged is not compared.
        *failing(
            "fail-async-command",
            _pre(blocked_by(1), extra={"async": True}),
            frozenset({"model", "files"}),
        ),
        *_exempt_cases(),
        *_mcp_tool_cases(),
    ]


def _exempt_cases() -> list[Case]:
    """SubagentStop and TaskCompleted ignore onFailure: a failing hook does not keep the
    subagent working, nor refuse the task's completion (a block would: see `task-completed-
    exit2`)."""
    stop = Hook("SubagentStop", "h", blocked_by(1))
    return [
        *_task_completed_cases(),
        *_teammate_idle_cases(),
        *failing("fail-subagent-stop-command", stop, AROUND_SUBAGENT, SUBAGENT),
        *failing(
            "fail-subagent-stop-http",
            replace(stop, action=blocked_by(500), type="http"),
            AROUND_SUBAGENT,
            SUBAGENT,
        ),
    ]


# The task list tools, on in a `-p` run of 2.1.332 with CLAUDE_CODE_ENABLE_TODO_TOOLS (its
# own model, claude-opus-5, has them off). They are deferred tools, called here without a
# ToolSearch first, as Claude Code lets a model that knows their input.
TASK_TOOLS = {"env": {"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"}}
#: The version the task list cases were measured on.
TASKS_MEASURED = "2.1.332"
COMPLETE_TASK = [
    Turn(tools=[ToolUse("toolu_c", "TaskCreate", {"subject": "make it", "description": "now"})]),
    Turn(tools=[ToolUse("toolu_u", "TaskUpdate", {"taskId": "1", "status": "completed"})]),
    Turn("done"),
]


def _task_completed_cases() -> list[Case]:
    """TaskCompleted, fired by TaskUpdate to `completed`: each failure kind of a command and
    an http hook leaves the update done (the model reads ``Updated task #1 status``)."""
    completed = Hook("TaskCompleted", "h")
    cases = [
        (
            "fail-task-completed-start-command",
            replace(completed, command="/nonexistent/hook", extra={"args": []}),
        ),
        ("fail-task-completed-exit1-command", replace(completed, action=blocked_by(1))),
        (
            "fail-task-completed-bad-json-command",
            replace(completed, action=Action(stdout=NOT_JSON)),
        ),
        ("fail-task-completed-start-http", replace(completed, type="http", url=REFUSED_URL)),
        (
            "fail-task-completed-status500-http",
            replace(completed, action=blocked_by(500), type="http"),
        ),
        (
            "fail-task-completed-text-http",
            replace(completed, action=Action(stdout="MARK plain"), type="http"),
        ),
    ]
    return [
        replace(case, settings=TASK_TOOLS)
        for name, hook in cases
        for case in failing(name, hook, turns=COMPLETE_TASK, since=TASKS_MEASURED)
    ]


# A teammate as Claude Code starts one in a pane of its own: `-p` with the hidden teammate
# flags and agent teams on. TeammateIdle fires once its Stop hooks let it stop.
TEAMS = {"env": {"CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1"}}
TEAMMATE = ("--agent-id", "worker@team1", "--agent-name", "worker", "--team-name", "team1")


def as_teammate(case: Case) -> Case:
    return replace(
        case,
        settings=TEAMS,
        claude_args=TEAMMATE,
        hookwright_args=("--teammate", "worker@team1"),
        since=TASKS_MEASURED,
    )


def _teammate_idle_cases() -> list[Case]:
    """TeammateIdle: a failing command or http hook does not keep the teammate working."""
    idle = Hook("TeammateIdle", "h", blocked_by(1))
    two_turns = [Turn("first"), Turn("second")]
    return [
        as_teammate(case)
        for name, hook in (
            ("fail-teammate-idle-exit1-command", idle),
            (
                "fail-teammate-idle-status500-http",
                replace(idle, action=blocked_by(500), type="http"),
            ),
            ("fail-teammate-idle-start-http", replace(idle, type="http", url=REFUSED_URL)),
        )
        for case in failing(name, hook, turns=two_turns)
    ]


def _task_hook_cases() -> list[Case]:
    """What a blocking TaskCompleted, TaskCreated or TeammateIdle hook does, so the failure
    cases above show it ignored."""
    return [
        as_teammate(
            Case(
                "teammate-idle-exit2",
                "go",
                [Turn("first"), Turn("second"), Turn("third")],
                [Hook("TeammateIdle", "h", blocked_by(2)), *observers("Stop")],
            )
        ),
        Case(
            "task-completed-exit2",
            "go",
            COMPLETE_TASK,
            [Hook("TaskCompleted", "h", blocked_by(2)), *observers("PreToolUse")],
            settings=TASK_TOOLS,
            since=TASKS_MEASURED,
        ),
        # A blocked TaskCreate leaves no task (the update finds none); no mode asks for it.
        Case(
            "task-created-exit2",
            "go",
            COMPLETE_TASK,
            [Hook("TaskCreated", "h", blocked_by(2)), *observers("TaskCompleted")],
            permission_mode="default",
            settings=TASK_TOOLS,
            since=TASKS_MEASURED,
        ),
    ]


def _mcp_tool_cases() -> list[Case]:
    """mcp_tool hooks calling the case's MCP server (`mcp_server.py`): a tool error and a
    plain-text answer block under "block"; Stop ignores it. At SessionStart (also exempt) a
    `-p` run of 2.1.332 has not connected the server yet and calls nothing, so only what the
    model read and the files are compared there."""
    two_turns = [Turn("first"), Turn("second")]
    mcp = "mcp_tool"
    return [
        *failing("fail-mcp-error", _pre(blocked_by(1), type=mcp), since=MCP_ON_FAILURE),
        *failing(
            "fail-mcp-text", _pre(Action(stdout="MARK plain"), type=mcp), since=MCP_ON_FAILURE
        ),
        *failing(
            "fail-mcp-stop",
            Hook("Stop", "h", blocked_by(1), type=mcp),
            turns=two_turns,
            since=MCP_ON_FAILURE,
        ),
        *failing(
            "fail-mcp-session-start",
            Hook("SessionStart", "h", blocked_by(1), type=mcp),
            frozenset({"model", "files"}),
            since=MCP_ON_FAILURE,
        ),
    ]


def _profile_cases() -> list[Case]:
    """What differs by Claude Code version, run against every version: `onFailure` "block"
    (ignored before 2.1.295), and hooks on the events newer than 2.1.240 next to an observer
    (a version without them loads the rest of the file; a run without a person fires none)."""
    later = [
        Hook(event, f"log-{event}", specific(event, additionalContext="MARK"))
        for event in ("PreModelSwitch", "PostModelSwitch", "PreSkillShellCommand")
    ]
    return [
        Case(
            "profile-on-failure-block",
            "go",
            WRITES,
            [_pre(Action(stderr="MARK one", exit=1), extra={"onFailure": "block"})],
        ),
        Case("profile-later-events", "go", WRITES, [*later, *observers("PreToolUse", "Stop")]),
        *(_effort_case(name, model) for name, model in EFFORT_MODELS),
        *model_switch_cases(),
        *_effort_subagent_cases(),
    ]


#: Sessions on a model whose default effort differs from the harness's own model's.
EFFORT_MODELS = (
    ("haiku", "claude-haiku-5-5"),
    ("sonnet", "claude-sonnet-5-5"),
    ("opus-4-7", "claude-opus-4-7"),
)


def _effort_case(name: str, model: str) -> Case:
    """A session on `model` with no `effortLevel` set: the `effort` its tool and stop hooks
    read is the version's default for that model; the model's requests compared too, the note
    on launching subagents included."""
    return Case(
        f"effort-model-{name}",
        "go",
        WRITES,
        observers("PreToolUse", "PostToolUse", "Stop"),
        claude_args=("--model", model),
        hookwright_args=("--model", f"anthropic:{model}"),
    )


def _effort_subagent_cases() -> list[Case]:
    """A subagent on another model (the `Agent` call's `model`, or its definition's): the
    `effort` its own hooks read, and the parent's after it."""
    # The fields in the order of Claude Code's schema, which its hooks read them in.
    haiku = {
        **{key: SUBAGENT_INPUT[key] for key in ("description", "prompt", "subagent_type")},
        "model": "haiku",
        "run_in_background": False,
    }
    on_haiku = [
        Turn(tools=[ToolUse("toolu_a", "Agent", haiku)]),
        *SUBAGENT[1:],
    ]
    defined = {
        ".claude/agents/helper.md": (
            "---\nname: helper\ndescription: Helps\nmodel: sonnet\n---\nYou help.\n"
        )
    }
    helper = [
        Turn(tools=[ToolUse("toolu_a", "Agent", {**SUBAGENT_INPUT, "subagent_type": "helper"})]),
        *SUBAGENT[1:],
    ]
    watched = observers("PreToolUse", "SubagentStop", "Stop")
    compare = frozenset({"stdin", "order", "files", "models"})
    return [
        Case("effort-subagent-model", "go", on_haiku, watched, compare=compare),
        Case("effort-subagent-definition", "go", helper, watched, defined, compare=compare),
    ]


ECHO_SERVER = Path(__file__).resolve().parents[1] / "tests" / "runtime" / "mcp_echo_server.py"


def _skill_and_mcp_cases() -> list[Case]:
    """A skill's `!command` line, gated by PreSkillShellCommand where the version has it (its
    output, or why it did not run, reaches the model; the file it writes shows whether it
    ran), and an MCP tool's hook inputs (`mcp_server` where the version sends it)."""
    deny = specific(
        "PreSkillShellCommand", permissionDecision="deny", permissionDecisionReason="MARK"
    )
    skill = {".claude/skills/greet/SKILL.md": SKILL}
    server = {"srv": {"command": sys.executable, "args": [str(ECHO_SERVER)]}}
    echo = [Turn("", [ToolUse("toolu_01", "mcp__srv__echo", {"text": "hi"})]), Turn("done")]
    return [
        typed_command("skill-shell-command", "/greet world", skill),
        Case(
            "skill-shell-command-deny",
            "/greet world",
            [Turn("done")],
            [Hook("PreSkillShellCommand", "deny", deny), *observers(*PROMPT_GATE[:2])],
            skill,
        ),
        Case(
            "mcp-server-field",
            "go",
            echo,
            observers("PreToolUse", "PostToolUse"),
            {".mcp.json": json.dumps({"mcpServers": server})},
            settings={"enableAllProjectMcpServers": True},
            # 2.1.240 in `-p` calls the tool before the server is connected: not comparable.
            since="2.1.332",
        ),
    ]


def blocked_by(exit: int) -> Action:
    """A failure with an exit code (or HTTP status) other than 0 and 2."""
    return Action(stderr="MARK failed", exit=exit)


CASES: list[Case] = [
    *_wire_cases(),
    *_context_cases(),
    *_pre_tool_cases(),
    *_permission_cases(),
    *_post_tool_cases(),
    *_stop_cases(),
    *_session_cases(),
    *_on_failure_cases(),
    *_task_hook_cases(),
    *_profile_cases(),
    *_skill_and_mcp_cases(),
    *input_order_cases(),
    *unread_file_cases(),
    *refusal_cases(),
    *edit_create_cases(),
    *bash_timeout_cases(),
    *agent_unknown_key_cases(),
    *missing_file_hint_cases(),
    *read_set_cases(),
    *slash_and_skill_cases(),
    *unknown_skill_cases(),
    *nested_command_cases(),
    *frontmatter_cases(),
    *repeated_skill_cases(),
    *resume_cases(),
]
