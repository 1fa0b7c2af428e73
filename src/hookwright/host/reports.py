"""What a session tells its host's operator about each dispatch: which hook had which effect,
failures, and the hooks' messages for the user. Never shown to the model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hookwright.core.effects import failure_fix
from hookwright.core.results import HookResult, Status, Verdict, effect_of
from hookwright.core.spec import HookSpec

#: `report(kind, **fields)`: kinds ``hooks_running`` (with ``status``: the status messages of
#: the hooks about to run), ``hooks_done``, ``hook_result`` (with ``code``: a failed hook's
#: error code, when its dialect gives one; ``fix``: what makes a failed hook work, when its
#: dialect knows; ``context``: the text it added for the model;
#: ``stderr``: a failed hook's stderr, for a Python hook the traceback of its own frames;
#: ``tier`` and ``shadow``: its policy tier and shadow mode, only when it has either;
#: ``system``, ``event_words``, ``file``: the hook's `HookLabel`, as every view names it;
#: ``own_event``: the event in its author's words, which a system's word for an effect may
#: depend on, and ``own_word``: the word its answer said its decision in, where its system
#: has two (`HookResult.own_word`), both for `hookwright.core.systems.effect_words`),
#: ``notice`` (with a failed hook's record when its dialect keeps one: OpenHarness
#: ``hookName``, ``eventName``, ``handlerType``, ``errorCode``, ``errorMessage``).
Reporter = Callable[..., None]


def report_verdict(report: Reporter, verdict: Verdict, project_dir: Path | None = None) -> None:
    from hookwright.host.labels import label_of, own_event  # here: a bridge reports nothing

    event = verdict.event.value
    for result in verdict.results:
        spec = result.hook
        if not result.has_effect and result.status is Status.ok and not result.error:
            continue
        effect = effect_of(result)
        if effect == "prompt":
            continue  # the host's PromptFlow reports the persistent ones to its client
        label = label_of(spec, project_dir) if spec else None
        report(
            "hook_result",
            effect=effect,
            event=event,
            hook=spec.name if spec else "?",
            source=spec.source if spec else "?",
            dialect=spec.dialect if spec else "?",
            status=result.status.value,
            decision=result.decision.value if result.decision else None,
            reason=result.reason,
            error=result.error,
            code=failure_code(result),
            fix=failure_fix(result.effects),
            context=result.additional_context,
            stderr=result.stderr if result.status is Status.error else None,
            system=label.system if label else "?",
            event_words=label.event if label else event,
            file=label.file if label else None,
            own_event=own_event(spec) if spec else None,
            own_word=result.own_word,
            **(_tier_fields(spec) if spec and (spec.tier or spec.shadow) else {}),
        )
    for message in verdict.system_messages:
        report("notice", text=message, event=event)
    for notice in verdict.effects.notices:
        # A dropped patch (`ignored_patch`) is reported on its hook's line: its error, its fix.
        if notice.kind == "hook_failed" and notice.detail:
            # the dialect's own record as its agent keeps it (OpenHarness `hook.notice`:
            # hookName, eventName, handlerType, errorCode, errorMessage)
            detail = {key: value for key, value in notice.detail.items() if key != "text"}
            text = f"{notice.hook} failed, the run goes on: {notice.message}"
            report("notice", **{**detail, "text": text, "event": event})


def _tier_fields(spec: HookSpec) -> dict[str, str | bool]:
    """A hook's policy tier and shadow mode, for the hosts' lines (only when it has them)."""
    fields: dict[str, str | bool] = {"shadow": spec.shadow}
    if spec.tier is not None:
        fields["tier"] = spec.tier
    return fields


def failure_code(result: HookResult) -> str | None:
    """The error code a failed hook's dialect gave (OpenHarness `hook.notice` `errorCode`:
    `hook_execution_failed`, `agent_not_found`), or None."""
    for notice in result.effects.notices if result.effects else ():
        code = notice.detail.get("errorCode") if notice.detail else None
        if notice.kind == "hook_failed" and isinstance(code, str):
            return code
    return None
