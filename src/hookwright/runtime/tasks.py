"""The task list tools: `TaskCreate` and `TaskUpdate`, with the hooks that guard them.

Claude Code offers them when `CLAUDE_CODE_ENABLE_TODO_TOOLS` is on (in its environment or a
settings file's `env`) and `CLAUDE_CODE_ENABLE_TASKS` is not off. TaskCreate fires TaskCreated
and TaskUpdate to `completed` fires TaskCompleted: a blocking hook (exit code 2, `decision:
"block"`) keeps the task as it was, and the model reads ``<Event> hook feedback:\\n<reason>``
per blocking hook. A hook that fails never blocks on these events, whatever its `onFailure`
says (the engine applies that). The list lives as long as the session; subagents share it.
They touch nothing but that list, so no permission mode asks for them (as in Claude Code).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from hookwright.core.results import Decision, Verdict
from hookwright.host import Event
from hookwright.runtime.tools.base import ArgsT, ModelTool, ToolContext, ToolOutput, failure
from hookwright.runtime.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from hookwright.runtime.agent import Agent

ENABLE_VARIABLE = "CLAUDE_CODE_ENABLE_TODO_TOOLS"
DISABLE_VARIABLE = "CLAUDE_CODE_ENABLE_TASKS"
_ON = frozenset({"1", "true", "yes", "on"})
_OFF = frozenset({"0", "false", "no", "off"})


def tasks_enabled(env: Mapping[str, str]) -> bool:
    """Whether the session offers the task list tools, as Claude Code decides from `env`."""
    if env.get(DISABLE_VARIABLE, "").strip().lower() in _OFF:
        return False
    return env.get(ENABLE_VARIABLE, "").strip().lower() in _ON


@dataclass(slots=True)
class Task:
    id: str
    subject: str
    description: str
    status: str = "pending"
    active_form: str | None = None
    owner: str | None = None


class TaskList:
    """The session's tasks, numbered from 1 in creation order."""

    def __init__(self) -> None:
        self._tasks: dict[str, Task] = {}
        self._last = 0

    def add(self, subject: str, description: str, active_form: str | None) -> Task:
        self._last += 1
        task = Task(str(self._last), subject, description, active_form=active_form)
        self._tasks[task.id] = task
        return task

    def get(self, task_id: str) -> Task | None:
        return self._tasks.get(task_id)

    def remove(self, task_id: str) -> bool:
        return self._tasks.pop(task_id, None) is not None


class TaskCreateInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    subject: str = Field(description="A brief title for the task")
    description: str | None = Field(default=None, description="What needs to be done")
    activeForm: str | None = Field(
        default=None, description="Present continuous form shown while in progress"
    )


class TaskUpdateInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    taskId: str = Field(description="The ID of the task to update")
    subject: str | None = Field(default=None, description="New subject for the task")
    description: str | None = Field(default=None, description="New description for the task")
    activeForm: str | None = Field(default=None, description="New spinner text")
    status: Literal["pending", "in_progress", "completed", "deleted"] | None = Field(
        default=None, description="New status for the task"
    )
    owner: str | None = Field(default=None, description="New owner for the task")


def feedback(event: Event, verdict: Verdict) -> list[str]:
    """One ``<event> hook feedback:`` message per hook that blocked."""
    return [
        f"{event.value} hook feedback:\n{result.reason or ''}"
        for result in verdict.results
        if result.decision is Decision.block
    ]


class _TaskTool(ModelTool[ArgsT]):
    """A tool on the session's task list (read-only: it touches nothing else), firing the
    task events through the agent's hooks."""

    read_only = True

    def __init__(self, agent: Agent, tasks: TaskList) -> None:
        self.agent = agent
        self.tasks = tasks

    async def fire(self, event: Event, task: Task) -> list[str]:
        """Fire `event` for `task`; the feedback of each hook that blocked it."""
        verdict = await self.agent.hooks.fire(
            event,
            task_id=task.id,
            task_subject=task.subject,
            task_description=task.description,
        )
        return feedback(event, verdict)


class TaskCreateTool(_TaskTool[TaskCreateInput]):
    name = "TaskCreate"
    description = "Create a task in the task list."
    args_model = TaskCreateInput

    async def call(self, args: TaskCreateInput, ctx: ToolContext) -> ToolOutput:
        description = args.subject if args.description is None else args.description
        task = self.tasks.add(args.subject, description, args.activeForm)
        if blocked := await self.fire(Event.TaskCreated, task):
            self.tasks.remove(task.id)
            return failure("\n".join(blocked))
        return ToolOutput(content=f"Task #{task.id} created successfully: {task.subject}")


class TaskUpdateTool(_TaskTool[TaskUpdateInput]):
    name = "TaskUpdate"
    description = "Update a task in the task list: its status, details or owner."
    args_model = TaskUpdateInput

    async def call(self, args: TaskUpdateInput, ctx: ToolContext) -> ToolOutput:
        task = self.tasks.get(args.taskId)
        if task is None:
            return ToolOutput(content="Task not found")
        if args.status == "deleted":
            self.tasks.remove(task.id)
            return ToolOutput(content=f"Updated task #{task.id} deleted")
        completing = args.status == "completed" and task.status != "completed"
        if completing and (blocked := await self.fire(Event.TaskCompleted, task)):
            return ToolOutput(content="\n".join(blocked))
        changed = _apply(task, args)
        return ToolOutput(content=f"Updated task #{task.id} {', '.join(changed)}")


def _apply(task: Task, args: TaskUpdateInput) -> list[str]:
    """Set the fields `args` changes, in Claude Code's order; their names."""
    changed: list[str] = []
    for name, attribute, value in (
        ("subject", "subject", args.subject),
        ("description", "description", args.description),
        ("activeForm", "active_form", args.activeForm),
        ("owner", "owner", args.owner),
        ("status", "status", args.status),
    ):
        if value is not None and value != getattr(task, attribute):
            setattr(task, attribute, value)
            changed.append(name)
    return changed


def register_task_tools(registry: ToolRegistry, agent: Agent) -> None:
    """Add TaskCreate and TaskUpdate, sharing one task list, unless the host brought its own."""
    tasks = TaskList()
    for tool in (TaskCreateTool(agent, tasks), TaskUpdateTool(agent, tasks)):
        if registry.get(tool.name) is None:
            registry.register(tool)
