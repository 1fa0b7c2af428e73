"""Hook-supplied text on its way out: secrets redacted, size capped, marked when cut.

Every text a hook answers with can reach the model (context, system messages, reasons, tool
messages), the operator (errors, notices) or the audit. Before any of them sees it, each
registered secret value is replaced by ``***`` and a text longer than :data:`TEXT_CAP`
characters is cut with a visible marker. Claude Code's own 10,000-character rule for context
and system messages (the full text saved to a file) is applied earlier, by the dialect.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from hookwright.core.effects import Effects
from hookwright.core.redaction import redact, redact_data
from hookwright.core.results import HookResult

#: The longest hook-supplied text passed on, in characters.
TEXT_CAP = 50_000


def cap(text: str, limit: int = TEXT_CAP) -> str:
    """`text`, or its first `limit` characters and a marker saying how much was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[... {len(text) - limit} more characters truncated by hookwright]"


def outward(text: str | None, secrets: Collection[str]) -> str | None:
    if text is None:
        return None
    return cap(redact(text, secrets))


def _outward_data(result: HookResult, secrets: Collection[str]) -> None:
    """Rewritten tool output and patches bound for the model: secrets redacted, not capped.
    A tool input rewrite goes to the tool, which may need the secret, and is left alone."""
    if result.updated_output is not None:
        result.updated_output = redact_data(result.updated_output, secrets)
    if result.patches:
        result.patches = {
            scope: patch if scope == "tool_input" else redact_data(patch, secrets)
            for scope, patch in result.patches.items()
        }


def _outward_effects(effects: Effects, secrets: Collection[str]) -> Effects:
    tool_message = outward(effects.tool_message, secrets)
    continuation = outward(effects.continuation, secrets)
    compact = tuple(outward(text, secrets) or "" for text in effects.compact_instructions)
    notices = tuple(
        replace(notice, message=outward(notice.message, secrets) or "")
        for notice in effects.notices
    )
    notes = tuple(
        replace(note, text=outward(note.text, secrets) or "", label=redact(note.label, secrets))
        for note in effects.model_notes
    )
    response = redact_data(effects.tool_response, secrets) if secrets else effects.tool_response
    if (
        tool_message == effects.tool_message
        and continuation == effects.continuation
        and compact == effects.compact_instructions
        and notices == effects.notices
        and notes == effects.model_notes
        and response is effects.tool_response
    ):
        return effects
    return replace(
        effects,
        tool_message=tool_message,
        continuation=continuation,
        compact_instructions=compact,
        notices=notices,
        model_notes=notes,
        tool_response=response,
    )


def make_outward(result: HookResult, secrets: Collection[str]) -> None:
    """Redact and cap, in place, every text of `result` that leaves the engine, each through
    `outward` (a text a result does not have costs no call: most results have one or two)."""
    if result.reason is not None:
        result.reason = outward(result.reason, secrets)
    if result.stop_reason is not None:
        result.stop_reason = outward(result.stop_reason, secrets)
    if result.system_message is not None:
        result.system_message = outward(result.system_message, secrets)
    if result.additional_context is not None:
        result.additional_context = outward(result.additional_context, secrets)
    if result.error is not None:
        result.error = outward(result.error, secrets)
    if result.stderr is not None:
        result.stderr = outward(result.stderr, secrets)
    if result.effects is not None:
        result.effects = _outward_effects(result.effects, secrets)
    if secrets:
        _outward_data(result, secrets)
