"""Claude Code's wire contract: the stdin JSON a hook reads (built in `stdin`), and how its
stdout, stderr and exit code (or HTTP response) become a `HookResult` (spec §4, §6, §7).

Pure functions: no process, no file, no clock. The handlers run the hook and call these.

Exit-code rules (§4.2) come in two flavours, chosen per hook at load time:

* ``"current"`` (Claude Code docs from 2026-08-12): JSON on stdout is read on every exit code;
  exit 2 blocks on blocking events even when the JSON says allow; any other non-zero exit with
  valid JSON lets the JSON decide.
* ``"classic"`` (2025 docs): JSON only on exit 0; exit 2 uses stderr alone; other codes are
  non-blocking errors.

Scripts that print JSON and exit 0, or print to stderr and exit 2, behave the same under both.

How a block reads per event (the host applies it): PreToolUse and PermissionRequest answer
`deny`; every other event answers `block` with the reason Claude Code would show (Stop and
SubagentStop: Claude continues with the reason as its next instruction; PostToolUse and
PostToolUseFailure: the reason is fed back next to the tool result; UserPromptSubmit: the
prompt is erased and the reason shown to the user; WorktreeCreate: creation fails; PreCompact:
compaction is skipped). A PreToolUse legacy top-level ``decision`` (``"block"``, ``"approve"``)
keeps its word on the result (`HookResult.own_word`), which every view says first; a
``permissionDecision`` beside it, or exit 2, decides in the canonical word.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from hookwright.config.safeparse import ParseError, load_json_text
from hookwright.core.effect_parts import ElicitationAnswer
from hookwright.core.events import Event, HookInput
from hookwright.core.results import Decision, HookResult, Status
from hookwright.dialects.claude_code.notes import PERMISSION_DENIED_BY_HOOK, blocking_error
from hookwright.dialects.claude_code.schema import (
    ElicitationOutput,
    HookOutput,
    MessageDisplayOutput,
    OutputError,
    PermissionDecisionObject,
    PermissionDeniedOutput,
    PermissionRequestOutput,
    PostToolUseOutput,
    PreModelSwitchOutput,
    PreSkillShellCommandOutput,
    PreToolUseOutput,
    SessionStartOutput,
    UserPromptSubmitOutput,
    WatchOutput,
    WorktreeCreateOutput,
    _Specific,
    validate_output,
)
from hookwright.dialects.claude_code.tables import (
    ADDITIONAL_CONTEXT,
    CLASSIFIER_CONTEXT_CAP,
    CONTINUE_HONOURED,
    DEFAULT_DENY_REASON,
    DENY_EVENTS,
    EXIT2_BLOCKS,
    EXIT2_IGNORED,
    EXIT2_SKIPS_SPECIFIC,
    OUTPUT_DISCARDED,
    PLAIN_STDOUT_CONTEXT,
    SKILL_REWRITE_REFUSED,
    SYSTEM_MESSAGE_KEPT,
    TOP_LEVEL_BLOCK,
)

ExitRules = Literal["current", "classic"]
EXIT_RULES: tuple[ExitRules, ...] = ("current", "classic")

LOOKS_LIKE_JSON = "stdout looks like JSON but is not"
NO_STDERR = "No stderr output"
#: An `asyncTimeout` above this (a day, in milliseconds) is this: a 400-digit number is not a
#: float, and no async hook outlives a day.
MAX_ASYNC_TIMEOUT_MS = 86_400_000

Parsed = tuple[HookOutput, _Specific | None]


# Output -----------------------------------------------------------------------------------------


def parse_json_object(text: str) -> dict[str, Any] | None:
    """§4.1: after leading whitespace a `{` means JSON; anything else (or bad JSON) is text."""
    stripped = text.lstrip()
    if not stripped.startswith("{"):
        return None
    try:
        value = load_json_text(stripped)
    except ParseError:
        return None
    return value if isinstance(value, dict) else None


def broken_json(text: str) -> str | None:
    """`stdout looks like JSON but is not: <parser message>` when `text` starts with `{` (after
    whitespace) and does not parse as a JSON object, else None. Claude Code then treats the
    output as plain text; this says why a decision in it had no effect."""
    stripped = text.lstrip()
    if not stripped.startswith("{"):
        return None
    try:
        value = load_json_text(stripped)
    except ParseError as exc:
        return f"{LOOKS_LIKE_JSON}: {exc.reason}"
    return None if isinstance(value, dict) else f"{LOOKS_LIKE_JSON}: not an object"


def _report_broken_json(result: HookResult, stdout: str) -> HookResult:
    """Name a broken JSON answer on `result.error` (after any error it has), its status and
    effect unchanged."""
    problem = broken_json(stdout)
    if problem is not None:
        result.error = f"{result.error}; {problem}" if result.error else problem
    return result


def first_line(text: str | None) -> str:
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()
    return ""


def block_message(label: str, stderr: str | None) -> str:
    """Exit-2 block text: ``[<command>]: <stderr>``, the stderr verbatim."""
    return f"[{label}]: {stderr or NO_STDERR}"


def _error(result: HookResult, message: str) -> HookResult:
    result.status = Status.error
    result.error = message
    return result


def _blocking_decision(event: Event) -> Decision:
    return Decision.deny if event in DENY_EVENTS else Decision.block


def can_block(inp: HookInput) -> bool:
    """ConfigChange cannot block a change of policy settings."""
    return not (inp.event is Event.ConfigChange and inp.payload.get("source") == "policy_settings")


def _apply_post_tool_use(specific: PostToolUseOutput, result: HookResult) -> None:
    """A replaced output is also shown the way the tool shows its own (`tool_response`)."""
    replacement = specific.updatedToolOutput
    if replacement is None:
        replacement = specific.updatedMCPToolOutput
    if replacement is not None:
        result.updated_output = replacement
        result.add_effects(tool_response=replacement)
    if specific.classifierContext:
        result.add_effects(classifier_context=specific.classifierContext[:CLASSIFIER_CONTEXT_CAP])


def _apply_specific(inp: HookInput, specific: _Specific, result: HookResult) -> None:
    event = inp.event
    if specific.additionalContext and event in ADDITIONAL_CONTEXT:
        result.additional_context = specific.additionalContext
    if isinstance(specific, PreToolUseOutput):
        _apply_pre_tool_use(specific, result)
    elif isinstance(specific, PermissionRequestOutput) and specific.decision is not None:
        _apply_permission_request(specific.decision, result)
    elif isinstance(specific, PermissionDeniedOutput):
        if specific.retry:
            result.add_effects(retry=True)
    elif isinstance(specific, PostToolUseOutput):
        _apply_post_tool_use(specific, result)
    elif isinstance(specific, SessionStartOutput):
        if specific.initialUserMessage is not None:
            result.add_effects(initial_user_message=specific.initialUserMessage)
        if specific.sessionTitle is not None:
            result.add_effects(session_title=specific.sessionTitle)
        if specific.watchPaths is not None:
            result.add_effects(watch_paths=tuple(specific.watchPaths))
        if specific.reloadSkills:
            result.add_effects(reload_skills=True)
    elif isinstance(specific, UserPromptSubmitOutput):
        if specific.sessionTitle is not None:
            result.add_effects(session_title=specific.sessionTitle)
        if specific.suppressOriginalPrompt:
            result.add_effects(suppress_original_prompt=True)
    elif isinstance(specific, WatchOutput):
        if specific.watchPaths is not None:
            result.add_effects(watch_paths=tuple(specific.watchPaths))
    elif isinstance(specific, MessageDisplayOutput):
        if specific.displayContent is not None:
            result.add_effects(display_content=specific.displayContent)
    elif isinstance(specific, ElicitationOutput):
        if specific.action is not None or specific.content is not None:
            result.add_effects(elicitation=ElicitationAnswer(specific.action, specific.content))
    elif isinstance(specific, WorktreeCreateOutput) and specific.worktreePath:
        result.add_effects(worktree_path=specific.worktreePath)
    elif isinstance(specific, PreModelSwitchOutput) and specific.permissionDecision is not None:
        result.decision = Decision(specific.permissionDecision)
        result.reason = specific.permissionDecisionReason
        if result.decision is Decision.deny and not result.reason:
            result.reason = DEFAULT_DENY_REASON
    elif isinstance(specific, PreSkillShellCommandOutput):
        _apply_skill_shell(specific, result)


def _apply_pre_tool_use(specific: PreToolUseOutput, result: HookResult) -> None:
    if specific.permissionDecision is not None:
        result.decision = Decision(specific.permissionDecision)
        result.reason = specific.permissionDecisionReason
        result.own_word = None  # said in the canonical word, over a legacy `decision`
    elif specific.permissionDecisionReason and result.decision is not None:
        result.reason = specific.permissionDecisionReason
    if result.decision is Decision.deny and not result.reason:
        result.reason = DEFAULT_DENY_REASON
    if specific.updatedInput is not None:
        result.updated_input = specific.updatedInput


def _apply_permission_request(decision: PermissionDecisionObject, result: HookResult) -> None:
    result.decision = Decision(decision.behavior)
    if decision.behavior == "allow":
        result.updated_input = decision.updatedInput
        if decision.updatedPermissions:
            result.add_effects(permission_updates=tuple(decision.updatedPermissions))
    else:
        result.reason = decision.message
        result.add_effects(tool_message=decision.message or PERMISSION_DENIED_BY_HOOK)
        if decision.interrupt:
            result.abort = "turn"


def _apply_skill_shell(specific: PreSkillShellCommandOutput, result: HookResult) -> None:
    """`allow` adds nothing; `deny`, `ask` and `defer` all stop the command; any
    `updatedInput` stops it too (it is never applied)."""
    if specific.rewrites:
        result.decision, result.reason = Decision.deny, SKILL_REWRITE_REFUSED
    elif specific.permissionDecision not in (None, "allow"):
        result.decision = Decision.deny
        result.reason = specific.permissionDecisionReason or DEFAULT_DENY_REASON


def apply_output(
    inp: HookInput, parsed: Parsed, result: HookResult, *, skip_specific: bool = False
) -> HookResult:
    """Apply validated JSON to `result` following the per-event tables."""
    output, specific = parsed
    event = inp.event
    if output.terminalSequence:
        result.add_effects(terminal_sequences=(output.terminalSequence,))
    if event in OUTPUT_DISCARDED:
        return result
    if not output.continue_ and event in CONTINUE_HONOURED:
        result.continue_ = False
        result.stop_reason = output.stopReason
    if output.systemMessage and event in SYSTEM_MESSAGE_KEPT:
        result.system_message = output.systemMessage
    if output.decision is not None:
        if event is Event.PreToolUse:
            legacy = Decision.allow if output.decision == "approve" else Decision.deny
            result.decision, result.own_word = legacy, output.decision
            result.reason = output.reason or (
                DEFAULT_DENY_REASON if legacy is Decision.deny else None
            )
        elif output.decision == "block" and event in TOP_LEVEL_BLOCK and can_block(inp):
            result.decision = Decision.block
            result.reason = output.reason
    if specific is not None and not skip_specific:
        _apply_specific(inp, specific, result)
    if event is Event.PreToolUse and result.decision is Decision.deny and result.reason:
        result.add_effects(tool_message=result.reason)
    return result


def _validate(inp: HookInput, data: dict[str, Any] | None) -> tuple[Parsed | None, str | None]:
    if data is None:
        return None, None
    try:
        return validate_output(inp.event, data), None
    except OutputError as exc:
        return None, str(exc)


def _json_block_reason(parsed: Parsed | None, inp: HookInput) -> str | None:
    """The reason of a blocking JSON decision, used as the exit-2 block message."""
    if parsed is None:
        return None
    probe = apply_output(inp, parsed, HookResult())
    if probe.decision in (Decision.deny, Decision.block) and probe.reason:
        return probe.reason
    return None


def _worktree(exit_code: int, stdout: str, stderr: str, result: HookResult) -> HookResult:
    """WorktreeCreate: any non-zero exit fails; the last non-empty stdout line is the path."""
    if exit_code != 0:
        result.decision = Decision.block
        result.reason = first_line(stderr) or f"WorktreeCreate hook exited {exit_code}"
        return _error(result, f"WorktreeCreate hook failed with exit code {exit_code}")
    lines = [line.strip() for line in stdout.splitlines() if line.strip()]
    if not lines:
        result.decision = Decision.block
        result.reason = "WorktreeCreate hook printed no worktree path"
        return _error(result, result.reason)
    result.add_effects(worktree_path=lines[-1])
    return result


def decode_command(
    inp: HookInput,
    *,
    exit_code: int,
    stdout: str,
    stderr: str,
    label: str,
    rules: ExitRules = "current",
) -> HookResult:
    """A finished command hook's output as a result (§4.1, §4.2, §7).

    `label` is the command as Claude Code shows it in block messages. Any other non-zero
    exit with valid JSON lets the JSON decide; without it (and exit 2 on an event that cannot
    block) the hook is a non-blocking error that names the first stderr line.
    """
    result = _decode_command(inp, exit_code, stdout, stderr, label, rules)
    return _report_broken_json(result, stdout) if exit_code == 0 or rules == "current" else result


def _decode_command(
    inp: HookInput, exit_code: int, stdout: str, stderr: str, label: str, rules: ExitRules
) -> HookResult:
    event = inp.event
    result = HookResult(exit_code=exit_code, stderr=stderr or None)
    if event is Event.WorktreeCreate:
        return _worktree(exit_code, stdout, stderr, result)
    data = parse_json_object(stdout)
    if rules == "classic" and exit_code != 0:
        data = None
    parsed, schema_error = _validate(inp, data)
    if exit_code == 0:
        if schema_error is not None:
            return _error(result, f"invalid hook output: {schema_error}")
        if parsed is not None:
            return apply_output(inp, parsed, result)
        text = stdout.strip()
        if text and data is None:
            if event in PLAIN_STDOUT_CONTEXT:
                result.additional_context = text
            elif event is Event.PreCompact:
                result.add_effects(compact_instructions=(text,))
        return result
    if exit_code == 2 and event in EXIT2_IGNORED:
        if parsed is not None:
            apply_output(inp, parsed, result)
        return result
    if exit_code == 2 and event in EXIT2_BLOCKS and can_block(inp):
        if parsed is not None:
            apply_output(inp, parsed, result, skip_specific=event in EXIT2_SKIPS_SPECIFIC)
        result.decision, result.own_word = _blocking_decision(event), None  # exit 2 decided
        json_reason = _json_block_reason(parsed, inp)
        result.reason = json_reason or block_message(label, stderr)
        if json_reason is None and event is Event.PreToolUse:
            result.add_effects(tool_message=blocking_error(inp, result.reason))
        result.updated_input = None
        return result
    if parsed is not None:
        apply_output(inp, parsed, result)
        if exit_code != 2:
            return result
    elif schema_error is not None:
        return _error(result, f"invalid hook output: {schema_error}")
    detail = first_line(stderr) or NO_STDERR
    if exit_code == 127:
        return _error(result, f"command not found (exit 127): {detail}")
    return _error(result, f"Failed with non-blocking status code {exit_code}: {detail}")


def decode_http(
    inp: HookInput,
    *,
    status: int | None,
    text: str,
    error: str | None,
    timed_out: bool,
) -> HookResult:
    """An HTTP hook's response as a result (§4.3): status codes never block."""
    if timed_out:
        return HookResult(status=Status.timeout, error=error or "HTTP hook timed out")
    result = HookResult()
    if error is not None or status is None:
        return _error(result, error or "HTTP hook failed")
    if not 200 <= status < 300:
        return _error(
            result, f"HTTP hook returned status {status}: {first_line(text)}".rstrip(": ")
        )
    if not text.strip():
        return result
    data = parse_json_object(text)
    if data is None:
        return _error(result, f"HTTP hook returned a non-JSON 2xx body: {first_line(text)[:200]}")
    parsed, schema_error = _validate(inp, data)
    if schema_error is not None or parsed is None:
        return _error(result, f"invalid hook output: {schema_error}")
    return apply_output(inp, parsed, result)


def is_async_declaration(line: str) -> bool:
    """Whether a command hook's first stdout line declares it asynchronous (§3.1)."""
    data = parse_json_object(line)
    return data is not None and data.get("async") is True


def async_timeout(line: str) -> float | None:
    """The optional `asyncTimeout` (milliseconds) of an async declaration, in seconds."""
    data = parse_json_object(line) or {}
    value = data.get("asyncTimeout")
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return min(value, MAX_ASYNC_TIMEOUT_MS) / 1000.0
    return None


def decode_async(stdout: str) -> tuple[str | None, str | None]:
    """What a finished async hook delivers on the next turn: (additionalContext,
    systemMessage). Decision fields have no effect (§3.1)."""
    data = parse_json_object(stdout)
    if data is None:
        return None, None
    context = None
    specific = data.get("hookSpecificOutput")
    if isinstance(specific, Mapping) and isinstance(specific.get("additionalContext"), str):
        context = specific["additionalContext"]
    message = data.get("systemMessage")
    return context, message if isinstance(message, str) else None
