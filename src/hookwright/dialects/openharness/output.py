"""The unified output every OpenHarness handler returns, and what it does to the run.

```json
{"continue": true, "stopReason": "...", "suppressOutput": false, "systemMessage": "...",
 "decision": "block", "reason": "...",
 "hookSpecificOutput": {"hookEventName": "...", "additionalContext": "...",
                        "patch": {"tool_input": {"command": "npm run lint"}}}}
```

Reading (as the real project): trim, take the first `{` through the last `}` (prose around the
JSON is tolerated), parse. hookwright also type-checks the known fields; a wrong type is a
failure like invalid JSON. `hookSpecificOutput.hookEventName` is not checked (nor upstream).

Mapping to a `HookResult`:

* `continue: false` or `decision: "block"` blocks, with `stopReason`, else `reason`, else
  "Hook <name> blocked execution.": `Decision.deny` on before_tool_dispatch, `Decision.block`
  elsewhere (the runtime turns a tool-dispatch block into a tool error the model sees, and a
  block at model or context events into a failed run). `continue_` stays true: a block is not
  "stop the agent". Nothing else in a blocking answer is applied. The result keeps the word
  it was answered in (`HookResult.own_word`: ``block`` or ``continue: false``; exit 2 none).
* Another `decision` value (`"deny"`, `"approve"`, `"Block"`) is ignored, as the real
  engine ignores it (it tests `decision === "block"` only): the rest of the answer applies,
  and an ``ignored_decision`` `Notice` (with a `fix`) is added, whose message becomes the
  result's `error` (the status stays ok), so every view says it once with the hook's file.
* run_completed / run_failed hooks only observe: their answers are decoded and dropped; one
  that asks to block (exit 2, `continue: false`, any `decision`) gets the same
  ``ignored_decision`` report (its notice, and its message as the result's error).
* `systemMessage` and `hookSpecificOutput.additionalContext` are notes for the model, placed
  as the real project places them (spec §5): on model events they become
  `additional_context` (one text, `systemMessage` first, joined by a blank line), which the
  runtime inserts as system messages; on context and compaction events they go into the
  context at once, so the next hook of the chain sees them: system messages after the
  leading ones, which become one (`payload_updates["messages"]`), or, on
  after_context_compact, whose context has no messages, appended to the summary
  (`payload_updates["compact_summary"]`); on after_tool_dispatch they are appended to the
  tool output the model reads (`updated_output`: its text gets `"\n\n" + note` per note; an
  object a patch put there gets a `hookNotes` list); on before_tool_dispatch they are
  ignored. They never become a user-facing `system_message`.
* each `patch.<scope>` applies only with its capability and on its event (see
  `capabilities.py`); otherwise it is ignored: an ``ignored_patch`` `Notice` (with a `fix`)
  is added to the result's effects and its message becomes the result's `error` (the status
  stays ok), so every view reports it once, with the hook's file and the fix. Applied patches
  become:
  `tool_input` -> `updated_input` (the shallow-merged input); `tool_output` ->
  `updated_output`; `model_request` -> `updated_input` with the canonical request fields
  (`model`, `messages`, `options`) and `payload_updates["model_ref"]` when the model changes;
  `model_response` -> `updated_output` (the canonical response); `context` ->
  `payload_updates` with the canonical fields the merged context changes (`messages`,
  `compact_summary`, `custom_instructions`), and `chain_state` that hands the merged context
  to the next hook of the chain. `patches` holds each applied scope's patch as the hook sent
  it (the audit records it).
* `suppressOutput` needs `suppress_output`: `Effects.suppress_output`, and on
  after_tool_dispatch the tool output becomes `""` (the real project's effect).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any

from hookwright.config.safeparse import ParseError, load_json_text
from hookwright.core.effect_parts import Notice
from hookwright.core.effects import Effects
from hookwright.core.events import Event, HookInput
from hookwright.core.messages import insert_system_notes
from hookwright.core.results import Decision, HookResult
from hookwright.dialects.openharness import envelope as env
from hookwright.dialects.openharness import patches
from hookwright.dialects.openharness.binding import HookBinding
from hookwright.dialects.openharness.capabilities import (
    SCOPE_CAPABILITY,
    SCOPE_EVENTS,
    SUPPRESS_OUTPUT,
)
from hookwright.dialects.openharness.events import CONTEXT_EVENTS, LIFECYCLE_EVENTS, OH_NAME

log = logging.getLogger("hookwright.dialects.openharness")


class OutputError(ValueError):
    """Output that is not the unified JSON."""


@dataclass(slots=True)
class UnifiedOutput:
    continue_: bool = True
    stop_reason: str | None = None
    suppress_output: bool = False
    system_message: str | None = None
    decision: str | None = None
    reason: str | None = None
    additional_context: str | None = None
    patch: dict[str, Any] = field(default_factory=dict)

    @property
    def blocks(self) -> bool:
        return not self.continue_ or self.decision == "block"


def _typed(data: dict[str, Any], key: str, kind: type, where: str = "") -> Any:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise OutputError(f"`{where}{key}` must be {_KIND_NAMES[kind]}")
    return value


_KIND_NAMES: dict[type, str] = {bool: "a boolean", str: "a string", dict: "an object"}


def parse_output(text: str) -> UnifiedOutput:
    start, end = text.find("{"), text.rfind("}")
    if start == -1 or end < start:
        raise OutputError("returned invalid JSON output: no JSON object found")
    try:
        data = load_json_text(text[start : end + 1])
    except ParseError as exc:
        raise OutputError(f"returned invalid JSON output: {exc}") from None
    if not isinstance(data, dict):
        raise OutputError("returned invalid JSON output: not an object")
    specific = _typed(data, "hookSpecificOutput", dict) or {}
    patch = _typed(specific, "patch", dict, "hookSpecificOutput.") or {}
    cont = _typed(data, "continue", bool)
    return UnifiedOutput(
        continue_=True if cont is None else cont,
        stop_reason=_typed(data, "stopReason", str),
        suppress_output=bool(_typed(data, "suppressOutput", bool)),
        system_message=_typed(data, "systemMessage", str),
        decision=_typed(data, "decision", str),
        reason=_typed(data, "reason", str),
        additional_context=_typed(specific, "additionalContext", str, "hookSpecificOutput."),
        patch=patch,
    )


#: What makes a `decision` OpenHarness ignores do what its author meant.
DECISION_FIX = (
    'answer "decision": "block" (or "continue": false) to block; leave "decision" out to let '
    "it go on (OpenHarness has no allow or deny decision)"
)
#: What makes a run_completed / run_failed hook's request to block do what its author meant.
OBSERVE_FIX = (
    "block from a before_* hook (before_tool_dispatch, before_model_call); OpenHarness does "
    "not act on a run_completed or run_failed hook's answer"
)


def ignored_answer(binding: HookBinding, field: str, message: str, fix: str) -> Notice:
    """The report of a part of an answer the real engine ignores (`field`: the answer's
    field, or ``exit 2``)."""
    log.debug("openharness hook %s (%s): %s ignored", binding.name, binding.oh_event, field)
    detail = {"field": field, "reason": message}
    return Notice("ignored_decision", binding.name, binding.oh_event, message, detail, fix)


#: The characters of a hook's decision value a report quotes.
SHOWN_CHARS = 40


def _shown(binding: HookBinding, value: str) -> str:
    """A decision value as a report quotes it: secrets redacted, then cut."""
    text = binding.redact(value)
    return json.dumps(text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…")


def _observes(binding: HookBinding, field: str, asked: str) -> HookResult:
    """A run_completed / run_failed hook asked to block (`field`: the answer's field, or
    ``exit 2``; `asked`: how, quoted): a result with no effect on the run, reported as any
    decision the real engine ignores (it neither checks these hooks' answers nor lets their
    failures stop the run, spec §5), with what to do instead."""
    message = f"{asked} is not applied: {binding.oh_event} hooks only observe"
    notice = ignored_answer(binding, field, message, OBSERVE_FIX)
    return HookResult(error=message, effects=Effects(notices=(notice,)))


def blocked(binding: HookBinding, reason: str, asked: str = "exit 2") -> HookResult:
    """A blocking answer (exit 2, `continue: false`, `decision: block`); `asked` says how
    it asked, for a lifecycle hook's report that it was ignored."""
    text = binding.redact(reason)
    if binding.event in LIFECYCLE_EVENTS:
        field = "exit 2" if asked == "exit 2" else asked.partition(":")[0].strip('"')
        return _observes(binding, field, asked)
    if binding.event is Event.PreToolUse:
        return HookResult(decision=Decision.deny, reason=text)
    if binding.event is Event.PostToolUse:
        # The real engine replaces the tool result by an error carrying the reason.
        return HookResult(decision=Decision.block, reason=text, effects=Effects(tool_message=text))
    return HookResult(decision=Decision.block, reason=text)


