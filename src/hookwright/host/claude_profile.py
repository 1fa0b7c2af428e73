"""The model-facing wording a session uses for Claude Code hooks, read from the Claude Code
version profile it imitates (`hookwright.dialects.claude_code.profiles`): the table decides,
these functions only apply it."""

from __future__ import annotations

from hookwright.core.results import Decision, Verdict
from hookwright.host.open import ClaudeCodeProfile

CLAUDE_CODE = "claude_code"


def tool_block_message(profile: ClaudeCodeProfile, verdict: Verdict, tool_name: str) -> str:
    """The tool result the model reads for a blocked PreToolUse call."""
    worded = verdict.effects.tool_message
    if worded is not None:
        return worded
    reason = verdict.reason or "Blocked by hook"
    if profile.prefix_tool_blocks and _blocked_by_claude_code(verdict):
        return f"PreToolUse:{tool_name} hook error: {reason}"
    return reason


def _blocked_by_claude_code(verdict: Verdict) -> bool:
    """Whether the first hook to block is a Claude Code hook (other dialects keep their own
    wording under every profile)."""
    for result in verdict.results:
        if result.decision in (Decision.deny, Decision.block):
            return result.hook is not None and result.hook.dialect == CLAUDE_CODE
    return False


def stop_feedback(profile: ClaudeCodeProfile, reason: str) -> str:
    """The user message that makes the loop go on after a Stop block."""
    feedback = f"Stop hook feedback:\n{reason}"
    if profile.stop_preamble is None:
        return feedback
    return f"<system-reminder>\n{profile.stop_preamble}\n{feedback}\n</system-reminder>"
