"""Cases for Claude Code's prompt commands and skills beyond a typed ``/skill``: legacy
``.claude/commands/*.md`` commands, skills the model invokes with the ``Skill`` tool, and the
hooks a SKILL.md's frontmatter declares."""

from __future__ import annotations

from conformance.case_kit import PROMPT_GATE, SKILL, bash, observers, typed_command
from conformance.fake_api import ToolUse, Turn
from conformance.harness import HOOK_PROGRAM, Case

ALLOWED = "allowed-tools: Bash(echo:*), Bash(touch:*)\n"
COMMAND = f"""---
description: Says hello
argument-hint: [name]
{ALLOWED}---
Hello $ARGUMENTS, first $0 then $1, third $2, indexed $ARGUMENTS[1].
Status: !`echo MARK-CMD && touch cmd.txt`
End.
"""

SCOPED_SKILL = f"""---
description: Greets with hooks
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: python3 {HOOK_PROGRAM} skill-pre
  PostToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: python3 {HOOK_PROGRAM} skill-post-once
          once: true
  Stop:
    - hooks:
        - type: command
          command: python3 {HOOK_PROGRAM} skill-stop
---
Greeting $ARGUMENTS.
"""


def skill_call(use_id: str, skill: str, args: str | None = None) -> ToolUse:
    payload = {"skill": skill} if args is None else {"skill": skill, "args": args}
    return ToolUse(use_id, "Skill", payload)


def slash_and_skill_cases() -> list[Case]:
    command = {".claude/commands/hello.md": COMMAND}
    skill = {".claude/skills/greet/SKILL.md": SKILL}
    scoped = {".claude/skills/greet/SKILL.md": SCOPED_SKILL}
    tool_events = ("PreToolUse", "PostToolUse", "PostToolBatch")
    return [
        typed_command("command-legacy", "/hello world there", command),
        typed_command(
            "command-legacy-allowed-tools", "/hello world there", command, permission_mode="default"
        ),
        typed_command(
            "command-legacy-needs-permission",
            "/hello world there",
            {".claude/commands/hello.md": COMMAND.replace(ALLOWED, "")},
            "Stop",
            "SessionEnd",
            permission_mode="default",
        ),
        Case(
            "skill-tool",
            "go",
            [Turn(tools=[skill_call("toolu_a", "greet", "world")]), Turn("done")],
            observers(*PROMPT_GATE, *tool_events),
            skill,
        ),
        Case(
            "skill-hooks-scoped",
            "go",
            [
                Turn(tools=[bash("toolu_a", "echo before")]),
                Turn(tools=[skill_call("toolu_b", "greet", "world")]),
                Turn(tools=[bash("toolu_c", "echo during")]),
                Turn(tools=[bash("toolu_d", "echo again")]),
                Turn("done"),
            ],
            observers("Stop"),
            scoped,
        ),
        Case(
            "skill-hooks-twice",
            "go",
            [
                Turn(tools=[skill_call("toolu_a", "greet", "one")]),
                Turn(tools=[skill_call("toolu_b", "greet", "two")]),
                Turn(tools=[bash("toolu_c", "echo during")]),
                Turn(tools=[bash("toolu_d", "echo again")]),
                Turn("done"),
            ],
            observers("Stop"),
            scoped,
        ),
        Case(
            "skill-hooks-resumed",
            "/greet world",
            [Turn("done"), Turn(tools=[bash("toolu_c", "echo later")]), Turn("done")],
            observers("SessionStart"),
            scoped,
            resume="go",
        ),
        Case(
            "skill-hooks-typed",
            "/greet world",
            [
                Turn(tools=[bash("toolu_c", "echo during")]),
                Turn(tools=[bash("toolu_d", "echo again")]),
                Turn("done"),
            ],
            observers("Stop"),
            scoped,
        ),
    ]


def resume_cases() -> list[Case]:
    """A session resumed with `--resume`: SessionStart says `resume`, with the cost fields of
    a version that sends them."""
    return [
        Case(
            "session-resume",
            "first",
            [Turn("one"), Turn("two")],
            observers("SessionStart", "UserPromptSubmit"),
            resume="second",
        )
    ]
