"""One hook's answer (`HookResult`) and all answers merged (`Verdict`).

Merge rules (ARCHITECTURE.md, Claude Code spec §7, PicoClaw spec §4):

* decisions rank deny = block > defer > ask > allow; the highest wins and the reasons of every
  hook that gave the winning decision are kept, in completion order;
* `updated_input` comes from the last hook to finish whose own decision was allow, ask or none
  (a denying hook's rewrite is never applied);
* `additional_context` and `system_message` strings are all kept, once each, in order;
* any `continue: false` stops the agent; the first `stop_reason` is kept;
* `abort` "hard" beats "turn"; the first `respond` (synthetic tool result) wins;
* patches merge per key, later hooks overriding; typed effects merge as `Effects.merge` says.

A chain is the same merge applied one hook at a time, the engine stopping at the first terminal
answer; a parallel stage applies it to every result in completion order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from hookwright.core.effects import NO_EFFECTS, Effects
from hookwright.core.events import Event
from hookwright.core.results_json import JsonValue, verdict_to_json
from hookwright.core.tool_results import tool_result_json, tool_result_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, Literal, TypeAlias

    from hookwright.core.effect_parts import ToolResult
    from hookwright.core.spec import HookSpec


class Decision(StrEnum):
    allow = "allow"
    deny = "deny"
    ask = "ask"
    defer = "defer"
    block = "block"


class Status(StrEnum):
    ok = "ok"
    error = "error"
    timeout = "timeout"
    skipped = "skipped"


Abort: TypeAlias = "Literal['turn', 'hard']"

DECISION_RANK: dict[Decision, int] = {
    Decision.allow: 1,
    Decision.ask: 2,
    Decision.defer: 3,
    Decision.deny: 4,
    Decision.block: 4,
}
TERMINAL_DECISIONS = frozenset({Decision.deny, Decision.block, Decision.defer})
#: Read by `Verdict.blocked` on every dispatch: a member looked up on its enum class goes
#: through the enum type's attribute hook, several times the cost of a global.
_BLOCKING: Final = (Decision.deny, Decision.block)
REWRITE_DECISIONS = frozenset({None, Decision.allow, Decision.ask})


@dataclass(slots=True)
class HookResult:
    """What one hook answered, already decoded from its dialect."""

    decision: Decision | None = None
    reason: str | None = None
    continue_: bool = True
    stop_reason: str | None = None
    system_message: str | None = None
    additional_context: str | None = None
    #: Replaces the event's input field (tool_input), or for model events the request fields.
    updated_input: dict[str, Any] | None = None
    #: Replaces the event's output field (`tool_response`, the model `response`): the value
    #: the next hook of the chain sees there. What the model is shown of a replaced tool
    #: output is `effects.tool_result` when the codec typed it, else `tool_result_of` of this.
    updated_output: JsonValue = None
    #: Other payload fields replaced, e.g. `tool_name` when a chain hook renames the call.
    payload_updates: dict[str, Any] | None = None
    #: OpenHarness-style scoped patches: scope -> patch, applied by the host.
    patches: Mapping[str, JsonValue] | None = None
    #: Dialect name -> private state for the next hook of the chain (`HookInput.chain_state`);
    #: never an effect for the host and never on any wire.
    chain_state: Mapping[str, JsonValue] | None = None
    #: A synthetic tool result, typed by the codec that decoded the hook's answer (the native
    #: codec and `respond()` read a Python hook's value with `tool_result_of`): the tool is
    #: not executed.
    respond: ToolResult | None = None
    abort: Abort | None = None
    status: Status = Status.ok
    error: str | None = None
    exit_code: int | None = None
    stderr: str | None = None
    duration_ms: float = 0.0
    hook: HookSpec | None = None
    #: The decision in the hook's own word, as its answer spelled it, where its system spells
    #: one decision two ways (Gemini CLI `decision: "block"` or `"deny"`, Claude Code's and
    #: Codex's legacy PreToolUse `decision: "block"` beside `permissionDecision: "deny"`,
    #: OpenHarness `decision: "block"` or `continue: false`); set by the codec with the
    #: decision. None: the system's one word for it at the event
    #: (`hookwright.core.systems.effect_words` says both).
    own_word: str | None = None
    #: Typed effects beyond the fields above (tool message, permission updates, notices, ...).
    effects: Effects | None = None

    def add_effects(self, **changes: Any) -> None:
        """Merge typed effects (`Effects` field names) into this result's."""
        self.effects = (self.effects or NO_EFFECTS).merge(Effects(**changes))

    @property
    def terminal(self) -> bool:
        return (
            self.decision in TERMINAL_DECISIONS
            or self.respond is not None
            or self.abort is not None
            or not self.continue_
        )

    @property
    def has_effect(self) -> bool:
        return (
            self.decision is not None
            or self.terminal
            or self.additional_context is not None
            or self.system_message is not None
            or self.updated_input is not None
            or self.updated_output is not None
            or bool(self.payload_updates)
            or bool(self.patches)
            or bool(self.effects)
        )


