"""One tool call as an OpenTelemetry `execute_tool` span, by the GenAI agent conventions.

A host that runs tools (the reference agent's tool step) opens the span before the call's
PreToolUse and ends it after its PostToolUse or PostToolUseFailure (or when a hook or a
permission rule settles the call without running it): ``execute_tool {tool_name}`` with
``gen_ai.operation.name=execute_tool``, ``gen_ai.tool.name``, ``gen_ai.tool.call.id`` and
``gen_ai.tool.type``. The dispatches of that call's tool events are its children, and the hook
runs theirs. What hookwright decided is said with its own names (``hookwright.decision``,
``hookwright.reason``); none of the conventions' guardrail names is used, since an ordinary
hook is not a guardrail. A call the tool ran and failed (PostToolUseFailure) has an error
status and ``error.type``, as the conventions ask."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any

from hookwright.core import redaction
from hookwright.core.events import Event, HookInput
from hookwright.core.results import Verdict

if TYPE_CHECKING:
    from opentelemetry.trace import Span

OPERATION = "execute_tool"
#: How a failed run is named in ``error.type`` (the tool's own error text may carry anything).
TOOL_ERROR = "tool_error"
#: MCP tools' names in every host hookwright serves.
MCP_PREFIX = "mcp__"


def tool_type(tool_name: str) -> str:
    """``gen_ai.tool.type``: an MCP server's tool reaches outside the agent (``extension``);
    the agent's own tools are ``function``."""
    return "extension" if tool_name.startswith(MCP_PREFIX) else "function"


def tool_attributes(tool_name: str, call_id: str, session_id: str | None) -> dict[str, Any]:
    return {
        "gen_ai.operation.name": OPERATION,
        "gen_ai.tool.name": tool_name,
        "gen_ai.tool.call.id": call_id,
        "gen_ai.tool.type": tool_type(tool_name),
        "hookwright.session_id": session_id,
    }


class ToolSpan:
    """An open `execute_tool` span and the context its dispatches are started in."""

    __slots__ = ("context", "span")

    def __init__(self, span: Span, context: Any) -> None:
        self.span = span
        self.context = context

    def note(self, inp: HookInput, verdict: Verdict, secrets: AbstractSet[str]) -> None:
        """A tool event of this call was dispatched: the PreToolUse verdict is the call's
        decision; a PostToolUseFailure marks the run failed."""
        if inp.event is Event.PreToolUse and verdict.decision is not None:
            self.span.set_attribute("hookwright.decision", verdict.decision.value)
            if verdict.reason:
                reason = redaction.redact(verdict.reason, secrets)
                self.span.set_attribute("hookwright.reason", reason)
        elif inp.event is Event.PostToolUseFailure:
            from opentelemetry.trace import Status, StatusCode

            self.span.set_attribute("error.type", TOOL_ERROR)
            self.span.set_status(Status(StatusCode.ERROR, TOOL_ERROR))
