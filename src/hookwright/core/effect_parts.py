"""The records an `Effects` field holds beyond the verdict: a notice for the operator, a note
or a prompt injection for the model, a typed tool result, a tool selection, an elicitation
answer.

They live apart from `Effects` (`hookwright.core.effects`), which names them in annotations
alone: an event whose hooks answer only a decision, the common case, never builds one, so a
process answering one event does not load them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias

    NoticeKind: TypeAlias = Literal[
        "hook_failed", "ignored_patch", "ignored_decision", "script_missing", "warning"
    ]

ToolMode: TypeAlias = "Literal['AUTO', 'ANY', 'NONE']"


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the operator should see and the model never does: a failed hook, a patch
    dropped for lack of a capability, a missing hook script."""

    kind: NoticeKind
    hook: str
    event: str
    message: str
    #: The dialect's own record (OpenHarness `hook.notice`: hookName, handlerType, errorCode...).
    detail: Mapping[str, Any] | None = None
    #: For a failed hook, what its author changes to make it work, when the dialect knows
    #: (an OpenHarness command's exit code, a timeout to raise); every view shows it.
    fix: str | None = None


@dataclass(frozen=True, slots=True)
class ElicitationAnswer:
    """A Claude Code Elicitation hook answering for the user."""

    action: str | None
    content: Mapping[str, Any] | None


@dataclass(frozen=True, slots=True)
class PromptInjection:
    """A prompt message to insert into the model's history at a checkpoint (skill prompt
    hooks): `timing` says when it is removed again, unless it is `persistent`."""

    name: str
    timing: str
    role: str
    content: str
    persistent: bool
    #: For a hook that follows tool calls: the index of the call in its batch.
    position: int = 0
    #: The skill the hook belongs to (skill prompt hooks), for what the user is shown.
    skill: str | None = None
    #: The file the hook's prompt came from, relative to the project, for what the user is
    #: shown.
    file: str | None = None


@dataclass(frozen=True, slots=True)
class ToolResult:
    """A tool's answer as hooks see and replace it: the model-facing text, whether it is an
    error, and the structured result (`tool_response`). A codec produces it for a hook's
    synthetic result (`HookResult.respond`), `tool_result_of` for a Python hook's; a host
    applies it as it is."""

    content: str
    is_error: bool = False
    data: Any = None
    #: The tool already answered the user: the turn ends without another model call once
    #: every result of the round is handled.
    response_handled: bool = False
    #: Media references for the user (PicoClaw `media`), and text for the user (`for_user`).
    media: tuple[str, ...] = ()
    for_user: str | None = None
    #: What the model sees instead of `content` when the host cannot deliver the response
    #: itself and counts it as not handled (PicoClaw: the note that the output was delivered
    #: left out); None: `content`.
    unhandled_content: str | None = None


@dataclass(frozen=True, slots=True)
class ModelNote:
    """A paragraph of hook text for the model, in its dialect's wording: `label` then `text`
    (Claude Code: ``PostToolUse:Bash hook additional context: ...``).

    The host places the paragraphs of one checkpoint in a system message after the prompt or
    after the tool results. Notes with `gather` set and the same label form one paragraph after
    the others, their texts one per line (Claude Code's SessionStart context). A note with
    `block_feedback` repeats a Stop block's reason, which only some Claude Code versions show;
    the host drops it when imitating one that does not. A note with `before_prompt` (a
    SessionStart hook's, in a dialect whose CLI shows it so: Codex's developer message) is
    shown before the user's prompt, a message of its own; a host that puts every paragraph
    after the prompt shows it with the others. A note with `beside_call` (a tool hook's, in
    such a dialect) is shown between the tool's call and its output, where the host's model
    API allows a message there; else with the others. Notes with `ordered` are shown in the
    order their hooks are declared, whatever order the hooks finish in (Codex)."""

    text: str
    label: str = ""
    gather: bool = False
    block_feedback: bool = False
    before_prompt: bool = False
    beside_call: bool = False
    ordered: bool = False


@dataclass(frozen=True, slots=True)
class ToolSelection:
    """The tools a model call may use, in the host's tool names (Gemini BeforeToolSelection's
    `toolConfig`): ``NONE`` offers none; otherwise a non-empty `allowed` keeps only those,
    an empty one keeps every tool. ``ANY`` (Gemini: the model must call a tool) narrows as
    ``AUTO`` does; the host cannot force a call.

    Selections of several hooks merge as Gemini CLI merges them (`union`): ``NONE`` wins,
    then ``ANY``, then ``AUTO``, and the allowed names are the union of every hook's, so a
    hook can add tools to the call but not take away another hook's."""

    mode: ToolMode = "AUTO"
    allowed: frozenset[str] = frozenset()

    def union(self, other: ToolSelection) -> ToolSelection:
        modes = (self.mode, other.mode)
        mode: ToolMode = "NONE" if "NONE" in modes else "ANY" if "ANY" in modes else "AUTO"
        return ToolSelection(mode, frozenset() if mode == "NONE" else self.allowed | other.allowed)

    def narrow(self, tools: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        """`tools` (OpenAI function definitions) as this selection leaves them."""
        if self.mode == "NONE":
            return []
        if not self.allowed:
            return list(tools)
        return [tool for tool in tools if _definition_name(tool) in self.allowed]


def _definition_name(tool: Mapping[str, Any]) -> str:
    function = tool.get("function")
    if isinstance(function, Mapping):
        return str(function.get("name", ""))
    return str(tool.get("name", ""))
