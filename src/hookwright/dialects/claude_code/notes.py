"""The words Claude Code 2.1.240 puts around a hook's answer before the model reads it.

Measured against the real CLI (its requests to the Messages API):

* context, plain output and blocking feedback are paragraphs of the system message that follows
  the prompt or the tool results: ``<name> hook additional context: <text>``,
  ``<name> hook success: <plain stdout>`` (SessionStart, UserPromptSubmit) and
  ``<name> hook blocking error from command: "<command>": <reason>`` (PostToolUse,
  PostToolUseFailure), where the name is the event with ``:<tool>`` on tool events (and
  ``:<source>`` on SessionStart's success line) and the command is a command hook's command, an
  HTTP hook's URL or a prompt hook's prompt. Every hook has paragraphs of its own, except
  SessionStart's context: the texts of all hooks form one paragraph, one per line, after the
  success lines;
* a Stop block by JSON ``decision: block`` (not by exit code 2) is also a paragraph
  ``Stop hook blocking error from command: "<command>": <reason>``, marked `block_feedback`:
  2.1.332 shows it, 2.1.240 does not (`hookwright.dialects.claude_profiles`);
* a PreToolUse block by exit 2 or by a prompt hook is the tool result
  ``PreToolUse:<tool> hook error: [<command>]: <text>``; a JSON deny is its reason verbatim,
  a PermissionRequest deny its message (``Permission denied by hook`` without one).
"""

from __future__ import annotations

from hookwright.core.effect_parts import ModelNote
from hookwright.core.events import Event, HookInput
from hookwright.core.results import Decision, HookResult

#: Events whose hook name carries the tool (`PreToolUse:Bash`).
_TOOL_NAMED = frozenset(
    {
        Event.PreToolUse,
        Event.PostToolUse,
        Event.PostToolUseFailure,
        Event.PermissionRequest,
        Event.PermissionDenied,
    }
)
#: Events whose block is feedback shown next to the tool result.
_FEEDBACK_BLOCKS = frozenset({Event.PostToolUse, Event.PostToolUseFailure})
PERMISSION_DENIED_BY_HOOK = "Permission denied by hook"


def hook_name(inp: HookInput) -> str:
    """The event as Claude Code names its hooks in model-facing text."""
    tool = inp.payload.get("tool_name")
    if inp.event in _TOOL_NAMED and isinstance(tool, str) and tool:
        return f"{inp.event.value}:{tool}"
    return inp.event.value


def _success_name(inp: HookInput) -> str:
    source = inp.payload.get("source")
    if inp.event is Event.SessionStart and isinstance(source, str) and source:
        return f"{inp.event.value}:{source}"
    return hook_name(inp)


def blocking_error(inp: HookInput, text: str) -> str:
    """The tool result of a PreToolUse block by exit 2 or a prompt hook."""
    return f"{hook_name(inp)} hook error: {text}"


def _stop_json_block(inp: HookInput, result: HookResult) -> bool:
    return inp.event is Event.Stop and result.decision is Decision.block and result.exit_code == 0


def attach_notes(inp: HookInput, result: HookResult, *, command: str, plain: bool) -> HookResult:
    """Add the paragraphs the model reads for `result` (`plain`: its context is the hook's
    plain stdout, not JSON)."""
    notes: list[ModelNote] = []
    name = hook_name(inp)
    if result.decision is Decision.block and inp.event in _FEEDBACK_BLOCKS and result.reason:
        label = f'{name} hook blocking error from command: "{command}": '
        notes.append(ModelNote(result.reason, label))
    if _stop_json_block(inp, result) and result.reason:
        label = f'{name} hook blocking error from command: "{command}": '
        notes.append(ModelNote(result.reason, label, block_feedback=True))
    context = result.additional_context
    if context and plain:
        notes.append(ModelNote(context, f"{_success_name(inp)} hook success: "))
    elif context:
        gather = inp.event is Event.SessionStart
        notes.append(ModelNote(context, f"{name} hook additional context: ", gather=gather))
    if notes:
        result.add_effects(model_notes=tuple(notes))
    return result
