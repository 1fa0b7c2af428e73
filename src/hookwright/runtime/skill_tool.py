"""The `Skill` tool: the model invokes a skill (or legacy command) by name, as in Claude Code.

Measured with Claude Code 2.1.240 and 2.1.332 (a scripted ``Skill`` call of
``{"skill": "greet", "args": "world"}``): PreToolUse and PostToolUse see that input; the
skill's ``!`command` `` lines run while it loads, each gated by PreSkillShellCommand (where the
profile has it) with ``invoked_by: "claude"`` and ``tool_use_id`` ``<call id>:preamble-<n>``;
PostToolUse's ``tool_response`` is ``{"success": true, "commandName": NAME}`` (and
``allowedTools``, the rules of a command's ``allowed-tools``, where it has some); the model gets
the tool result ``Launching skill: NAME`` and, in the same user message after it, the skill's
expanded text (``Base directory for this skill: ...``), after a note when the session invoked
the skill before. The skill's frontmatter hooks are active from then on
(`skill_commands.skill_text`). A shell command without permission makes the call an
error whose text is the refusal, after PreToolUse and with no PostToolUse (measured with
2.1.332). A skill whose frontmatter sets ``disable-model-invocation: true`` is refused before
any hook runs, in Claude Code's words (`SkillTool.refusal`). A command in a subfolder is named
by its folders and file name joined by ``:`` (``commands/a/b/x.md`` is ``a:b:x``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from hookwright.dialects.claude_commands import BUNDLED, RESERVED, closest, not_a_skill, reserved
from hookwright.runtime.skill_commands import (
    MODEL_NAME,
    ShellCommandRefused,
    Skill,
    named_skill,
    reinvoked_note,
    skill_names,
    skill_text,
)
from hookwright.runtime.tools import ToolContext, ToolOutput
from hookwright.runtime.tools.base import ModelTool, failure

if TYPE_CHECKING:
    from hookwright.runtime.agent import Agent
    from hookwright.runtime.tools.base import InputCheck


class SkillInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    skill: str = Field(description='The skill\'s name, e.g. "commit" (no leading slash).')
    args: str | None = Field(default=None, description="Arguments for the skill.")


class SkillTool(ModelTool[SkillInput]):
    name = "Skill"
    description = (
        "Run a skill of this project or user (.claude/skills/NAME/SKILL.md, or a command in "
        ".claude/commands/NAME.md) by name; its instructions follow the result."
    )
    read_only = True
    args_model = SkillInput

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    async def refusal(self, arguments: Mapping[str, Any], check: InputCheck) -> str | None:
        """Claude Code's refusal, before any hook runs, of a name no skill has (one of the
        version's own commands by its kind, else with the closest name) and of a skill whose
        frontmatter sets ``disable-model-invocation`` (the same texts in 2.1.240 and
        2.1.332)."""
        name = _name(str(arguments.get("skill", "")))
        skill = named_skill(self.agent, name)
        if skill is None:
            return self._unknown(name)
        return None if skill.model_invocable else reserved(name)

    def _unknown(self, name: str) -> str:
        """The refusal of `name`, which names no skill of the session: a command of the
        version by its kind, else an unknown skill and the closest name there is."""
        commands = self.agent.hooks.claude_code.builtin_commands
        kind = next((command.kind for command in commands if command.name == name), None)
        if kind == RESERVED:
            return reserved(name)
        if kind is not None and kind != BUNDLED:
            return not_a_skill(name, kind)
        names = [*skill_names(self.agent), *(command.name for command in commands)]
        near = closest(name, names)
        return f"Unknown skill: {name}" + (f". Did you mean {near}?" if near else "")

    async def call(self, args: SkillInput, ctx: ToolContext) -> ToolOutput:
        name = _name(args.skill)
        skill = named_skill(self.agent, name)
        if skill is None:
            return failure(f"Unknown skill: {name}")
        again = skill.path in self.agent.invoked_skills
        try:
            text = await skill_text(self.agent, skill, args.args or "", ctx.tool_use_id, "claude")
        except ShellCommandRefused as refused:
            return failure(str(refused))
        return ToolOutput(
            content=f"Launching skill: {name}",
            data=self._response(skill),
            followup=(reinvoked_note(skill), text) if again else (text,),
        )

    def _response(self, skill: Skill) -> dict[str, Any]:
        """PostToolUse's ``tool_response``: the command's ``allowed-tools`` and the model its
        frontmatter names, where it has them (the model only reported: the session's requests
        keep going to the session's model, measured)."""
        response: dict[str, Any] = {"success": True, "commandName": skill.name}
        if skill.allowed_tools:
            response["allowedTools"] = list(skill.allowed_tools)
        if skill.model is not None and MODEL_NAME.fullmatch(skill.model):
            response["model"] = self.agent.hooks.claude_code.model_named(skill.model)
        return response


def _name(asked: str) -> str:
    """The skill a call names: without surrounding spaces and a leading ``/`` (measured)."""
    return asked.strip().removeprefix("/")