#: One executed hook as the engine records it: the spec, its decoded result (None when an
#: in-process hook had no opinion) and its duration in nanoseconds.
HookRun = tuple["HookSpec", HookResult | None, int]


class _EmptyMapping(Mapping[str, "Any"]):
    """The shared, immutable (and so hashable) empty default of a verdict's mappings."""

    __slots__ = ()

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "{}"


_EMPTY: Mapping[str, Any] = _EmptyMapping()


@dataclass(slots=True)
class Verdict:
    """Every answer to one dispatch, merged. The host applies it at one place per checkpoint.

    Verdicts are read-only for hosts: collections start as shared empty values and are
    replaced (never mutated in place) when a hook contributes, which keeps a dispatch cheap.
    """

    event: Event
    decision: Decision | None = None
    reason: str | None = None
    continue_: bool = True
    stop_reason: str | None = None
    updated_input: dict[str, Any] | None = None
    updated_output: JsonValue = None
    payload_updates: Mapping[str, Any] = _EMPTY
    patches: Mapping[str, JsonValue] = _EMPTY
    chain_state: Mapping[str, JsonValue] = _EMPTY
    respond: ToolResult | None = None
    abort: Abort | None = None
    #: The reason of the hook whose abort won.
    abort_reason: str | None = None
    additional_context: Sequence[str] = ()
    system_messages: Sequence[str] = ()
    effects: Effects = NO_EFFECTS
    runs: list[HookRun] = field(default_factory=list)
    #: True once a hook rewrote the input, output or payload (the engine then re-derives the
    #: input the next stage sees).
    rewritten: bool = False
    #: Set by `cut_off` only: left out of `__init__`, so a verdict pays nothing for it.
    _cut: tuple[HookSpec, ...] = field(init=False, repr=False, compare=False)
    _reasons: tuple[str, ...] = ()
    _results: list[HookResult] | None = None

    @property
    def terminal(self) -> bool:
        return (
            self.decision in TERMINAL_DECISIONS
            or self.respond is not None
            or self.abort is not None
            or not self.continue_
        )

    @property
    def cut(self) -> tuple[HookSpec, ...]:
        """The selected hooks this verdict kept from running (the stages after the one that
        made it terminal), in run order; empty unless the dispatch ended so."""
        try:
            return self._cut
        except AttributeError:
            return ()

    def cut_off(self, hooks: tuple[HookSpec, ...]) -> None:
        """Record the selected `hooks` the verdict, now terminal, kept from running."""
        self._cut = hooks

    @property
    def blocked(self) -> bool:
        return self.decision in _BLOCKING

    @property
    def results(self) -> list[HookResult]:
        """One result per executed hook, in the order they were merged."""
        if self._results is None or len(self._results) != len(self.runs):
            materialized: list[HookResult] = []
            for spec, result, duration_ns in self.runs:
                if result is None:
                    result = HookResult(hook=spec, duration_ms=duration_ns / 1e6)
                materialized.append(result)
            self._results = materialized
        return self._results

    def absorb(self, result: HookResult) -> None:
        """Merge one result, in completion (parallel) or chain order."""
        decision = result.decision
        if decision is not None:
            current = self.decision
            if current is None or DECISION_RANK[decision] > DECISION_RANK[current]:
                self.decision = decision
                self._reasons = (result.reason,) if result.reason else ()
            elif (
                DECISION_RANK[decision] == DECISION_RANK[current]
                and result.reason
                and result.reason not in self._reasons
            ):
                self._reasons = (*self._reasons, result.reason)
            self.reason = "\n".join(self._reasons) if self._reasons else None
        if result.updated_input is not None and decision in REWRITE_DECISIONS:
            self.updated_input = result.updated_input
            self.rewritten = True
        if result.updated_output is not None:
            self.updated_output = result.updated_output
            self.rewritten = True
        if result.payload_updates:
            self.payload_updates = {**self.payload_updates, **result.payload_updates}
            self.rewritten = True
        if result.patches:
            self.patches = {**self.patches, **result.patches}
        if result.chain_state:
            self.chain_state = {**self.chain_state, **result.chain_state}
            self.rewritten = True
        context = result.additional_context
        if context and context not in self.additional_context:
            self.additional_context = [*self.additional_context, context]
        message = result.system_message
        if message and message not in self.system_messages:
            self.system_messages = [*self.system_messages, message]
        if not result.continue_:
            self.continue_ = False
            if self.stop_reason is None and result.stop_reason:
                self.stop_reason = result.stop_reason
        if result.abort == "hard" or (result.abort == "turn" and self.abort is None):
            if self.abort != result.abort or self.abort_reason is None:
                self.abort_reason = result.reason
            self.abort = result.abort
        if result.respond is not None and self.respond is None:
            # Typed where it was decoded; a HookResult built by hand with a raw value is read
            # here, so a host never sees anything but a ToolResult.
            self.respond = tool_result_of(result.respond)
        if result.effects:
            self.effects = self.effects.merge(result.effects)

    def to_json(self) -> dict[str, Any]:
        """The verdict in the shape `hookwright hooks test` prints."""
        return verdict_to_json(
            self.event.value,
            decision=self.decision.value if self.decision else None,
            reason=self.reason,
            continue_=self.continue_,
            stop_reason=self.stop_reason,
            updated_input=self.updated_input,
            updated_output=self.updated_output,
            respond=tool_result_json(self.respond) if self.respond is not None else None,
            additional_context=self.additional_context,
            system_messages=self.system_messages,
            abort=self.abort,
            hooks=[
                {
                    "name": r.hook.name if r.hook else None,
                    "source": r.hook.source if r.hook else None,
                    "dialect": r.hook.dialect if r.hook else None,
                    "status": r.status.value,
                    "decision": r.decision.value if r.decision else None,
                    "exit_code": r.exit_code,
                    "error": r.error,
                    "duration_ms": round(r.duration_ms, 3),
                }
                for r in self.results
            ],
        )


