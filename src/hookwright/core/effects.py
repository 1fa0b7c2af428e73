"""Typed effects: what a hook's answer asks the host to do beyond the core decision fields of
`HookResult` (decision, reason, rewrites, context, continue, abort, respond).

A dialect's codec produces an `Effects` record; the engine merges the records of every hook of a
dispatch (`Effects.merge`); a host reads the merged record from the verdict. No host ever reads a
dialect's own key names, and no codec ever sees another dialect's effects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields

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


@dataclass(frozen=True, slots=True)
class Effects:
    """Every typed effect of one hook, or of a whole dispatch once merged.

    Merge rule (`merge`): tuples concatenate, booleans are or-ed, tool selections unite
    (`ToolSelection.union`), other fields take the later hook's value when it has one.
    """

    #: The exact text the model sees as the tool result when the call is denied (PreToolUse,
    #: PermissionRequest), or, on PostToolUse, the error that replaces the tool's result.
    tool_message: str | None = None
    #: A synthetic tool result that also skips the approval step (PicoClaw `respond`).
    skip_approval: bool = False
    #: A turn abort ends the turn as a failure with this error (PicoClaw `abort_turn`: "hook
    #: requested turn abort").
    abort_error: str | None = None
    #: The tool already answered the user: the turn ends without another model call.
    response_handled: bool = False
    #: Media references a tool result carries for the user (PicoClaw ToolResult `media`).
    media: tuple[str, ...] = ()
    #: Hide the tool output from the model (OpenHarness `suppressOutput`).
    suppress_output: bool = False
    #: Permission rule updates to store (Claude Code `updatedPermissions`), each a rule update.
    permission_updates: tuple[Mapping[str, Any], ...] = ()
    #: Extra instructions for the compaction summary (Claude Code PreCompact stdout).
    compact_instructions: tuple[str, ...] = ()
    #: Files of `export` lines sourced before each Bash command (CLAUDE_ENV_FILE).
    env_files: tuple[str, ...] = ()
    #: Retry the denied call (Claude Code PermissionDenied `retry`).
    retry: bool = False
    session_title: str | None = None
    watch_paths: tuple[str, ...] = ()
    initial_user_message: str | None = None
    reload_skills: bool = False
    suppress_original_prompt: bool = False
    display_content: str | None = None
    elicitation: ElicitationAnswer | None = None
    worktree_path: str | None = None
    classifier_context: str | None = None
    terminal_sequences: tuple[str, ...] = ()
    notices: tuple[Notice, ...] = ()
    #: Prompt messages to insert (skill prompt hooks), in hook order.
    prompt_injections: tuple[PromptInjection, ...] = ()
    #: This hook's paragraphs for the model (context, plain output, blocking feedback) in its
    #: dialect's wording; a result without notes shows its `additional_context` as it is.
    model_notes: tuple[ModelNote, ...] = ()
    #: A replacement for the tool's structured result that the host shows the model the way
    #: the tool shows its own (Claude Code `updatedToolOutput`); when the tool cannot read it,
    #: the original result stands.
    tool_response: Any = None
    #: The tool result a codec decoded from its hook's replacement (`updated_output`) result,
    #: as the host shows it (PicoClaw: `for_llm` with its notes, `media`, `response_handled`,
    #: `for_user`); a synthetic result is typed on `HookResult.respond` itself.
    tool_result: ToolResult | None = None
    #: The tool a hook renamed the call to (PicoClaw `before_tool` / `after_tool` `tool`).
    renamed_tool: str | None = None
    #: The exact user message a Stop block continues the agent with, in its dialect's
    #: wording (Codex: ``<hook_prompt hook_run_id="...">reason</hook_prompt>``); None: the
    #: host's own wording of the reason.
    continuation: str | None = None
    #: The tools the model call may use (Gemini BeforeToolSelection).
    tool_selection: ToolSelection | None = None

    def merge(self, later: Effects) -> Effects:
        """This record with `later`'s effects added (see the class docstring)."""
        changes: dict[str, Any] = {}
        for item in fields(self):
            name = item.name
            mine, theirs = getattr(self, name), getattr(later, name)
            if isinstance(mine, tuple):
                if theirs:
                    changes[name] = mine + theirs
            elif isinstance(mine, bool):
                if theirs and not mine:
                    changes[name] = True
            elif theirs is not None:
                changes[name] = mine.union(theirs) if isinstance(mine, ToolSelection) else theirs
        if not changes:
            return self
        return Effects(**{f.name: changes.get(f.name, getattr(self, f.name)) for f in fields(self)})

    def __bool__(self) -> bool:
        """Whether any effect is set (the shared empty one, most hooks' answer, is told by
        identity: the field-by-field comparison builds two tuples of every field)."""
        return self is not NO_EFFECTS and self != NO_EFFECTS


NO_EFFECTS = Effects()


#: The notices a hook's own line reports, with their fix (the others are lines of their own).
REPORTED_KINDS = frozenset({"hook_failed", "ignored_patch", "ignored_decision"})


def failure_fix(effects: Effects | None) -> str | None:
    """What makes a failed hook work, from its `hook_failed` notice, or what makes a dropped
    patch apply or an ignored decision count, from its `ignored_patch` / `ignored_decision`
    notices (None when its dialect does not say)."""
    if effects is None or not effects.notices:
        return None
    fixes: list[str] = []
    for notice in effects.notices:
        fix = notice.fix
        if notice.kind in REPORTED_KINDS and fix and fix not in fixes:
            fixes.append(fix)
    return "; ".join(fixes) or None