class _Decoder:
    """Applies one answer's patches against the input the hook saw."""

    def __init__(self, binding: HookBinding, inp: HookInput, envelope: dict[str, Any]) -> None:
        self.binding = binding
        self.inp = inp
        self.envelope = envelope
        self.result = HookResult()
        self.raw: dict[str, Any] = {}
        self.payload_updates: dict[str, Any] = {}
        self.ignored: list[Notice] = []
        #: The context after this hook's `context` patch (None: not patched).
        self.context: dict[str, Any] | None = None

    def ignore_decision(self, decision: str) -> None:
        """A `decision` the real engine ignores (it blocks on ``"block"`` only)."""
        said = f'"decision": {_shown(self.binding, decision)} is not an OpenHarness decision'
        message = f'{said} (only "block" blocks)'
        self.ignored.append(ignored_answer(self.binding, "decision", message, DECISION_FIX))

    def ignore(
        self, scope: str, capability: str | None, reason: str, fix: str | None = None
    ) -> None:
        """Drop a patch: the `ignored_patch` notice and the result's error text are its one
        report (the log line is for debugging hookwright itself)."""
        b = self.binding
        log.debug("openharness hook %s (%s): %s ignored: %s", b.name, b.oh_event, scope, reason)
        detail = {"scope": scope, "capability": capability, "reason": reason}
        message = f"{scope} ignored: {reason}"
        self.ignored.append(Notice("ignored_patch", b.name, b.oh_event, message, detail, fix))

    def apply(self, scope: str, value: Any) -> None:
        capability = SCOPE_CAPABILITY.get(scope)
        if capability is None:
            fix = f"patch one of: {', '.join(SCOPE_CAPABILITY)}"
            self.ignore(scope, None, "unknown patch scope", fix)
        elif self.binding.event not in SCOPE_EVENTS[scope]:
            events = " or ".join(sorted(OH_NAME[event] for event in SCOPE_EVENTS[scope]))
            fix = f"patch {scope} from a {events} hook"
            self.ignore(scope, capability, f"does not apply to {self.binding.oh_event}", fix)
        elif capability not in self.binding.capabilities:
            fix = f"add {capability} to the hook's capabilities"
            self.ignore(scope, capability, f"needs capability {capability}", fix)
        else:
            try:
                self._apply(scope, value)
            except patches.PatchError as exc:
                self.ignore(scope, capability, str(exc))

    def _apply(self, scope: str, value: Any) -> None:
        result, payload = self.result, self.inp.payload
        if scope == "tool_input":
            result.updated_input = patches.tool_input(self.envelope.get("tool_input"), value)
        elif scope == "tool_output":
            result.updated_output = patches.tool_output(self.envelope.get("tool_output"), value)
            result.chain_state = dict(env.OUTPUT_PATCHED)
        elif scope == "model_request":
            fields, unknown = patches.model_request(payload, value)
            request: dict[str, Any] = {
                k: payload[k] for k in ("model", "messages", "options") if k in payload
            }
            result.updated_input = {**request, **fields}
            if "model" in fields:
                self.payload_updates["model_ref"] = fields["model"]
            self._unsupported(scope, unknown)
        elif scope == "model_response":
            result.updated_output, unknown = patches.model_response(payload.get("response"), value)
            self._unsupported(scope, unknown)
        else:
            merged = patches.context(self.envelope.get("context") or {}, value)
            self.payload_updates.update(_context_fields(self.binding.event, merged))
            self.result.chain_state = env.chain_state(merged)
            self.context = merged
        self.raw[scope] = value

    def _unsupported(self, scope: str, keys: list[str]) -> None:
        if keys:
            self.ignore(
                f"{scope}.{{{','.join(keys)}}}", SCOPE_CAPABILITY[scope], "unsupported keys"
            )

    def notes(self, notes: list[str]) -> None:
        """Place `systemMessage` / `additionalContext` where OpenHarness puts them."""
        event = self.binding.event
        if not notes or event is Event.PreToolUse:
            return
        if event is Event.PostToolUse:
            current = self.result.updated_output
            output = self._model_output() if current is None else current
            self.result.updated_output = patches.with_notes(output, notes)
        elif event in CONTEXT_EVENTS:
            self._context_notes(notes)
        else:
            self.result.additional_context = "\n\n".join(notes)

    def _model_output(self) -> Any:
        """The tool output as the model reads it, which the notes follow (measured: the
        model gets the text with each note after a blank line, not an object with
        `hookNotes`); the hook's `tool_output` when an earlier hook of the chain patched it
        or there is no such text."""
        seen = self.envelope.get("tool_output")
        if env.output_patched(self.inp):
            return seen
        result = self.inp.payload.get("tool_result")
        content = result.get("content") if isinstance(result, dict) else None
        return content if isinstance(content, str) else seen

    def _context_notes(self, notes: list[str]) -> None:
        """Context events put the notes into the context itself, so the next hook of the
        chain sees them: system messages after the leading ones (which become one), or, for
        a context without messages (after compaction), appended to the summary."""
        context = self.context or self.envelope.get("context") or {}
        messages = context.get("messages")
        if isinstance(messages, list):
            context = {**context, "messages": insert_system_notes(messages, notes)}
        else:
            summary = patches.with_notes(context.get("summaryText") or "", notes)
            context = {**context, "summaryText": summary}
        self.payload_updates.update(_context_fields(self.binding.event, context))
        self.result.chain_state = env.chain_state(context)

    def suppress(self) -> None:
        if SUPPRESS_OUTPUT not in self.binding.capabilities:
            needs, fix = (
                f"needs capability {SUPPRESS_OUTPUT}",
                f"add {SUPPRESS_OUTPUT} to the hook's capabilities",
            )
            self.ignore("suppressOutput", SUPPRESS_OUTPUT, needs, fix)
            return
        self.result.add_effects(suppress_output=True)
        if self.binding.event is Event.PostToolUse:
            self.result.updated_output = ""

    def finish(self) -> HookResult:
        result = self.result
        if self.raw:
            result.patches = self.raw
        if self.payload_updates:
            result.payload_updates = self.payload_updates
        if self.ignored:
            result.add_effects(notices=tuple(self.ignored))
            # Like an answer that does not parse: the hook ran (status ok), and its error text
            # says what was dropped, in every view that shows a hook's error.
            result.error = "; ".join(notice.message for notice in self.ignored)
        return result


