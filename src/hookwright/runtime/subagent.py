"""The `Agent` tool: a subagent runs its own loop, with hooks firing inside it.

Inputs carry `agent_id`/`agent_type`; SubagentStart fires before it starts (its
additionalContext goes into the subagent, ahead of its prompt where the hook's dialect puts it
there: Codex), UserPromptSubmit on its prompt for the dialects that show it (Codex),
SubagentStop when it finishes (a block keeps it working). Its transcript is a sidechain file
beside the session's: its hooks' `transcript_path` is still the session's, the sidechain their
`agent_transcript_path` (each dialect shows them as its system does).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from pydantic import BaseModel, ConfigDict, Field, field_validator

from hookwright.host import TrustPolicy
from hookwright.runtime.agent_definitions import definition_model, definition_paths
from hookwright.runtime.skill_commands import MODEL_NAME
from hookwright.runtime.tools import ToolContext, ToolInputError, ToolOutput, ToolRegistry
from hookwright.runtime.tools.base import json_schema_of, parse_arguments

if TYPE_CHECKING:
    from hookwright.runtime.agent import Agent

AGENT_TYPE = re.compile(r"[A-Za-z0-9_-]+")
#: The dialects whose hooks see a subagent's prompt (UserPromptSubmit inside it): Codex CLI
#: 0.171.0 fires it in a subagent its `spawn_agent` tool starts (measured); Claude Code
#: does not.
SUBAGENT_PROMPT_DIALECTS: Final = frozenset({"codex"})


class AgentInput(BaseModel):
    # Claude Code's Agent schema leaves out a key it does not have instead of refusing it
    # (measured with 2.1.240 and 2.1.332): its hooks read the input without the key.
    model_config = ConfigDict(extra="ignore")

    prompt: str = Field(description="The task for the subagent.")
    description: str = Field(default="", description="A 3-5 word summary of the task.")
    subagent_type: str = Field(
        default="general-purpose",
        description="Which kind of agent: a plain name (letters, digits, '-', '_').",
    )
    model: str | None = Field(
        default=None,
        description="The subagent's model (a family such as `haiku`, or a model name); default: "
        "its definition's, else the parent's.",
    )
    run_in_background: bool | None = Field(
        default=None,
        description="Ignored: the subagent runs in the foreground; the call returns its answer.",
    )

    @field_validator("subagent_type")
    @classmethod
    def _plain_name(cls, value: str) -> str:
        """The type names a definition file (`.claude/agents/<type>.md`): never a path."""
        if not AGENT_TYPE.fullmatch(value):
            raise ValueError(
                f"subagent_type {value!r} is not an agent name (letters, digits, '-' and '_' "
                "only; no paths)"
            )
        return value


class AgentTool:
    name = "Agent"
    description = (
        "Launch a subagent with its own context to work on a task with the same tools (except "
        "Agent). Returns the subagent's final answer."
    )
    read_only = True
    #: Checked against Claude Code's schema before any hook runs (`ToolRegistry.schema_refusal`).
    args_model = AgentInput

    def __init__(self, parent: Agent) -> None:
        self.parent = parent

    def input_schema(self) -> dict[str, Any]:
        return json_schema_of(AgentInput)

    def validate(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        return parse_arguments(AgentInput, arguments).model_dump(exclude_none=True)

    def _load_definition_hooks(self, agent_type: str, agent_id: str) -> None:
        """Hooks in the subagent definition's frontmatter (`.claude/agents/<type>.md`; the
        project's only when it is trusted) are active while this subagent runs."""
        config = self.parent.config
        candidates = definition_paths(
            config.project_dir, config.home, agent_type, project_trusted=config.project_trusted
        )
        for path in candidates:
            if path.is_file():
                trusted = (config.project_dir,) if config.project_trusted else ()
                problems = self.parent.hooks.add_frontmatter_hooks(
                    path,
                    "agent",
                    agent_id,
                    project_dir=config.project_dir,
                    home=config.home,
                    trust=TrustPolicy(frozenset(trusted)),
                )
                for problem in problems:
                    self.parent.emit("notice", text=problem)
                return

    def _model_of(self, args: AgentInput) -> str | None:
        """The model the subagent runs on: the call's `model`, else its definition's, as the
        Claude Code profile names it (None: the parent's); a value that is no model name (a
        ``backend:spec``) is ignored, so neither the model nor a repository's file chooses
        where the conversation is sent."""
        config = self.parent.config
        requested = args.model or definition_model(
            config.project_dir,
            config.home,
            args.subagent_type,
            project_trusted=config.project_trusted,
        )
        if requested is None or not MODEL_NAME.fullmatch(requested):
            return None
        return self.parent.hooks.claude_code.model_named(requested)

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        from hookwright.runtime.agent import Agent, new_turn_id

        try:
            args = parse_arguments(AgentInput, arguments)
        except ToolInputError as exc:
            return ToolOutput(content=f"InputValidationError: {exc}", is_error=True)
        parent = self.parent
        agent_id = f"agent-{uuid.uuid4().hex[:12]}"
        tools = ToolRegistry()
        for name in parent.tools.names():
            tool = parent.tools.get(name)
            if tool is not None and name != self.name:
                tools.register(tool)
        sidechain = parent.transcript.path.parent / parent.session_id / "subagents"
        child = Agent(
            parent.engine,
            parent.model,
            tools,
            replace(parent.config, planning=False, skill_hooks=[], effort=parent.session_effort),
            policy=parent.policy,
            session_id=parent.session_id,
            on_event=parent.on_event,
            ask_user=parent.ask_user,
            prompt_channel=parent.prompt_channel,
            agent_id=agent_id,
            agent_type=args.subagent_type,
            transcript_file=sidechain / f"{agent_id}.jsonl",
        )
        model = self._model_of(args)
        if model is not None:
            child.use_model(parent.model, model)
        child.turn_id = new_turn_id()  # its one turn's, which SubagentStart names (Codex)
        child.hooks.identity.transcript_path = parent.hooks.identity.transcript_path
        child.hooks.identity.agent_transcript_path = child.transcript_path
        child.prompt_id = parent.prompt_id
        self._load_definition_hooks(args.subagent_type, agent_id)
        start = await child.hooks.subagent_start(agent_id, args.subagent_type)
        child.open_with(start.before_prompt)
        child.queue_context(start.after_prompt)
        spawn = {"AgentID": agent_id, "Label": agent_id, "ParentTurnID": parent.turn_id or ""}
        child.observe("agent.subturn.spawn", spawn)
        status = "error"
        try:
            result = await child.run(args.prompt)
            status = "completed" if result.status == "completed" else "error"
        finally:
            child.observe("agent.subturn.end", {"AgentID": agent_id, "Status": status})
            child.transcript.close()
            parent.hooks.end_scope(agent_id)
        content = result.final_text or f"(subagent ended: {result.status})"
        data = {
            "status": "completed" if result.status == "completed" else result.status,
            "agentId": agent_id,
            "agentType": args.subagent_type,
            "content": [{"type": "text", "text": result.final_text}],
            "totalRounds": result.rounds,
        }
        return ToolOutput(content=content, is_error=result.status == "failed", data=data)
