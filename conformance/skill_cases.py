"""Cases for Claude Code's prompt commands and skills beyond a typed ``/skill``: legacy
``.claude/commands/*.md`` commands, skills the model invokes with the ``Skill`` tool, and the
hooks a SKILL.md's frontmatter declares."""

from __future__ import annotations

from conformance.case_kit import PROMPT_GATE, SKILL, bash, observers, typed_command
from conformance.fake_api import ToolUse, Turn
from conformance.harness import HOOK_PROGRAM, Case
from conformance.skill_files import scoped_skill

ALLOWED = "allowed-tools: Bash(echo:*), Bash(touch:*)\n"
COMMAND = f"""---
description: Says hello
argument-hint: [name]
{ALLOWED}---
Hello $ARGUMENTS, first $0 then $1, third $2, indexed $ARGUMENTS[1].
Status: !`echo MARK-CMD && touch cmd.txt`
End.
"""

SCOPED_SKILL = scoped_skill(str(HOOK_PROGRAM), stop=True)
SCOPED_PATH = ".claude/skills/greet/SKILL.md"

TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolBatch")
WITH_MODELS = frozenset({"stdin", "order", "model", "files", "models"})


def greeting(**frontmatter: str) -> str:
    """A plain skill whose frontmatter has `frontmatter` besides its description."""
    keys = "".join(f"{key.replace('_', '-')}: {value}\n" for key, value in frontmatter.items())
    return f"---\ndescription: Greets\n{keys}---\nGreeting $ARGUMENTS.\n"


def skill_call(use_id: str, skill: str, args: str | None = None) -> ToolUse:
    payload = {"skill": skill} if args is None else {"skill": skill, "args": args}
    return ToolUse(use_id, "Skill", payload)


def under_skill_hooks(name: str, prompt: str, *first: Turn) -> Case:
    """`prompt`, the `first` turns, then two Bash calls and the end of the turn, observed on
    Stop: which of the scoped skill's hooks run on each call (the skill invoked or typed
    before them)."""
    turns = [
        *first,
        Turn(tools=[bash("toolu_c", "echo during")]),
        Turn(tools=[bash("toolu_d", "echo again")]),
        Turn("done"),
    ]
    return Case(name, prompt, turns, observers("Stop"), {SCOPED_PATH: SCOPED_SKILL})


def slash_and_skill_cases() -> list[Case]:
    command = {".claude/commands/hello.md": COMMAND}
    skill = {".claude/skills/greet/SKILL.md": SKILL}
    scoped = {SCOPED_PATH: SCOPED_SKILL}
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
            observers(*PROMPT_GATE, *TOOL_EVENTS),
            skill,
        ),
        Case(
            "skill-tool-needs-permission",
            "go",
            [Turn(tools=[skill_call("toolu_a", "greet", "world")]), Turn("done")],
            observers(*PROMPT_GATE, *TOOL_EVENTS, "PostToolBatch"),
            skill,
            permission_mode="default",
        ),
        Case(
            "skill-tool-unknown",
            "go",
            [Turn(tools=[skill_call("toolu_a", "xyzzy-frobnicate", "")]), Turn("done")],
            observers(*PROMPT_GATE, *TOOL_EVENTS),
            skill,
        ),
        under_skill_hooks(
            "skill-hooks-scoped",
            "go",
            Turn(tools=[bash("toolu_a", "echo before")]),
            Turn(tools=[skill_call("toolu_b", "greet", "world")]),
        ),
        under_skill_hooks(
            "skill-hooks-twice",
            "go",
            Turn(tools=[skill_call("toolu_a", "greet", "one")]),
            Turn(tools=[skill_call("toolu_b", "greet", "two")]),
        ),
        Case(
            "skill-hooks-resumed",
            "/greet world",
            [Turn("done"), Turn(tools=[bash("toolu_c", "echo later")]), Turn("done")],
            observers("SessionStart"),
            scoped,
            resume="go",
        ),
        under_skill_hooks("skill-hooks-typed", "/greet world"),
    ]


#: Names no skill has: near a project skill, a command, the version's own commands, bundled
#: skills and aliases (with spaces and a slash around one), or near nothing.
NEAR_NAMES = (
    "gret",
    " /gret ",
    "Greet",
    "zop",
    "deploy-ap",
    "revew",
    "compakt",
    "hep",
    "simplfy",
    "int",
    "cg",
    "rn",
    "securty-review",
    "contxt",
    "tsks",
    "xyzzy",
)
#: The version's own commands (a UI one, a CLI one, an alias of each, a bundled skill that
#: refuses the model).
OWN_COMMANDS = ("cost", "help", "quit", "clear", "reset", "checkup", "batch")


