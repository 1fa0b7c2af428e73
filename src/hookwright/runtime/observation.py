"""The fields of the runtime events the reference agent publishes (`HookSession.observe`), as
PicoClaw's agent loop fills them (`pkg/agent/event_payloads.go`): lengths are UTF-8 byte
counts (Go's `len`), durations nanoseconds, empty lists `null`. `TurnRecord` collects what a
turn's `agent.turn.end` reports."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

#: PicoClaw's cap on a tool error summary, in characters ("..." included).
ERROR_SUMMARY_LIMIT = 200


def byte_len(text: str | None) -> int:
    return len(text.encode("utf-8", "surrogatepass")) if text else 0


def truncate(text: str, limit: int) -> str:
    """PicoClaw's `utils.Truncate`: at most `limit` characters, "..." marking a cut."""
    if len(text) <= limit:
        return text
    return text[:limit] if limit <= 3 else text[: limit - 3] + "..."


def exec_end_fields(
    tool: str, content: str, is_error: bool, duration_ns: int, for_user: str | None = None
) -> dict[str, Any]:
    """`agent.tool.exec_end`: `content` is what the model sees of the (final) result."""
    return {
        "Tool": tool,
        "Duration": duration_ns,
        "ForLLMLen": byte_len(content),
        "ForUserLen": byte_len(for_user),
        "IsError": is_error,
        "Async": False,
    }


def turn_end_status(status: str, rollback: bool) -> str:
    """PicoClaw's turn-end status: a failed run and a turn abort are errors, a hard abort
    (history rolled back) and any other early end are aborted."""
    if status == "completed":
        return "completed"
    if status == "failed" or (status == "aborted" and not rollback):
        return "error"
    return "aborted"


@dataclass(slots=True)
class TurnRecord:
    """One turn as `agent.turn.end` reports it."""

    prompt: str
    workspace: str
    started: int = field(default_factory=time.monotonic_ns)
    tool_kinds: list[str] = field(default_factory=list)
    tool_executions: list[dict[str, Any]] = field(default_factory=list)
    #: Every result of the last round answered the user: the turn has no final content.
    handled: bool = False
    #: The model's text of each answer of the turn, Stop continuations included, in order.
    replies: list[str] = field(default_factory=list)

    def record_tool(self, name: str, content: str, is_error: bool) -> None:
        """A tool that ran (or that a hook answered for)."""
        name = name.strip()
        if not name:
            return
        if name not in self.tool_kinds:
            self.tool_kinds.append(name)
        entry: dict[str, Any] = {"name": name, "success": not is_error}
        summary = truncate(content.strip(), ERROR_SUMMARY_LIMIT) if is_error else ""
        if summary:
            entry["error_summary"] = summary
        self.tool_executions.append(entry)

    def end_fields(
        self, status: str, rollback: bool, final_text: str, iterations: int
    ) -> dict[str, Any]:
        final = "" if self.handled else final_text
        pico_status = turn_end_status(status, rollback)
        return {
            "Status": pico_status,
            "Workspace": self.workspace,
            "Iterations": iterations,
            "Duration": time.monotonic_ns() - self.started,
            "FinalContentLen": byte_len(final),
            "UserMessage": self.prompt,
            "FinalContent": final,
            "ActiveSkills": None,
            "AttemptedSkills": None,
            "FinalSuccessfulPath": None,
            "SkillContextSnapshots": None,
            "ToolKinds": list(self.tool_kinds) or None,
            "ToolExecutions": list(self.tool_executions) or None,
        }
