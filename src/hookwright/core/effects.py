"""Typed effects: what a hook's answer asks the host to do beyond the core decision fields of
`HookResult` (decision, reason, rewrites, context, continue, abort, respond).

A dialect's codec produces an `Effects` record; the engine merges the records of every hook of a
dispatch (`Effects.merge`); a host reads the merged record from the verdict. No host ever reads a
dialect's own key names, and no codec ever sees another dialect's effects. The records its
fields hold (notices, notes, prompt injections, tool results and selections) are in
`hookwright.core.effect_parts`, loaded where one is made.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from hookwright.core.effect_parts import (
        ElicitationAnswer,
        ModelNote,
        Notice,
        PromptInjection,
        ToolResult,
        ToolSelection,
    )


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
                # the one field that unites rather than replaces (`ToolSelection.union`)
                united = name == "tool_selection" and mine is not None
                changes[name] = mine.union(theirs) if united else theirs
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
