"""Claude Code skills and commands: a prompt ``/NAME ARGS`` (or the model's ``Skill`` call,
`runtime.skill_tool`) where NAME is a skill in ``<project>/.claude/skills/NAME/SKILL.md`` (once
the project is trusted) or ``~/.claude/skills/NAME/SKILL.md``, or a legacy command in
``.claude/commands/NAME.md`` (a skill of the same place wins).

As Claude Code 2.1.332 does it (measured with ``claude -p "/greet world"``): UserPromptSubmit
sees the typed prompt; UserPromptExpansion (``slash_command``) may stop the expansion; every
``!`command` `` in the skill's text is a shell command run while the skill loads, in the
working directory, its output (trimmed) in place of the ``!`...` ``; each is gated by
PreSkillShellCommand (under a profile with the event), a refused one reads
``[not run: blocked by hook: <reason>]``. ``$ARGUMENTS`` becomes the arguments,
``$ARGUMENTS[N]`` and ``$N`` the Nth (from 0) word of them (one past the last stays as written).
The model then gets two user texts: the command's tags, and the expanded text (a skill's after
``Base directory for this skill: <folder>``). A legacy command's frontmatter ``allowed-tools``
(``Bash(echo:*)``, ...) lets its shell commands run without asking (measured in 2.1.240 and
2.1.332 with the default mode). Invoking a skill registers the hooks of its frontmatter for the
rest of the session (measured: they run through the turn's Stop; ``once`` hooks run once, also
when the skill is invoked again).

A command also needs the session's permission to run Bash (rules and mode, as a tool call
would, or the command's ``allowed-tools``; a hook's allow adds nothing), checked before
PreSkillShellCommand: without it nothing of the skill reaches the model and the turn ends with
``Shell command permission check failed for pattern "!`<command>`": <why>`` (measured in
2.1.332 ``-p``: no model call, no PreSkillShellCommand).
"""

from __future__ import annotations

import os
import re
import uuid
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from hookwright.config.safeparse import ParseError, load_yaml_text, read_text
from hookwright.host import TrustPolicy
from hookwright.runtime.permissions import unanswered_message
from hookwright.runtime.tools.bash import run_shell, shell_environment, with_env_files

if TYPE_CHECKING:
    from hookwright.runtime.agent import Agent

#: A skill's or command's name: a plain file name, never a path.
SKILL_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
#: A legacy command in a subfolder of ``commands/``: its folders and file name joined by
#: ``:`` (``commands/sub/x.md`` is ``sub:x``, measured in 2.1.240 and 2.1.332).
NESTED_NAME: Final = re.compile(rf"{SKILL_NAME.pattern}(?::{SKILL_NAME.pattern})*")
#: ``/name`` then, after a space, the arguments.
SKILL_PROMPT: Final = re.compile(rf"/({NESTED_NAME.pattern})(?:[ \t]+(.*))?", re.DOTALL)
SHELL_COMMAND: Final = re.compile(r"!`([^`\n]+)`")
#: A frontmatter ``model`` the agent calls: a model name or family, never a ``backend:spec``
#: (a repository's skill does not choose where the conversation is sent).
MODEL_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\[\]-]*")
#: ``$ARGUMENTS[N]`` or ``$N``: the Nth argument, counted from 0.
POSITIONAL: Final = re.compile(r"\$ARGUMENTS\[(\d+)\]|\$(\d+)")
SKILL_FILE: Final = "SKILL.md"
#: The most skills, and commands (and folders of commands), of one place `skill_names` looks
#: at (a repository may hold any number).
MAX_LISTED: Final = 1000
#: Seconds a skill's shell command may run.
COMMAND_TIMEOUT: Final = 120.0


@dataclass(frozen=True, slots=True)
class Skill:
    """A skill (``SKILL.md``) or a legacy command (``commands/NAME.md``) at `path`."""

    name: str
    path: Path
    text: str
    #: Where it was found, in Claude Code's words (`command_source`).
    source: str
    #: A legacy command: no ``Base directory`` line, no frontmatter hooks.
    command: bool = False
    #: Permission rules of the frontmatter's ``allowed-tools`` (a legacy command's).
    allowed_tools: tuple[str, ...] = ()
    #: The frontmatter's ``model``: what the requests of the turn that typed it go to
    #: (None: the session's model; ``inherit`` is None too). Not checked: see `MODEL_NAME`.
    model: str | None = None
    #: The frontmatter's ``disable-model-invocation``: the ``Skill`` tool refuses it.
    model_invocable: bool = True

    @property
    def folder(self) -> Path:
        return self.path.parent


