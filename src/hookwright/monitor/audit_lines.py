"""Audit records as JSON lines, assembled from pieces encoded once.

The records of one dispatch share their time, event, session, turn and tool call, and a hook's
name, source, dialect, origin and capabilities are the same in every record it gets: those
pieces are encoded once (per dispatch, per hook) and each record is a join of them. A hook
that answered nothing (the common case in-process) adds only its duration. Each line is
built once, without its closing brace (`audit_chain` closes it with the hash chain), and is
exactly what `json.dumps` writes for the record's fields, in the record's field order.

Values are copied before they are encoded: `snapshot` runs on the dispatch thread, so a host
or a hook changing a tool input later does not change a record still waiting to be written;
`clean` (on the writer thread) caps long strings, redacts secrets and turns a structure that
contains itself, or is nested deeper than `MAX_DEPTH`, into a placeholder string.
"""

from __future__ import annotations

import json
import json.encoder
from collections.abc import Callable
from json.encoder import encode_basestring

from hookwright.core.audit_record import AuditContext, iso_utc
from hookwright.core.effects import failure_fix
from hookwright.core.events import INPUT_FIELD, Event
from hookwright.core.results import Decision, HookResult, HookRun, Status, Verdict, effect_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    from hookwright.core.spec import HookSpec

STDERR_TAIL = 2000
#: Longest text kept for a hook's added context, and for each string of a recorded tool input.
TEXT_CAP = 2000
#: How deep a recorded value may nest; deeper parts are written as `TOO_DEEP`.
MAX_DEPTH = 64
CIRCULAR = "[circular reference]"
TOO_DEEP = "[nested too deep]"

ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)
#: The same encoding without the circular-reference bookkeeping, for snapshots (which hold
#: no cycle) on the fast path; it returns the text in chunks.
_make_encoder = getattr(json.encoder, "c_make_encoder", None)
_FAST_ENCODE: Callable[[Any, int], list[str]] | None = (
    _make_encoder(None, str, encode_basestring, None, ": ", ", ", False, False, True)
    if _make_encoder is not None
    else None
)

#: (tool_name, tool_use_id, tool_input, input after this dispatch's rewrite): what the records
#: of a tool event's dispatch say about the call, copied when the dispatch returned.
Call: TypeAlias = "tuple[Any, Any, dict[str, Any], dict[str, Any] | None]"
Redact = Callable[[str | None], str | None]

_ATOMS = frozenset({str, int, float, bool, type(None)})


def snapshot(value: dict[str, Any]) -> dict[str, Any]:
    """A copy of a tool input that later changes to `value` do not reach (cheap when flat)."""
    for key, item in value.items():
        if type(item) not in _ATOMS or type(key) is not str:
            copied: dict[str, Any] = _copy(value, set(), 0)
            return copied
    return value.copy()


def _copy(value: Any, active: set[int], depth: int) -> Any:
    if not isinstance(value, dict | list | tuple):
        return value
    if id(value) in active:
        return CIRCULAR
    if depth >= MAX_DEPTH:
        return TOO_DEEP
    active.add(id(value))
    try:
        if isinstance(value, dict):
            return {key: _copy(item, active, depth + 1) for key, item in value.items()}
        return [_copy(item, active, depth + 1) for item in value]
    finally:
        active.discard(id(value))


def cap_text(text: str | None) -> str | None:
    if text is None or len(text) <= TEXT_CAP:
        return text
    return text[:TEXT_CAP] + f"…[{len(text) - TEXT_CAP} more characters]"


def clean(value: Any, redact: Redact, *, cap: bool) -> Any:
    """`value` ready for JSON: string keys, secrets redacted (in keys too: a tool input may
    name a file or a header after a secret), strings capped when `cap`, and a
    placeholder for a part that contains itself or nests past `MAX_DEPTH`."""
    return _clean(value, redact, cap, set(), 0)


def _clean(value: Any, redact: Redact, cap: bool, active: set[int], depth: int) -> Any:
    if isinstance(value, str):
        return redact(cap_text(value) if cap else value)
    if not isinstance(value, dict | list | tuple):
        return value
    if id(value) in active:
        return CIRCULAR
    if depth >= MAX_DEPTH:
        return TOO_DEEP
    active.add(id(value))
    try:
        if isinstance(value, dict):
            return {
                redact(str(key)): _clean(item, redact, cap, active, depth + 1)
                for key, item in value.items()
            }
        return [_clean(item, redact, cap, active, depth + 1) for item in value]
    finally:
        active.discard(id(value))


