"""The paragraphs a dispatch's hooks give the model, in the order the host shows them.

Each hook contributes its dialect's wording (`Effects.model_notes`: Claude Code's
``PreToolUse:Bash hook additional context: ...``), or, when its dialect words nothing, its
additional context as given. A host puts the paragraphs of a checkpoint, joined by a blank line,
in the system message that follows the prompt or the tool results.
"""

from __future__ import annotations

from collections.abc import Iterable

from hookwright.core.effects import ModelNote
from hookwright.core.results import Decision, HookResult


def _notes_of(result: HookResult, feedback_label: str | None) -> tuple[ModelNote, ...]:
    if result.effects is not None and result.effects.model_notes:
        return result.effects.model_notes
    notes: list[ModelNote] = []
    if feedback_label is not None and result.decision is Decision.block and result.reason:
        notes.append(ModelNote(result.reason, feedback_label))
    if result.additional_context:
        notes.append(ModelNote(result.additional_context))
    return tuple(notes)


def model_notes(
    results: Iterable[HookResult],
    *,
    feedback_label: str | None = None,
    block_feedback: bool = True,
    before_prompt: bool | None = None,
) -> tuple[str, ...]:
    """The paragraphs of `results` (completion order). `feedback_label`: on events whose block
    is feedback for the model, the label of a block reason no dialect worded;
    `block_feedback`: False leaves out the notes that repeat a Stop block's reason;
    `before_prompt`: only the notes whose `before_prompt` is that (None: all). Gathered
    notes come last, one paragraph per label."""
    paragraphs: list[str] = []
    gathered: dict[str, list[str]] = {}
    for result in results:
        for note in _notes_of(result, feedback_label):
            if note.block_feedback and not block_feedback:
                continue
            if before_prompt is not None and note.before_prompt is not before_prompt:
                continue
            if note.gather:
                gathered.setdefault(note.label, []).append(note.text)
            else:
                paragraphs.append(note.label + note.text)
    paragraphs += [label + "\n".join(texts) for label, texts in gathered.items()]
    return tuple(paragraphs)