def find_skill(agent: Agent, prompt: str) -> tuple[Skill, str] | None:
    """The skill `prompt` invokes and its arguments; None when it invokes none."""
    typed = SKILL_PROMPT.fullmatch(prompt.strip())
    if typed is None:
        return None
    skill = named_skill(agent, typed.group(1))
    return None if skill is None else (skill, (typed.group(2) or "").strip())


def named_skill(agent: Agent, name: str) -> Skill | None:
    """The skill or legacy command called `name` (the project's first, once trusted); None for
    a name that is not a plain file name, or folders and a file name joined by ``:`` for a
    command in a subfolder (the model's ``Skill`` call names no paths)."""
    if not NESTED_NAME.fullmatch(name):
        return None
    config = agent.config
    places = [(config.home, "userSettings")]
    if config.project_trusted:
        places.insert(0, (config.project_dir, "projectSettings"))
    nested = ":" in name
    for root, source in places:
        claude = root / ".claude"
        candidates = [] if nested else [(claude / "skills" / name / SKILL_FILE, False)]
        candidates.append((claude / "commands" / f"{name.replace(':', '/')}.md", True))
        for path, command in candidates:
            try:
                text = read_text(path)
            except ParseError:
                continue
            head, body = _split(text)
            return _skill(name, path, body, source, command, _frontmatter(head))
    return None


def _skill(
    name: str, path: Path, body: str, source: str, command: bool, head: dict[str, Any]
) -> Skill:
    model = head.get("model")
    chosen = model.strip() if isinstance(model, str) and model.strip() != "inherit" else ""
    return Skill(
        name,
        path,
        body,
        source,
        command,
        allowed_tools=_allowed_tools(head) if command else (),
        model=chosen or None,
        model_invocable=head.get("disable-model-invocation") is not True,
    )


def any_skill(agent: Agent) -> bool:
    """Whether the session has a skill or legacy command the model could invoke."""
    config = agent.config
    roots = [config.home, *([config.project_dir] if config.project_trusted else [])]
    for root in roots:
        claude = root / ".claude"
        if any(claude.glob(f"skills/*/{SKILL_FILE}")) or any(claude.glob("commands/**/*.md")):
            return True
    return False


def skill_names(agent: Agent) -> list[str]:
    """The names of the session's skills and legacy commands, in the order the ``Skill`` tool
    looks for a close one: the project's (once trusted) before the user's, in each place its
    skills before its commands (measured: ``zop`` reads ``Did you mean zip?`` for a skill
    ``zip`` beside a command ``zap``); at most `MAX_LISTED` of each kind in a place."""
    config = agent.config
    roots = [*([config.project_dir] if config.project_trusted else []), config.home]
    names: list[str] = []
    for root in roots:
        claude = root / ".claude"
        skills = islice(claude.glob(f"skills/*/{SKILL_FILE}"), MAX_LISTED)
        names += sorted(path.parent.name for path in skills)
        names += sorted(_command_names(claude / "commands"))
    return [name for name in names if NESTED_NAME.fullmatch(name)]


def _command_names(folder: Path) -> list[str]:
    """The commands under `folder` as ``sub:name``, looking at no more than `MAX_LISTED`
    folders and never following a link out of it (a repository's ``commands`` may be a link
    to the whole disk)."""
    if folder.is_symlink():
        return []
    names: list[str] = []
    walked = islice(os.walk(folder, followlinks=False), MAX_LISTED)
    for place, _, files in walked:
        prefix = Path(place).relative_to(folder).parts
        names += [":".join((*prefix, name[:-3])) for name in files if name.endswith(".md")]
    return names[:MAX_LISTED]


def _split(text: str) -> tuple[str, str]:
    """The YAML frontmatter and the text after it (no frontmatter: ``""`` and all of it)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return "", text
    for index, line in enumerate(lines[1:], 1):
        if line.strip() == "---":
            return "".join(lines[1:index]), "".join(lines[index + 1 :])
    return "", text


def _frontmatter(head: str) -> dict[str, Any]:
    """The frontmatter's keys; what does not parse as a YAML mapping has none."""
    try:
        data = load_yaml_text(head) if head else None
    except ParseError:
        return {}
    return data if isinstance(data, dict) else {}


def _allowed_tools(head: dict[str, Any]) -> tuple[str, ...]:
    """``allowed-tools`` of a frontmatter: a comma-separated string or a list of rules; what
    does not parse grants nothing."""
    value = head.get("allowed-tools")
    if isinstance(value, str):
        return tuple(rule.strip() for rule in _RULE_SPLIT.split(value) if rule.strip())
    if isinstance(value, list):
        return tuple(str(rule).strip() for rule in value if str(rule).strip())
    return ()


#: Commas between rules, not inside a rule's parentheses.
_RULE_SPLIT: Final = re.compile(r",(?![^()]*\))")