def added_text(result: HookResult) -> str | None:
    prompts = result.effects.prompt_injections if result.effects else ()
    texts = [result.additional_context] if result.additional_context else []
    texts += [prompt.content for prompt in prompts]
    return "\n\n".join(texts) if texts else None


def lets_call_through(verdict: Verdict) -> bool:
    """Whether the tool call goes on after this verdict (`continue: false` still runs it)."""
    return not (
        verdict.blocked
        or verdict.decision is Decision.defer
        or verdict.respond is not None
        or verdict.abort is not None
    )


def call_facts(
    verdict: Verdict, turn_id: str | None, call: Call | None
) -> tuple[str | None, str | None, str | None, Any, Any]:
    """(turn_id, tool_name, tool_use_id, tool_input, executed_input) of a dispatch's records,
    the inputs as copied (neither capped nor redacted yet)."""
    if call is None:
        return turn_id, None, None, None, None
    tool_name, use_id, tool_input, updated = call
    executed = None
    if verdict.event in INPUT_FIELD and lets_call_through(verdict):
        executed = tool_input if updated is None else updated
    return (
        turn_id,
        tool_name if isinstance(tool_name, str) else None,
        str(use_id) if use_id is not None else None,
        tool_input,
        executed,
    )


def _text(value: Any) -> str:
    """One JSON value as `ENCODER` writes it; None, strings and finite numbers (every field
    of a hook's answer, as a rule) without the encoder's set-up."""
    if value is None:
        return "null"
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if kind is int or (kind is float and value - value == 0.0):
        # `float.__repr__` is what the encoder writes for a finite float; NaN and the
        # infinities (for which `value - value` is NaN) take the encoder's own spelling.
        return repr(value)
    return ENCODER.encode(value)


def about_text(about: AuditContext) -> str:
    """The context's fields, the last of a hook run's line (no separator after them)."""
    return ENCODER.encode(about.to_dict())[1:-1]


#: The fields of a hook that answered nothing, around its duration.
_QUIET_A = '"status": "ok", "decision": null, "duration_ms": '
_QUIET_B = ', "exit_code": null, "reason": null, "error": null, "stderr_tail": null, '
_UNKNOWN_SPEC = (
    '"hook": "?", "source": "?", "dialect": "?", ',
    '"origin": null, "capabilities": null, ',
)
_CACHE_LIMIT = 4096
#: Named once: an enum member looked up on its class goes through the enum type's attribute
#: hook, some ten times a global's cost, and the writer asks it of every answer.
_OK = Status.ok
_DURATIONS_LIMIT = 16384
#: Durations (ns) below which `ns / 1e6`'s error cannot move it across a half microsecond
#: (`LineEncoder._us`): some 11 days.
_EXACT_NS = 10**15
#: Three digits of a time's microseconds, by their value (a line's time in two lookups, where
#: formatting `%06d` costs several times more).
_DIGITS = tuple(b"%03d" % value for value in range(1000))


def utf8(text: str) -> bytes:
    """The file's encoding: UTF-8, a lone surrogate written as "?"."""
    return text.encode("utf-8", "replace")


def _spec_parts(spec: HookSpec) -> tuple[str, str]:
    """A hook's fields before its result (name, source, dialect) and after the session."""
    return (
        f'"hook": {_text(spec.name)}, "source": {_text(spec.source)}, '
        f'"dialect": {_text(spec.dialect)}, ',
        f'"origin": {_text(spec.origin)}, "capabilities": {_text(spec.capabilities)}, ',
    )


