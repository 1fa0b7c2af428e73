"""The JSON a hook may print (spec §4.1, §4.5, §6): validated like Claude Code's zod schema.

Unknown keys are dropped silently; a wrong type, an unknown ``hookEventName`` or a
``hookEventName`` that differs from the firing event is a validation failure. Types are strict
(``"true"`` is not a boolean), as in zod.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hookwright.core.events import Event
from hookwright.dialects.claude_code.tables import EVENT_NAMES


class _Strict(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True, populate_by_name=True)


class HookOutput(_Strict):
    continue_: bool = Field(default=True, alias="continue")
    suppressOutput: bool | None = None
    stopReason: str | None = None
    decision: Literal["approve", "block"] | None = None
    reason: str | None = None
    systemMessage: str | None = None
    terminalSequence: str | None = None
    hookSpecificOutput: dict[str, Any] | None = None


class _Specific(_Strict):
    hookEventName: str
    additionalContext: str | None = None


class PreToolUseOutput(_Specific):
    permissionDecision: Literal["allow", "deny", "ask", "defer"] | None = None
    permissionDecisionReason: str | None = None
    updatedInput: dict[str, Any] | None = None


class PermissionDecisionObject(_Strict):
    behavior: Literal["allow", "deny"]
    updatedInput: dict[str, Any] | None = None
    updatedPermissions: list[dict[str, Any]] | None = None
    message: str | None = None
    interrupt: bool | None = None


class PermissionRequestOutput(_Specific):
    decision: PermissionDecisionObject | None = None


class PermissionDeniedOutput(_Specific):
    retry: bool | None = None


class PostToolUseOutput(_Specific):
    updatedToolOutput: Any = None
    updatedMCPToolOutput: Any = None
    classifierContext: str | None = None


class SessionStartOutput(_Specific):
    initialUserMessage: str | None = None
    sessionTitle: str | None = None
    watchPaths: list[str] | None = None
    reloadSkills: bool | None = None


class UserPromptSubmitOutput(_Specific):
    sessionTitle: str | None = None
    suppressOriginalPrompt: bool | None = None


class WatchOutput(_Specific):
    watchPaths: list[str] | None = None


class MessageDisplayOutput(_Specific):
    displayContent: str | None = None


class ElicitationOutput(_Specific):
    action: Literal["accept", "decline", "cancel"] | None = None
    content: dict[str, Any] | None = None


class WorktreeCreateOutput(_Specific):
    worktreePath: str | None = None


class PreModelSwitchOutput(_Specific):
    permissionDecision: Literal["allow", "deny", "ask"] | None = None
    permissionDecisionReason: str | None = None


class PreSkillShellCommandOutput(_Specific):
    """`updatedInput` is never applied: any value, null included, blocks the command."""

    permissionDecision: Literal["allow", "deny", "ask", "defer"] | None = None
    permissionDecisionReason: str | None = None
    updatedInput: Any = None

    @property
    def rewrites(self) -> bool:
        return "updatedInput" in self.model_fields_set


SPECIFIC_MODELS: dict[Event, type[_Specific]] = {
    Event.PreToolUse: PreToolUseOutput,
    Event.PermissionRequest: PermissionRequestOutput,
    Event.PermissionDenied: PermissionDeniedOutput,
    Event.PostToolUse: PostToolUseOutput,
    Event.SessionStart: SessionStartOutput,
    Event.UserPromptSubmit: UserPromptSubmitOutput,
    Event.CwdChanged: WatchOutput,
    Event.FileChanged: WatchOutput,
    Event.MessageDisplay: MessageDisplayOutput,
    Event.Elicitation: ElicitationOutput,
    Event.ElicitationResult: ElicitationOutput,
    Event.WorktreeCreate: WorktreeCreateOutput,
    Event.PreModelSwitch: PreModelSwitchOutput,
    Event.PreSkillShellCommand: PreSkillShellCommandOutput,
}


class OutputError(ValueError):
    """The hook's JSON failed validation; the message names the field."""


def _describe(exc: ValidationError, prefix: str) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        where = f"{prefix}.{loc}" if prefix and loc else prefix or loc
        parts.append(f"{where}: {err['msg']}" if where else err["msg"])
    return "; ".join(parts)


def validate_output(event: Event, data: dict[str, Any]) -> tuple[HookOutput, _Specific | None]:
    """Validate a parsed JSON object for `event`; raises OutputError."""
    try:
        output = HookOutput.model_validate(data)
    except ValidationError as exc:
        raise OutputError(_describe(exc, "")) from None
    raw = output.hookSpecificOutput
    if raw is None:
        return output, None
    name = raw.get("hookEventName")
    if not isinstance(name, str):
        raise OutputError("hookSpecificOutput.hookEventName: required string is missing")
    if name not in EVENT_NAMES:
        raise OutputError(f"hookSpecificOutput.hookEventName: unknown event {name!r}")
    if name != event.value:
        raise OutputError(
            f"Hook returned incorrect event name: expected {event.value!r}, got {name!r}"
        )
    model = SPECIFIC_MODELS.get(event, _Specific)
    try:
        specific = model.model_validate(raw)
    except ValidationError as exc:
        raise OutputError(_describe(exc, "hookSpecificOutput")) from None
    return output, specific