def with_arguments(text: str, arguments: str) -> str:
    """`text` with ``$ARGUMENTS[N]``/``$N`` and then ``$ARGUMENTS`` filled in."""
    words = arguments.split()

    def positional(found: re.Match[str]) -> str:
        index = int(found.group(1) or found.group(2))
        return words[index] if index < len(words) else found.group(0)

    return POSITIONAL.sub(positional, text).replace("$ARGUMENTS", arguments)


async def expand(agent: Agent, skill: Skill, arguments: str) -> list[str]:
    """The user texts the model gets for the skill the user typed, its shell commands run (or
    refused)."""
    text = await skill_text(agent, skill, arguments, f"{uuid.uuid4()}:inner", "user")
    tags = (
        f"<command-message>{skill.name}</command-message>\n"
        f"<command-name>/{skill.name}</command-name>\n"
        f"<command-args>{arguments}</command-args>"
    )
    return [tags, text]


async def skill_text(agent: Agent, skill: Skill, arguments: str, call: str, invoked_by: str) -> str:
    """The skill's expanded text (after its ``Base directory`` line); its frontmatter hooks are
    registered first, as Claude Code registers them when the skill is invoked. `call` names the
    shell commands (``<call>:preamble-<n>``) for PreSkillShellCommand."""
    if not skill.command:
        _add_frontmatter_hooks(agent, skill)
    agent.invoked_skills.add(skill.path)
    text = with_arguments(skill.text, arguments)
    parts: list[str] = []
    last = 0
    for index, found in enumerate(SHELL_COMMAND.finditer(text)):
        ran = await _run(agent, skill, found.group(1), f"{call}:preamble-{index}", invoked_by)
        parts += [text[last : found.start()], ran]
        last = found.end()
    parts.append(text[last:])
    if skill.command:
        return "".join(parts)
    return f"Base directory for this skill: {skill.folder}\n\n{''.join(parts)}"


def reinvoked_note(skill: Skill) -> str:
    """What the model reads before a skill's text when the session invoked it before."""
    return (
        f"(Re-invocation of /{skill.name} \u2014 the skill instructions were previously loaded; "
        "the arguments or dynamic output below are new.)"
    )


def _add_frontmatter_hooks(agent: Agent, skill: Skill) -> None:
    """The skill's frontmatter hooks, active for the rest of the session. Invoking it again
    replaces them: they never run twice, and a spent ``once`` hook runs again (measured in
    2.1.240 and 2.1.332, by the ``Skill`` tool in one turn and typed in a later turn)."""
    config = agent.config
    trusted = (config.project_dir,) if config.project_trusted else ()
    agent.hooks.remove_frontmatter_hooks(skill.path, agent.session_id)
    problems = agent.hooks.add_frontmatter_hooks(
        skill.path,
        "skill",
        agent.session_id,
        project_dir=config.project_dir,
        home=config.home,
        trust=TrustPolicy(frozenset(trusted)),
    )
    for problem in problems:
        agent.emit("notice", text=problem)


class ShellCommandRefused(Exception):
    """A skill's shell command lacks the session's permission: nothing of the skill reaches
    the model; the message is Claude Code's."""


def _check_permission(agent: Agent, skill: Skill, command: str) -> None:
    """Raise `ShellCommandRefused` unless the rules, the mode or the command's own
    ``allowed-tools`` let `command` run (checked before PreSkillShellCommand, as measured)."""
    cwd = agent.working_dir
    policy = agent.policy
    if skill.allowed_tools:
        policy = replace(policy, allow=list(policy.allow))
        policy.add_rules("allow", skill.allowed_tools)
    tool_input = {"command": command}
    outcome = policy.check("Bash", tool_input, read_only=False, cwd=str(cwd))
    if outcome.behavior == "allow":
        return
    reason = outcome.reason
    if outcome.behavior != "deny":
        profile = agent.hooks.claude_code
        reason = unanswered_message(
            "Bash", tool_input, outcome, cwd=cwd, write_needs_approval=profile.write_needs_approval
        )
    raise ShellCommandRefused(
        f'Shell command permission check failed for pattern "!`{command}`": {reason}'
    )


async def _run(agent: Agent, skill: Skill, command: str, use_id: str, invoked_by: str) -> str:
    _check_permission(agent, skill, command)
    decision = await agent.hooks.skill_shell_command(
        command,
        command_name=skill.name,
        command_source=skill.source,
        invoked_by=invoked_by,
        tool_use_id=use_id,
    )
    if not decision.run:
        return f"[not run: blocked by hook: {decision.reason}]"
    cwd = agent.working_dir
    context = agent.tool_context()
    result = await run_shell(
        with_env_files(command, context),
        cwd=cwd,
        env=shell_environment(context),
        timeout_s=COMMAND_TIMEOUT,
    )
    return result.output.strip()
