"""The paragraphs a dispatch's hooks give the model, in the order the host shows them.

Each hook contributes its dialect's wording (`Effects.model_notes`: Claude Code's
``PreToolUse:Bash hook additional context: ...``), or, when its dialect words nothing, its
additional context as given. A host puts the paragraphs of a checkpoint, joined by a blank line,
in the system message that follows the prompt or the tool results.
"""

from __future__ import annotations

from collections.abc import Iterable

from hookwright.core.results import Decision, HookResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hookwright.core.effect_parts import ModelNote


def _notes_of(result: HookResult, feedback_label: str | None) -> tuple[ModelNote, ...]:
    if result.effects is not None and result.effects.model_notes:
        return result.effects.model_notes
    reason = result.reason if result.decision is Decision.block else None
    feedback = reason if feedback_label is not None else None
    if not feedback and not result.additional_context:
        return ()
    from hookwright.core.effect_parts import ModelNote  # a note no dialect worded

    notes: list[ModelNote] = []
    if feedback and feedback_label is not None:
        notes.append(ModelNote(feedback, feedback_label))
    if result.additional_context:
        notes.append(ModelNote(result.additional_context))
    return tuple(notes)


def _in_declared_order(
    pairs: list[tuple[HookResult, ModelNote]],
) -> list[tuple[HookResult, ModelNote]]:
    """The notes whose dialect orders them (`ordered`) sorted by their hooks' declaration
    order, in the places such notes held; the others where they were (completion order)."""
    slots = [index for index, (_, note) in enumerate(pairs) if note.ordered]
    if len(slots) < 2:
        return pairs
    ordered = sorted(
        (pairs[index] for index in slots),
        key=lambda pair: pair[0].hook.order if pair[0].hook is not None else 0,
    )
    placed = list(pairs)
    for index, pair in zip(slots, ordered, strict=True):
        placed[index] = pair
    return placed


def model_notes(
    results: Iterable[HookResult],
    *,
    feedback_label: str | None = None,
    block_feedback: bool = True,
    before_prompt: bool | None = None,
    beside_call: bool | None = None,
) -> tuple[str, ...]:
    """The paragraphs of `results` (completion order, except notes their dialect orders by
    declaration). `feedback_label`: on events whose block is feedback for the model, the label
    of a block reason no dialect worded; `block_feedback`: False leaves out the notes that
    repeat a Stop block's reason; `before_prompt`, `beside_call`: only the notes whose mark is
    that (None: all). Gathered notes come last, one paragraph per label."""
    paragraphs: list[str] = []
    gathered: dict[str, list[str]] = {}
    pairs = [(result, note) for result in results for note in _notes_of(result, feedback_label)]
    for _, note in _in_declared_order(pairs):
        if note.block_feedback and not block_feedback:
            continue
        if before_prompt is not None and note.before_prompt is not before_prompt:
            continue
        if beside_call is not None and note.beside_call is not beside_call:
            continue
        if note.gather:
            gathered.setdefault(note.label, []).append(note.text)
        else:
            paragraphs.append(note.label + note.text)
    paragraphs += [label + "\n".join(texts) for label, texts in gathered.items()]
    return tuple(paragraphs)


def placed_notes(
    results: Iterable[HookResult], *, feedback_label: str | None = None
) -> tuple[tuple[str, ...], int]:
    """A tool hook's paragraphs with those shown beside the call first, and how many they are."""
    listed = tuple(results)
    beside = model_notes(listed, feedback_label=feedback_label, beside_call=True)
    rest = model_notes(listed, feedback_label=feedback_label, beside_call=False)
    return beside + rest, len(beside)
