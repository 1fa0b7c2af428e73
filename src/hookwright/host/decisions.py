"""The typed decisions a host applies, one kind per checkpoint.

A host never reads a verdict or a dialect's vocabulary: it calls a `HookSession` method and
applies what comes back. Every record is frozen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from hookwright.core.effect_parts import PromptInjection
from hookwright.core.effect_parts import ToolResult as ToolResult  # its public home was here

EndStatus = Literal["stopped", "aborted", "failed", "blocked"]


@dataclass(frozen=True, slots=True)
class EndTurn:
    """The turn ends at this checkpoint.

    `rollback` (a hard abort) asks the host to drop the turn's messages; `failure` (a model or
    context hook blocked) asks it to report the run as failed (StopFailure)."""

    status: EndStatus
    reason: str
    rollback: bool = False
    failure: str | None = None


# Tool call actions ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Run:
    """Run the tool: `tool_name` and `tool_input` are what the hooks left (renamed, rewritten).
    `approved`: a hook allowed the call (a permission prompt is not needed)."""

    tool_name: str
    tool_input: Mapping[str, Any]
    approved: bool = False
    #: The hook that allowed the call, when one did.
    decided_by: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Ask:
    """A hook wants the user asked before the tool runs."""

    tool_name: str
    tool_input: Mapping[str, Any]
    reason: str | None


@dataclass(frozen=True, slots=True)
class Deny:
    """Do not run the tool; `message` is the tool result the model sees."""

    message: str
    reason: str | None = None
    #: The hook that denied the call, when one did.
    decided_by: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Respond:
    """Do not run the tool; `result` is its answer."""

    result: ToolResult
    skip_approval: bool = False


@dataclass(frozen=True, slots=True)
class Defer:
    """A hook deferred the call to the host (Claude Code `defer`)."""

    reason: str | None


ToolAction = Run | Ask | Deny | Respond | Defer


@dataclass(frozen=True, slots=True)
class ToolDecision:
    """PreToolUse. `context`: the hooks' paragraphs for the model, shown after the tool results
    (see `Checkpoint`); the first `beside_call` of them their dialect shows between the call
    and its output instead (Codex: a developer message each), which a host whose model API
    allows a message there does. `end` (an abort) ends the turn before the tool runs;
    `stop_after` ends it once the round's calls have run."""

    action: ToolAction
    context: tuple[str, ...] = ()
    stop_after: str | None = None
    end: EndTurn | None = None
    beside_call: int = 0