#: Named once (an enum member looked up on its class costs some ten times a global).
_OK = Status.ok


def effect_of(result: HookResult) -> str:
    """A one-word summary of what a hook did (`deny`, `rewrite input`, `context`, ...): the
    first of these that holds, each checked only when the ones before it did not (the audit
    asks it for every record of a hook that answered)."""
    if result.status is not _OK:
        return result.status.value
    if result.decision is not None:
        return result.decision.value
    if result.abort is not None:
        return "hard abort" if result.abort == "hard" else "abort"
    if not result.continue_:
        return "stop"
    if result.respond is not None:
        return "respond"
    if result.updated_input is not None or result.payload_updates:
        return "rewrite input"
    if result.updated_output is not None:
        return "rewrite output"
    if result.patches:
        return "patch"
    if result.additional_context is not None:
        return "context"
    if result.system_message is not None:
        return "message"
    effects = result.effects
    if effects and effects.prompt_injections:
        return "prompt"
    if _ignored(result, "ignored_decision"):
        return "decision ignored"
    if _ignored(result, "ignored_patch"):
        return "patch dropped"
    return "note"


def _ignored(result: HookResult, kind: str) -> bool:
    """A part of the hook's answer was not applied (`ignored_patch`: an OpenHarness patch
    without its capability; `ignored_decision`: a decision OpenHarness does not know)."""
    notices = result.effects.notices if result.effects else ()
    return any(notice.kind == kind for notice in notices)


#: Checkpoints that gate what happens next: when hookwright itself cannot dispatch them, they
#: deny (fail closed) instead of letting the action through.
GATE_EVENTS = frozenset(
    {
        Event.PreToolUse,
        Event.PermissionRequest,
        Event.UserPromptSubmit,
        Event.PreModelCall,
        Event.PreModelSwitch,
        Event.PreSkillShellCommand,
    }
)


def failed_dispatch(event: Event, reason: str) -> Verdict:
    """The verdict of a dispatch that could not happen: a denial with `reason` on a gate,
    no effect elsewhere."""
    verdict = Verdict(event)
    if event in GATE_EVENTS:
        verdict.absorb(HookResult(decision=Decision.deny, reason=reason))
    return verdict


# Result helpers for Python hooks.


def allow(reason: str | None = None) -> HookResult:
    return HookResult(decision=Decision.allow, reason=reason)


def deny(reason: str) -> HookResult:
    return HookResult(decision=Decision.deny, reason=reason)


def ask(reason: str | None = None) -> HookResult:
    return HookResult(decision=Decision.ask, reason=reason)


def defer(reason: str | None = None) -> HookResult:
    return HookResult(decision=Decision.defer, reason=reason)


def block(reason: str) -> HookResult:
    return HookResult(decision=Decision.block, reason=reason)


def add_context(text: str) -> HookResult:
    return HookResult(additional_context=text)


def rewrite_input(new_input: dict[str, Any], reason: str | None = None) -> HookResult:
    """Replace the whole tool input (or, on model events, the given request fields)."""
    return HookResult(updated_input=new_input, reason=reason)


def rewrite_output(new_output: JsonValue) -> HookResult:
    return HookResult(updated_output=new_output)


def respond(result: ToolResult | JsonValue, reason: str | None = None) -> HookResult:
    """Answer a tool call with `result` without executing the tool: a `ToolResult`, the text
    the model sees, or a value read by `tool_result_of` (a PicoClaw `{for_llm, ...}` record
    once the PicoClaw dialect is loaded; anything else is shown as JSON)."""
    return HookResult(respond=tool_result_of(result), reason=reason)


def stop(reason: str | None = None) -> HookResult:
    """`continue: false`: stop the agent after this checkpoint."""
    return HookResult(continue_=False, stop_reason=reason)


def abort(kind: Abort = "turn", reason: str | None = None) -> HookResult:
    return HookResult(abort=kind, reason=reason)
