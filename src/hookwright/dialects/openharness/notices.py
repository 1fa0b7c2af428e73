"""Failures become values: a `HookResult` with status error/timeout and a `hook.notice`.

The real project fails open on every handler error (non-zero exit other than 2, timeout,
non-2xx, invalid JSON, missing agent or prompt file): it logs, writes a failed audit row and
appends a `hook.notice` session event, and the run goes on. hookwright returns the same
notice as a typed `Notice` (kind ``hook_failed``, the upstream record in `detail`, and what
makes the hook work in `fix` when that is known) in the result's effects, for the host to
show to the operator; it is never sent to the model. That notice is the one report: the
failure is logged at debug level only, so no host prints it a second time.
"""

from __future__ import annotations

import logging

from hookwright.core.effect_parts import Notice
from hookwright.core.effects import Effects
from hookwright.core.results import HookResult, Status
from hookwright.dialects.openharness.binding import HookBinding

log = logging.getLogger("hookwright.dialects.openharness")

#: The fix of a hook whose answer could not be read.
ANSWER_AS_JSON = (
    "answer with one JSON object of the unified output (continue, decision, reason, "
    "systemMessage, hookSpecificOutput), or nothing"
)


def timeout_fix(timeout: float) -> str:
    return f"raise handler.timeout_seconds (now {timeout:g}) or make the hook finish sooner"


def failure(
    binding: HookBinding,
    message: str,
    *,
    timed_out: bool = False,
    code: str = "hook_execution_failed",
    exit_code: int | None = None,
    stderr: str | None = None,
    fix: str | None = None,
) -> HookResult:
    text = binding.redact(message)
    log.debug(
        "openharness hook %s (%s, %s) failed, continuing: %s",
        binding.name,
        binding.oh_event,
        binding.handler_type,
        text,
    )
    notice = {
        "hookName": binding.name,
        "eventName": binding.oh_event,
        "handlerType": binding.handler_type,
        "errorCode": code,
        "errorMessage": text,
    }
    return HookResult(
        status=Status.timeout if timed_out else Status.error,
        error=text,
        exit_code=exit_code,
        stderr=binding.redact(stderr) if stderr else None,
        effects=Effects(
            notices=(Notice("hook_failed", binding.name, binding.oh_event, text, notice, fix),)
        ),
    )