@dataclass(frozen=True, slots=True)
class PermissionDecision:
    """PermissionRequest. `behavior` None: no hook decided (ask the user or apply the mode)."""

    behavior: Literal["allow", "deny"] | None
    tool_input: Mapping[str, Any] | None = None
    message: str | None = None
    reason: str | None = None
    permission_updates: tuple[Mapping[str, Any], ...] = ()
    end: EndTurn | None = None
    #: The hook whose decision `behavior` is.
    decided_by: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class ToolResultDecision:
    """PostToolUse / PostToolUseFailure: `result` is what the model sees (replaced by a hook,
    or by a blocking hook's error, or not); `feedback` is the blocking hooks' reason;
    `context` the paragraphs for the model after the tool results (blocking feedback and
    context, worded by each hook's dialect). `response`, when set, is a structured
    replacement the host shows the way the tool shows its own result (Claude Code
    `updatedToolOutput`), keeping `result` when the tool cannot read it. `beside_call`: as
    for `ToolDecision`."""

    result: ToolResult
    feedback: str | None = None
    context: tuple[str, ...] = ()
    stop_after: str | None = None
    end: EndTurn | None = None
    response: Any = None
    beside_call: int = 0


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A checkpoint whose effects are context for the next model call, prompt messages to
    insert (`PromptFlow` places them) and the turn's end.

    `context` holds the hooks' paragraphs for the model, each in its dialect's wording (Claude
    Code: ``UserPromptSubmit hook additional context: ...``); Claude Code shows a checkpoint's
    paragraphs, joined by a blank line, as one system message after the prompt or the tool
    results."""

    context: tuple[str, ...] = ()
    end: EndTurn | None = None
    prompts: tuple[PromptInjection, ...] = ()
    #: How many of `context`, from the start, their dialect shows ahead of the prompt to come
    #: (SubagentStart's, ahead of the subagent's prompt: Codex's developer messages).
    leading: int = 0

    @property
    def before_prompt(self) -> tuple[str, ...]:
        return self.context[: self.leading]

    @property
    def after_prompt(self) -> tuple[str, ...]:
        return self.context[self.leading :]


@dataclass(frozen=True, slots=True)
class ElicitationDecision:
    """The hooks' answer to an MCP server's request for user input (Elicitation) or their
    override of the answer about to go back (ElicitationResult): `action` is ``accept``,
    ``decline`` or ``cancel``, None when no hook decided (then the host asks the person, or
    keeps the answer it has); a block reads as ``decline``."""

    action: str | None = None
    content: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class SessionStartDecision:
    """`context`: every paragraph for the model; Claude Code shows them after the user's first
    prompt. `leading`: how many of them, from the start, their dialect shows before the
    prompt instead (`before_prompt`), each a message of its own (Codex: a developer message);
    a host that can place them there does, and shows the rest (`after_prompt`) after it.
    `initial_user_message`: Claude Code's `-p` runs it as a prompt of its own before the
    user's (a host without a person at the keyboard should too)."""

    context: tuple[str, ...] = ()
    env_files: tuple[str, ...] = ()
    initial_user_message: str | None = None
    leading: int = 0

    @property
    def before_prompt(self) -> tuple[str, ...]:
        return self.context[: self.leading]

    @property
    def after_prompt(self) -> tuple[str, ...]:
        return self.context[self.leading :]


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One model call: the hooks may rewrite each field."""

    model: str
    messages: Sequence[Mapping[str, Any]]
    tools: Sequence[Mapping[str, Any]] = ()
    options: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ModelRequestDecision:
    """What to send: the request after context-build and model-call hooks, with their notes
    already placed (system messages after the leading system block)."""

    request: ModelRequest
    end: EndTurn | None = None
    #: The hook context placed into `request`, and which of its fields hooks rewrote.
    notes: tuple[str, ...] = ()
    rewritten: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ModelResponseDecision:
    """PostModelCall: `response` replaces the model's answer (same shape as given) when set;
    `notes` are appended to the reply text."""

    response: Mapping[str, Any] | None = None
    notes: tuple[str, ...] = ()
    end: EndTurn | None = None


@dataclass(frozen=True, slots=True)
class StopDecision:
    """Stop / SubagentStop: when a hook made the loop go on, `continue_with` holds one user
    message per blocking hook (``Stop hook feedback:\n<reason>``) and `context` the hooks'
    context paragraphs (the session enforces the consecutive-block cap). Claude Code shows the
    context as a system message after the feedback, or, without feedback, as a user message
    inside ``<system-reminder>`` tags."""

    continue_with: tuple[str, ...] = ()
    context: tuple[str, ...] = ()
    end: EndTurn | None = None
    capped: bool = False

    @property
    def continues(self) -> bool:
        return bool(self.continue_with or self.context)


@dataclass(frozen=True, slots=True)
class CompactDecision:
    """PreCompact: `skip` says why compaction must not happen; otherwise `instructions` go into
    the summary prompt and `messages`, when set, replace the history to summarise."""

    skip: str | None = None
    instructions: tuple[str, ...] = ()
    messages: Sequence[Mapping[str, Any]] | None = None


@dataclass(frozen=True, slots=True)
class CompactedDecision:
    """PostCompact: `summary` replaces the summary when a hook rewrote it."""

    summary: str | None = None
