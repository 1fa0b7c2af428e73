"""The model-facing wording a session uses for Claude Code hooks, read from the Claude Code
version profile it imitates (`hookwright.dialects.claude_profiles`): the table decides,
these functions only apply it."""

from __future__ import annotations

from hookwright.core.results import Decision, HookResult, Verdict
from hookwright.host.open import ClaudeCodeProfile

CLAUDE_CODE = "claude_code"


def tool_block_message(profile: ClaudeCodeProfile, verdict: Verdict, tool_name: str) -> str:
    """The tool result the model reads for a blocked PreToolUse call: what the blocking hook's
    dialect worded (a Claude Code JSON deny words it as its reason verbatim, exit code 2 as a
    hook error), and under a profile that words every block as a hook error, a Claude Code
    reason not yet worded so gets the prefix."""
    message = verdict.effects.tool_message or verdict.reason or "Blocked by hook"
    prefix = f"PreToolUse:{tool_name} hook error: "
    if not profile.prefix_tool_blocks or message.startswith(prefix):
        return message
    return prefix + message if _blocked_by_claude_code(verdict) else message


def _blocked_by_claude_code(verdict: Verdict) -> bool:
    """Whether the first hook to block is a Claude Code hook (other dialects keep their own
    wording under every profile)."""
    for result in verdict.results:
        if result.decision in (Decision.deny, Decision.block):
            return _by_claude_code(result)
    return False


def stop_feedback(profile: ClaudeCodeProfile, result: HookResult, event: str = "Stop") -> str:
    """The user message that makes the loop go on after `result` blocked a Stop (or another
    `event` that keeps the agent working, as TeammateIdle); a Claude Code hook's under a
    profile with a Stop preamble comes inside a ``<system-reminder>``."""
    feedback = f"{event} hook feedback:\n{result.reason or 'continue working'}"
    if profile.stop_preamble is None or not _by_claude_code(result):
        return feedback
    return f"<system-reminder>\n{profile.stop_preamble}\n{feedback}\n</system-reminder>"


def _by_claude_code(result: HookResult) -> bool:
    return result.hook is not None and result.hook.dialect == CLAUDE_CODE
