"""Claude Code skills invoked by the user: a prompt ``/NAME ARGS`` where NAME is a skill in
``<project>/.claude/skills/NAME/SKILL.md`` (once the project is trusted) or
``~/.claude/skills/NAME/SKILL.md``.

As Claude Code 2.1.332 does it (measured with ``claude -p "/greet world"``): UserPromptSubmit
sees the typed prompt; UserPromptExpansion (``slash_command``) may stop the expansion; every
``!`command` `` in the skill's text is a shell command run while the skill loads, in the
working directory, its output (trimmed) in place of the ``!`...` ``; each is gated by
PreSkillShellCommand (under a profile with the event), a refused one reads
``[not run: blocked by hook: <reason>]``. ``$ARGUMENTS`` becomes the arguments. The model then
gets two user texts: the command's tags, and ``Base directory for this skill: <folder>`` with the
expanded text.

A command also needs the session's permission to run Bash (rules and mode, as a tool call
would; a hook's allow adds nothing): without it, it reads ``[not run: <why>]`` (hookwright's
wording; Claude Code was measured only with permissions bypassed).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from hookwright.config.safeparse import ParseError, read_text
from hookwright.runtime.tools.bash import run_shell, shell_environment, with_env_files

if TYPE_CHECKING:
    from hookwright.runtime.agent import Agent

#: ``/name`` then, after a space, the arguments.
SKILL_PROMPT: Final = re.compile(r"/([A-Za-z0-9][A-Za-z0-9_.-]*)(?:[ \t]+(.*))?", re.DOTALL)
SHELL_COMMAND: Final = re.compile(r"!`([^`\n]+)`")
SKILL_FILE: Final = "SKILL.md"
#: Seconds a skill's shell command may run.
COMMAND_TIMEOUT: Final = 120.0


@dataclass(frozen=True, slots=True)
class Skill:
    name: str
    folder: Path
    text: str
    #: Where it was found, in Claude Code's words (`command_source`).
    source: str


def find_skill(agent: Agent, prompt: str) -> tuple[Skill, str] | None:
    """The skill `prompt` invokes and its arguments; None when it invokes none."""
    typed = SKILL_PROMPT.fullmatch(prompt.strip())
    if typed is None:
        return None
    name, arguments = typed.group(1), (typed.group(2) or "").strip()
    config = agent.config
    places = [(config.home, "userSettings")]
    if config.project_trusted:
        places.insert(0, (config.project_dir, "projectSettings"))
    for root, source in places:
        folder = root / ".claude" / "skills" / name
        try:
            text = read_text(folder / SKILL_FILE)
        except ParseError:
            continue
        return Skill(name, folder, _body(text), source), arguments
    return None


def _body(text: str) -> str:
    """The text after the YAML frontmatter (all of it when there is none)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return text
    for index, line in enumerate(lines[1:], 1):
        if line.strip() == "---":
            return "".join(lines[index + 1 :])
    return text


async def expand(agent: Agent, skill: Skill, arguments: str) -> list[str]:
    """The user texts the model gets for the skill, its shell commands run (or refused)."""
    text = skill.text.replace("$ARGUMENTS", arguments)
    parts: list[str] = []
    last = 0
    call = uuid.uuid4()
    for index, found in enumerate(SHELL_COMMAND.finditer(text)):
        parts += [text[last : found.start()], await _run(agent, skill, found.group(1), index, call)]
        last = found.end()
    parts.append(text[last:])
    tags = (
        f"<command-message>{skill.name}</command-message>\n"
        f"<command-name>/{skill.name}</command-name>\n"
        f"<command-args>{arguments}</command-args>"
    )
    return [tags, f"Base directory for this skill: {skill.folder}\n\n{''.join(parts)}"]


async def _run(agent: Agent, skill: Skill, command: str, index: int, call: uuid.UUID) -> str:
    decision = await agent.hooks.skill_shell_command(
        command,
        command_name=skill.name,
        command_source=skill.source,
        invoked_by="user",
        tool_use_id=f"{call}:inner:preamble-{index}",
    )
    if not decision.run:
        return f"[not run: blocked by hook: {decision.reason}]"
    cwd = agent.working_dir
    allowed = agent.policy.check("Bash", {"command": command}, read_only=False, cwd=str(cwd))
    if allowed.behavior != "allow":
        return f"[not run: {allowed.reason}]"
    context = agent.tool_context()
    result = await run_shell(
        with_env_files(command, context),
        cwd=cwd,
        env=shell_environment(context),
        timeout_s=COMMAND_TIMEOUT,
    )
    return result.output.strip()