class LineEncoder:
    """Turns queued dispatches into JSON lines (used by the writer thread only)."""

    def __init__(self, redact: Redact, redact_json: Callable[[str], str]) -> None:
        self._redact = redact
        self._redact_json = redact_json
        #: Per hook, the pieces of a quiet run's line before and after its duration (plain
        #: dicts: their lookups are the fastest the interpreter has).
        self._firsts: dict[HookSpec, bytes] = {}
        self._seconds: dict[HookSpec, bytes] = {}
        #: Per hook, its fields before its result and after the session (`_spec_parts`).
        self._specs: dict[HookSpec, tuple[str, str]] = {}
        self._durations: dict[int, bytes] = {}
        #: The same for answers, by their duration in whole microseconds (`_us`).
        self._answer_us: dict[int, bytes] = {}
        #: Per event, its field as bytes (after the end of the time's text).
        self._events: dict[Event, bytes] = {}
        self._session_id: str | None = None
        self._session_text = '"session_id": null, '
        #: The second the last line's time was in, as `[_second, _next_second)`, and the
        #: start of a line up to it (`_new_second`); none yet.
        self._second = 0.0
        self._next_second = 0.0
        self._second_text = b""
        #: The `AuditContext` fields every line ends with (set by the audit).
        self.about = about_text(AuditContext())
        #: The tail of the last turn's dispatches without a tool call (`_turn_text`), and the
        #: last quiet fields with what they were made of (`_quiet_text`).
        self._turn_id: str | None = None
        self._turn_tail = ""
        self._quiet_tail = ""
        self._quiet_about = ""
        self._quiet = b""
        #: The secrets the audit redacts (set by the audit when it is given one): a change
        #: makes the remembered `_said` fields again.
        self.secrets: tuple[str, ...] = ()
        self._said_key: tuple[object, ...] = ()
        self._said_text = b""

    def add(
        self,
        out: list[bytes],
        verdict: Verdict,
        session_id: str | None,
        ts: float,
        turn_id: str | None,
        call: Call | None,
    ) -> int:
        """Append to `out` one line per hook run of `verdict`, each without its closing brace
        (the chain closes it); returns the number of lines."""
        event = self._events.get(verdict.event) or self._event_text(verdict.event)
        whole = self._second
        if not whole <= ts < self._next_second:
            whole = self._new_second(ts)
        micro = round((ts - whole) * 1_000_000)
        if micro > 999_999:
            micro = 999_999
        head = b"".join((self._second_text, _DIGITS[micro // 1000], _DIGITS[micro % 1000], event))
        if session_id != self._session_id:
            self._new_session(session_id)
        tail = self._call_text(verdict, turn_id, call) if call else self._turn_text(turn_id)
        mark = len(out)
        try:
            self._add_runs(out, verdict.runs, head, tail)
        except KeyError:
            del out[mark:]
            self._learn(verdict.runs)
            self._add_runs(out, verdict.runs, head, tail)
        return len(verdict.runs)

    def _new_second(self, ts: float) -> float:
        """A line's start up to its time's microseconds (`iso_utc`), for the second `ts` is
        in, made once a second; returns that second's start. The second is kept as a float
        (whole seconds are exact in one), so the next lines are told in it by two float
        comparisons, and `ts` minus it is what `iso_utc` subtracts."""
        whole = int(ts // 1)
        self._second = float(whole)
        self._next_second = float(whole + 1)
        self._second_text = b'{"ts": "' + iso_utc(whole)[:-8].encode("ascii") + b"."
        return self._second

    def _add_runs(self, out: list[bytes], runs: list[HookRun], head: bytes, tail: str) -> None:
        firsts = self._firsts
        seconds = self._seconds
        durations = self._durations
        join = b"".join
        quiet = b""  # made at the first quiet run: a dispatch of answers needs none
        for spec, result, duration_ns in runs:
            if result is None:
                duration = durations.get(duration_ns) or self._duration(duration_ns)
                quiet = quiet or self._quiet_text(tail)
                out.append(join((head, firsts[spec], duration, seconds[spec], quiet)))
            else:
                out.append(self._answered(head, result, tail, duration_ns))

    def _learn(self, runs: list[HookRun]) -> None:
        """Encode the pieces of these hooks that are not known yet."""
        for cache in (self._firsts, self._seconds):
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
        for spec, _result, _duration in runs:
            if spec not in self._firsts:
                self._firsts[spec] = utf8(self._parts(spec)[0] + _QUIET_A)
            if spec not in self._seconds:
                self._seconds[spec] = utf8(_QUIET_B + self._session_text + self._parts(spec)[1])

    def _parts(self, spec: HookSpec) -> tuple[str, str]:
        """`_spec_parts(spec)`, encoded once per hook."""
        parts = self._specs.get(spec)
        if parts is None:
            if len(self._specs) >= _CACHE_LIMIT:
                self._specs.clear()
            parts = self._specs[spec] = _spec_parts(spec)
        return parts

    def _duration(self, duration_ns: int) -> bytes:
        """`duration_ms` as `round(ns / 1e6, 3)` writes it; remembered, since quick hooks
        take the same few thousand nanosecond counts again and again."""
        if len(self._durations) >= _DURATIONS_LIMIT:
            self._durations.clear()
        text = self._durations[duration_ns] = utf8(repr(round(duration_ns / 1e6, 3)))
        return text

    def _event_text(self, event: Event) -> bytes:
        """The end of the time's text, then the event's field."""
        text = self._events[event] = utf8(f'Z", "event": {_text(event.value)}, ')
        return text

    def _new_session(self, session_id: str | None) -> None:
        self._session_id = session_id
        self._session_text = f'"session_id": {_text(session_id)}, '
        self._seconds = {}

    def _answered(self, head: bytes, result: HookResult, tail: str, duration_ns: int) -> bytes:
        """The line of a hook that answered something. An answer of effects alone (context, a
        message: the daemon's usual record) is a quiet run's pieces around its duration (told
        from the run's `duration_ns` when the result's is that, `_us`), then its `_said`
        fields; any other is written field by field (`_answer_text`)."""
        hook = result.hook
        if (
            hook is not None
            and result.status is _OK
            and result.decision is None
            and result.exit_code is None
            and result.reason is None
            and result.error is None
            and not result.stderr
            and not result.patches
            and result.own_word is None
            and not result.effects
        ):
            first = self._firsts.get(hook)
            second = self._seconds.get(hook)
            if first is None or second is None:
                self._learn([(hook, result, 0)])
                first, second = self._firsts[hook], self._seconds[hook]
            ms = result.duration_ms
            if (
                type(ms) is float
                and ms > 0.0
                and ms == duration_ns / 1e6
                and duration_ns % 1000 != 500
                and duration_ns < _EXACT_NS
            ):
                micros = (duration_ns + 500) // 1000
                duration = self._answer_us.get(micros) or self._us(micros)
            else:
                duration = utf8(_text(round(ms, 3)))
            return b"".join((head, first, duration, second, self._said(result, tail)))
        return head + self._answer_text(result, tail)

    def _us(self, micros: int) -> bytes:
        """`round(duration_ns / 1e6, 3)` as text, for a duration of `micros` microseconds to
        the nearest, remembered by it (answers take a few thousand distinct values to the
        microsecond, where their exact durations hardly repeat). The same value: away from a
        half microsecond (`duration_ns % 1000 == 500`), rounding the float `ns / 1e6` to three
        places rounds to the nearest microsecond whatever that division's error (below
        `_EXACT_NS`), and `micros / 1000` is the float nearest that many thousandths, as
        `round` returns."""
        if len(self._answer_us) >= _DURATIONS_LIMIT:
            self._answer_us.clear()
        text = self._answer_us[micros] = utf8(repr(micros / 1000))
        return text

    def _said(self, result: HookResult, tail: str) -> bytes:
        """The fields after the session's of an answer of effects alone: its patch (none), its
        effect, the dispatch's `tail`, its context and the record's context fields. Made
        again only when one of them (or the secrets) changed: a hook adds the same context
        to every prompt. The key is read before the text is redacted, so a secret added
        meanwhile makes it again."""
        # Of an answer of effects alone (no decision, patch or notice), `has_effect` holds
        # exactly when its word is not the catch-all `note`.
        effect: str | None = effect_of(result)
        if effect == "note":
            effect = None
        context = result.additional_context or None
        key = (effect, context, tail, self.about, self.secrets)
        if key != self._said_key:
            text = (
                f'"patch": null, "effect": {_text(effect)}, {tail}'
                f'"context": {_text(self._redact(cap_text(context)))}, {self.about}'
            )
            self._said_key, self._said_text = key, utf8(text)
        return self._said_text

    def _answer_text(self, result: HookResult, tail: str) -> bytes:
        """The line of any other answer, after its head."""
        first, second = self._parts(result.hook) if result.hook is not None else _UNKNOWN_SPEC
        answer, effect, context = self._result_text(result)
        fix = failure_fix(result.effects)
        last = f', "fix": {_text(self._redact(fix))}' if fix else ""
        if result.own_word is not None:
            last += f', "own_word": {_text(result.own_word)}'
        return utf8(
            f"{first}{answer}{self._session_text}{second}{effect}{tail}{context}{self.about}{last}"
        )

    def _turn_text(self, turn_id: str | None) -> str:
        """`_call_text` of a dispatch without a tool call, made once per turn."""
        if turn_id != self._turn_id or not self._turn_tail:
            self._turn_id = turn_id
            self._turn_tail = (
                f'"turn_id": {_text(turn_id)}, "tool_name": null, "tool_use_id": null, '
                '"tool_input": null, "executed_input": null, '
            )
        return self._turn_tail

    def _quiet_text(self, tail: str) -> bytes:
        """A quiet run's fields after its hook's, for this dispatch's `tail`: made again only
        when the tail or the context fields changed."""
        if tail != self._quiet_tail or self.about is not self._quiet_about:
            self._quiet_tail, self._quiet_about = tail, self.about
            quiet = f'"patch": null, "effect": null, {tail}"context": null, {self.about}'
            self._quiet = utf8(quiet)
        return self._quiet

    def _call_text(self, verdict: Verdict, turn_id: str | None, call: Call | None) -> str:
        turn, tool_name, use_id, tool_input, executed = call_facts(verdict, turn_id, call)
        input_text = "null" if tool_input is None else self._input_text(tool_input)
        if executed is None:
            executed_text = "null"
        elif executed is tool_input:
            executed_text = input_text
        else:
            executed_text = self._input_text(executed)
        return (
            f'"turn_id": {_text(turn)}, "tool_name": {_text(tool_name)}, '
            f'"tool_use_id": {_text(use_id)}, "tool_input": {input_text}, '
            f'"executed_input": {executed_text}, '
        )

    def _input_text(self, value: dict[str, Any]) -> str:
        """A tool input as JSON with long strings capped and secrets redacted. A text within
        `TEXT_CAP` holds no string to cap, so its secrets are redacted in the encoded text."""
        if not value:
            return "{}"
        text: str | None = None
        if _FAST_ENCODE is not None:
            try:
                text = "".join(_FAST_ENCODE(value, 0))
            except (ValueError, RecursionError):
                text = None
        if text is None or len(text) > TEXT_CAP:
            return ENCODER.encode(clean(value, self._redact, cap=True))
        return self._redact_json(text)

    def _result_text(self, result: HookResult) -> tuple[str, str, str]:
        """The fields of a hook that answered: up to the session, from the patch to the
        effect, and its context (which closes the line). Each value is encoded alone, with
        the separators `json.dumps` writes between the fields of an object."""
        redact = self._redact
        stderr = result.stderr[-STDERR_TAIL:] if result.stderr else None
        acted = result.has_effect or result.status is not _OK
        decision = result.decision.value if result.decision else None
        plain = result.status is _OK and decision is None and result.exit_code is None
        if plain and stderr is None and result.reason is None and result.error is None:
            # A hook that answered only with effects (context, a message): the fields of a
            # quiet run's line around its duration.
            answer = f"{_QUIET_A}{_text(round(result.duration_ms, 3))}{_QUIET_B}"
        else:
            answer = (
                f'"status": {_text(result.status.value)}, "decision": {_text(decision)}, '
                f'"duration_ms": {_text(round(result.duration_ms, 3))}, '
                f'"exit_code": {_text(result.exit_code)}, '
                f'"reason": {_text(redact(result.reason))}, '
                f'"error": {_text(redact(result.error))}, "stderr_tail": {_text(redact(stderr))}, '
            )
        effect = f'"effect": {_text(effect_of(result) if acted else None)}, '
        if result.patches:
            effect = f'"patch": {_text(clean(result.patches, redact, cap=False))}, {effect}'
        else:
            effect = f'"patch": null, {effect}'
        context = f'"context": {_text(redact(cap_text(added_text(result))))}, '
        return answer, effect, context