def _context_fields(event: Event, merged: dict[str, Any]) -> dict[str, Any]:
    """The canonical payload fields a merged context changes."""
    updates: dict[str, Any] = {}
    if event is Event.PostCompact:
        if isinstance(merged.get("summaryText"), str):
            updates["compact_summary"] = merged["summaryText"]
        return updates
    if isinstance(merged.get("messages"), list):
        updates["messages"] = merged["messages"]
    if event is Event.PreCompact and isinstance(merged.get("customInstructions"), str):
        updates["custom_instructions"] = merged["customInstructions"]
    return updates


def to_result(
    out: UnifiedOutput, binding: HookBinding, inp: HookInput, envelope: dict[str, Any]
) -> HookResult:
    """What one hook's answer does, given the input it saw."""
    if binding.event in LIFECYCLE_EVENTS:
        if out.continue_ and out.decision is not None:
            return _observes(binding, "decision", f'"decision": {_shown(binding, out.decision)}')
        if out.blocks:
            return blocked(binding, out.stop_reason or out.reason or "", '"continue": false')
        return HookResult()
    if out.blocks:
        result = blocked(
            binding, out.stop_reason or out.reason or f"Hook {binding.name} blocked execution."
        )
        # the word the views say it in: each blocks alike; exit 2 has none (`blocked`)
        result.own_word = "block" if out.decision == "block" else "continue: false"
        return result
    decoder = _Decoder(binding, inp, envelope)
    if out.decision is not None:
        decoder.ignore_decision(out.decision)
    for scope, value in out.patch.items():
        decoder.apply(scope, value)
    decoder.notes([note for note in (out.system_message, out.additional_context) if note])
    if out.suppress_output:
        decoder.suppress()
    return decoder.finish()
