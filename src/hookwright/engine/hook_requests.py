"""What a hook asks of its session beyond running: a prompt or agent hook's request to the
session's model (`HookModelRequest`, answered by `Services.evaluator`), and an MCP tool's answer
to a Claude Code `mcp_tool` hook (`McpToolReply`, from `Services.mcp`).

Apart from `Services` (`hookwright.engine.services`), which names them in annotations alone:
they load with the first such hook, not with every session.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal, TypeAlias

ModelKind: TypeAlias = "Literal['prompt', 'agent']"


@dataclass(frozen=True, slots=True)
class HookModelRequest:
    """One prompt or agent hook asking the session's model.

    A prompt hook wants one model call with `prompt`; an agent hook wants an agent that may
    use read-only tools and whose final answer is the reply: an OpenHarness agent hook names
    the agent (`agent`), whose prompt is the `system` prompt, which gets `task` and then
    `prompt`, with the agent's sampling `options`.
    """

    kind: ModelKind
    #: The full text to send, already built by the dialect.
    prompt: str
    #: The hook's own model name or ``provider:name`` ref; None: the session's model.
    model: str | None
    #: The agent an OpenHarness agent hook names; None for Claude Code and prompt hooks.
    agent: str | None
    #: Seconds the hook waits for the reply.
    timeout: float
    #: The system prompt of the agent an OpenHarness agent hook names; None: the host's own.
    system: str | None = None
    #: An OpenHarness agent hook's task: a user message sent before `prompt`.
    task: str | None = None
    #: Sampling options the named agent sets (`temperature`, `top_p`, `max_tokens`).
    options: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class McpToolReply:
    """What an MCP tool answered a hook: its text blocks joined by newlines, and whether the
    server marked the result as an error."""

    text: str
    is_error: bool = False


__all__ = ["HookModelRequest", "McpToolReply", "ModelKind"]