def unknown_skill_cases() -> list[Case]:
    """`Skill` calls of names no skill has, refused before any hook: `Did you mean` the closest
    name among the project's skills and commands and the version's own, and the refusal of a
    command of the version; then a name with spaces and a slash around it, which runs."""
    files = {
        ".claude/skills/greet/SKILL.md": SKILL,
        ".claude/skills/zip/SKILL.md": "---\ndescription: Zips\n---\nZip.\n",
        ".claude/commands/zap.md": "Zap.\n",
        ".claude/commands/deploy-app.md": "Deploy.\n",
    }
    names = (*NEAR_NAMES, *OWN_COMMANDS)
    calls = [skill_call(f"toolu_{index:02d}", name) for index, name in enumerate(names)]
    turns = [
        Turn(tools=calls),
        Turn(tools=[skill_call("toolu_z", " /greet ", "world")]),
        Turn("done"),
    ]
    hooks = observers(*PROMPT_GATE, *TOOL_EVENTS, "PostToolUseFailure")
    return [Case("skill-tool-near-names", "go", turns, hooks, files)]


def nested_command_cases() -> list[Case]:
    """A legacy command in a subfolder of ``commands/``: typed and called by the model as
    ``sub:hello`` (folders and file name joined by ``:``)."""
    nested = {".claude/commands/sub/hello.md": COMMAND}
    deeper = {".claude/commands/a/b/hello.md": COMMAND}
    return [
        typed_command("command-nested", "/sub:hello world there", nested),
        Case(
            "command-nested-tool",
            "go",
            [Turn(tools=[skill_call("toolu_a", "a:b:hello", "x y")]), Turn("done")],
            observers(*PROMPT_GATE, *TOOL_EVENTS),
            deeper,
        ),
    ]


def frontmatter_cases() -> list[Case]:
    """A SKILL.md's `model` (the requests of the turn that typed it go there; a family name is
    the version's own model; the `Skill` tool changes nothing) and `disable-model-invocation`
    (the `Skill` tool refuses it before any hook runs)."""
    one_bash = [Turn(tools=[bash("toolu_b", "echo hi")]), Turn("done")]
    pinned = {".claude/skills/greet/SKILL.md": greeting(model="claude-sonnet-5")}
    family = {".claude/skills/greet/SKILL.md": greeting(model="haiku")}
    return [
        Case(
            "skill-model",
            "/greet world",
            one_bash,
            observers(*PROMPT_GATE, "Stop"),
            pinned,
            compare=WITH_MODELS,
        ),
        Case(
            "skill-model-alias",
            "/greet world",
            one_bash,
            observers("UserPromptSubmit"),
            family,
            compare=WITH_MODELS,
        ),
        Case(
            "skill-model-effort",
            "/greet world",
            one_bash,
            observers("PreToolUse", "Stop"),
            family,
            compare=frozenset({"stdin", "order", "files"}),
        ),
        Case(
            "skill-model-effort-setting",
            "/greet world",
            one_bash,
            observers("PreToolUse", "Stop"),
            family,
            settings={"effortLevel": "low"},
            compare=frozenset({"stdin", "order", "files"}),
        ),
        Case(
            "command-model",
            "/hello world",
            one_bash,
            observers("UserPromptSubmit"),
            {".claude/commands/hello.md": "---\nmodel: claude-sonnet-5\n---\nHello $ARGUMENTS.\n"},
            compare=WITH_MODELS,
        ),
        Case(
            "skill-model-tool",
            "go",
            [Turn(tools=[skill_call("toolu_a", "greet", "w")]), *one_bash],
            observers(*TOOL_EVENTS),
            pinned,
            compare=WITH_MODELS,
        ),
        Case(
            "skill-model-next-prompt",
            "/greet one",
            [Turn("one"), Turn("two"), *one_bash],
            observers("UserPromptSubmit", "Stop"),
            pinned,
            compare=WITH_MODELS,
            follow_ups=("plain", "/greet three"),
        ),
        Case(
            "skill-model-invocation-disabled",
            "go",
            [Turn(tools=[skill_call("toolu_a", "greet", "one")]), Turn("done")],
            observers(*PROMPT_GATE, *TOOL_EVENTS, "PostToolUseFailure", "Stop"),
            {".claude/skills/greet/SKILL.md": greeting(disable_model_invocation="true")},
        ),
    ]


def repeated_skill_cases() -> list[Case]:
    """A skill invoked again replaces its frontmatter hooks: never doubled, a spent `once`
    hook runs again; typed in a later prompt of the same session, likewise."""
    scoped = {SCOPED_PATH: SCOPED_SKILL}
    return [
        Case(
            "skill-hooks-rearmed",
            "go",
            [
                Turn(tools=[skill_call("toolu_a", "greet", "one")]),
                Turn(tools=[bash("toolu_b", "echo b")]),
                Turn(tools=[skill_call("toolu_c", "greet", "two")]),
                Turn(tools=[bash("toolu_d", "echo d")]),
                Turn("done"),
            ],
            observers("Stop"),
            scoped,
        ),
        Case(
            "skill-typed-twice",
            "/greet one",
            [
                Turn(tools=[bash("toolu_a", "echo one")]),
                Turn("done1"),
                Turn(tools=[bash("toolu_b", "echo two")]),
                Turn("done2"),
                Turn(tools=[bash("toolu_c", "echo three")]),
                Turn("done3"),
            ],
            observers("UserPromptSubmit", "Stop"),
            scoped,
            follow_ups=("plain two", "/greet three"),
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
        ),
        Case(
            "session-fork",
            "first",
            [Turn("one"), Turn("two")],
            observers("SessionStart", "UserPromptSubmit", "Stop"),
            resume="second",
            fork=True,
        ),
    ]
