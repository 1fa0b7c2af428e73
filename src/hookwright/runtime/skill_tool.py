"""The `Skill` tool: the model invokes a skill (or legacy command) by name, as in Claude Code.

Measured with Claude Code 2.1.240 and 2.1.332 (a scripted ``Skill`` call of
``{"skill": "greet", "args": "world"}``): PreToolUse and PostToolUse see that input; the
skill's ``!`command` `` lines run while it loads, each gated by PreSkillShellCommand (where the
profile has it) with ``invoked_by: "claude"`` and ``tool_use_id`` ``<call id>:preamble-<n>``;
PostToolUse's ``tool_response`` is ``{"success": true, "commandName": NAME}``; the model gets
the tool result ``Launching skill: NAME`` and, in the same user message after it, the skill's
expanded text (``Base directory for this skill: ...``), after a note when the session invoked
the skill before. The skill's frontmatter hooks are active from then on
(`skill_commands.skill_text`). A shell command without permission makes the call an error
whose text is the refusal (hookwright's choice: measured only for a typed skill, which ends the
turn).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from hookwright.runtime.skill_commands import (
    ShellCommandRefused,
    named_skill,
    reinvoked_note,
    skill_text,
)
from hookwright.runtime.tools import ToolContext, ToolOutput
from hookwright.runtime.tools.base import ModelTool, failure

if TYPE_CHECKING:
    from hookwright.runtime.agent import Agent


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

    async def call(self, args: SkillInput, ctx: ToolContext) -> ToolOutput:
        name = args.skill.removeprefix("/")
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
            data={"success": True, "commandName": name},
            followup=(reinvoked_note(skill), text) if again else (text,),
        )
