"""Differential: over generated hook answers, specs, sessions and tool inputs, the line encoder
writes the very bytes of the same records encoded whole by `json` (the `AuditRecord` path,
taken when a callback is registered): non-ASCII and control characters, lone surrogates, big
integers, floats (NaN and the infinities included), nested values and secrets."""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookwright import HookInput, HookResult
from hookwright.core.effect_parts import Notice
from hookwright.core.effects import Effects
from hookwright.core.events import Event
from hookwright.core.results import Decision, Status, Verdict
from hookwright.core.spec import HookSpec
from hookwright.monitor import audit as audit_module
from hookwright.monitor.audit import AuditLog, AuditRecord

SECRET = 'tok"en\\42'

#: Any code point, lone surrogates and control characters included, and the secret now and then.
texts = st.one_of(
    st.text(st.characters(exclude_categories=()), max_size=40),
    st.text(max_size=10).map(lambda text: f"{text}{SECRET}{text}"),
)
numbers = st.one_of(
    st.integers(),
    st.integers(min_value=-(2**200), max_value=2**200),
    st.floats(allow_nan=True, allow_infinity=True),
)
#: Keys hold the secret now and then: both paths redact it in keys as in values. No plain key
#: holds a `*`, so none is the same as a redacted one.
keys = st.one_of(
    st.text(st.characters(exclude_categories=(), exclude_characters="*"), max_size=10),
    st.text(max_size=4).map(lambda text: f"{text}{SECRET}"),
)
atoms = st.one_of(st.none(), st.booleans(), numbers, texts)
values = st.recursive(
    atoms,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(keys, inner, max_size=4),
    ),
    max_leaves=12,
)
maybe_texts = st.none() | texts
notices = st.builds(
    Notice, kind=st.just("hook_failed"), hook=texts, event=texts, message=texts, fix=maybe_texts
)
specs = st.builds(
    HookSpec,
    name=texts,
    event=st.just(Event.PreToolUse),
    handler=st.just(lambda inp: None),
    source=texts,
    dialect=texts,
    origin=maybe_texts,
    capabilities=st.none() | st.lists(texts, max_size=3).map(tuple),
)
results = st.builds(
    HookResult,
    decision=st.none() | st.sampled_from(Decision),
    reason=maybe_texts,
    continue_=st.booleans(),
    additional_context=st.none() | texts | st.text(min_size=2001, max_size=2100),
    patches=st.none() | st.dictionaries(keys, values, max_size=3),
    status=st.sampled_from(Status),
    error=maybe_texts,
    exit_code=st.none() | st.integers() | st.integers(min_value=2**64, max_value=2**300),
    stderr=maybe_texts,
    duration_ms=st.floats(allow_nan=True, allow_infinity=True) | st.integers(),
    effects=st.none() | st.lists(notices, max_size=2).map(lambda n: Effects(notices=tuple(n))),
)
#: A few hooks that come back from dispatch to dispatch, as a session's do.
SPECS = [
    HookSpec(name=f"h{index}", event=Event.PreToolUse, handler=lambda inp: None, origin=origin)
    for index, origin in enumerate(["hooks.yaml:hooks[0]", None, f"x{SECRET}"])
]
runs = st.lists(
    st.tuples(specs, st.none() | results, st.integers(min_value=0, max_value=10**12)),
    min_size=1,
    max_size=4,
)
tool_inputs = st.dictionaries(keys, values, max_size=4)


def written(path: Path, callback: bool, dispatches: list[tuple[Any, ...]]) -> bytes:
    # Never rotated: the records' clock is generated, the file's day is today's.
    audit = AuditLog(path, max_bytes=0, max_age=0, daily=False)
    audit.add_secret(SECRET)
    audit.describe(project="/p/é", host="test host", model="m\u2028")
    if callback:
        audit.add_callback(lambda record: None)
    for verdict, session_id, inp in dispatches:
        audit.submit(verdict, session_id, inp)
    audit.close()
    assert audit.dropped == 0
    return path.read_bytes()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(runs, maybe_texts, maybe_texts, st.none() | tool_inputs, st.none() | texts),
        min_size=1,
        max_size=3,
    ),
    st.floats(min_value=0, max_value=4e9),
)
def test_lines_are_the_bytes_json_writes_for_the_records(
    dispatches: list[tuple[Any, ...]], now: float
) -> None:
    submitted = []
    for hook_runs, session_id, turn_id, tool_input, tool_name in dispatches:
        verdict = Verdict(
            event=Event.PreToolUse,
            runs=[(spec, _for(spec, result), ns) for spec, result, ns in hook_runs],
        )
        payload = {"tool_name": tool_name, "tool_use_id": turn_id}
        if tool_input is not None:
            payload["tool_input"] = tool_input
        inp = HookInput("PreToolUse", session_id=session_id, turn_id=turn_id, payload=payload)
        submitted.append((verdict, session_id, inp))
    clock = SimpleNamespace(time=lambda: now, monotonic=time.monotonic)
    with tempfile.TemporaryDirectory() as tmp, mock.patch.object(audit_module, "time", clock):
        lines = written(Path(tmp) / "lines.jsonl", False, submitted)
        records = written(Path(tmp) / "records.jsonl", True, submitted)
    assert lines == records
    assert lines.count(b"\n") == sum(len(hook_runs) for hook_runs, *_ in dispatches)


def _for(spec: HookSpec, result: HookResult | None) -> HookResult | None:
    """The result as the engine hands it over: naming the hook that answered it."""
    if result is not None:
        result.hook = spec
    return result


def test_the_records_path_is_whole_record_json() -> None:
    """The oracle above is `json` encoding each record's dict whole (nothing hand-built)."""
    record = AuditRecord(
        ts=0.0, event="Stop", hook="h", source="s", dialect="d", status="ok", decision=None,
        duration_ms=float("nan"), exit_code=2**70, reason="é\x01", error=None, stderr_tail=None,
        session_id=None, origin=None,
    )  # fmt: skip
    body = audit_module._body(record)
    assert body.startswith(b'{"ts": "1970-01-01T00:00:00.000000Z", "event": "Stop"')
    assert b'"duration_ms": NaN, "exit_code": 1180591620717411303424, ' in body
    assert '"reason": "é\\u0001"'.encode() in body


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            runs,
            maybe_texts,
            st.sampled_from([None, "t-1", "t-2"]),
            st.sampled_from([Event.UserPromptSubmit, Event.Stop, Event.SessionStart]),
        ),
        min_size=1,
        max_size=5,
    ),
    st.floats(min_value=0, max_value=4e9),
)
def test_lines_of_dispatches_without_a_tool_call_are_the_bytes_json_writes(
    dispatches: list[tuple[Any, ...]], now: float
) -> None:
    """Events without a tool call share their call fields per turn: turns changing back and
    forth, and sessions, still give the records' very bytes."""
    submitted = []
    for hook_runs, session_id, turn_id, event in dispatches:
        verdict = Verdict(
            event=event, runs=[(spec, _for(spec, result), ns) for spec, result, ns in hook_runs]
        )
        inp = HookInput(event.value, session_id=session_id, turn_id=turn_id, payload={})
        submitted.append((verdict, session_id, inp))
    clock = SimpleNamespace(time=lambda: now, monotonic=time.monotonic)
    with tempfile.TemporaryDirectory() as tmp, mock.patch.object(audit_module, "time", clock):
        lines = written(Path(tmp) / "lines.jsonl", False, submitted)
        records = written(Path(tmp) / "records.jsonl", True, submitted)
    assert lines == records
    assert b'"tool_name": null' in lines


#: Answers of effects alone (a context, a message, a rewrite, a stop): the daemon's usual
#: record, which the line encoder writes from a quiet run's pieces and its remembered fields
#: after the session's. The same context comes back often, as from one hook prompt after
#: prompt; durations repeat, and some are ints, zeros of both signs, NaN or infinite.
effect_answers = st.builds(
    HookResult,
    additional_context=st.none() | st.sampled_from(["", "HOUSE-RULES", f"a {SECRET}"]) | texts,
    system_message=st.none() | st.just("note"),
    continue_=st.booleans(),
    updated_input=st.none() | st.just({"command": "ls"}),
    duration_ms=st.sampled_from([0.017, 0.0, -0.0, 1, 1.0, 2.5e-4])
    | st.floats(allow_nan=True, allow_infinity=True),
)
#: A run's nanoseconds: quick hooks, a half microsecond exactly (where the float's own error
#: decides the rounding), and long runs.
run_ns = st.one_of(
    st.integers(0, 10**6),
    st.integers(0, 10**9).map(lambda ns: ns - ns % 1000 + 500),
    st.integers(0, 2 * 10**15),
)
answer_runs = st.lists(
    st.tuples(st.sampled_from(SPECS), st.none() | effect_answers, run_ns, st.booleans()),
    min_size=1,
    max_size=3,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            answer_runs,
            st.sampled_from([None, "s-1", "s-2"]),
            st.sampled_from([None, "t-1"]),
            st.none() | st.sampled_from([{}, {"command": f"echo {SECRET}"}]),
        ),
        min_size=1,
        max_size=6,
    ),
    st.floats(min_value=0, max_value=4e9),
    st.sampled_from([0.0, 1e-6, 0.37, 1.0]),
)
def test_answers_of_effects_alone_are_the_bytes_json_writes(
    dispatches: list[tuple[Any, ...]], now: float, step: float
) -> None:
    """Some answers are timed as the engine times them (`duration_ms` is the run's
    nanoseconds over 1e6), which the line encoder rounds from the nanoseconds; the clock
    moves by `step` per dispatch, within a second and across seconds."""
    submitted = []
    for hook_runs, session_id, turn_id, tool_input in dispatches:
        event = Event.UserPromptSubmit if tool_input is None else Event.PreToolUse
        runs = [
            (spec, _for(spec, _copy(result, ns if engine_timed else None)), ns)
            for spec, result, ns, engine_timed in hook_runs
        ]
        payload = {} if tool_input is None else {"tool_name": "Bash", "tool_input": tool_input}
        inp = HookInput(event.value, session_id=session_id, turn_id=turn_id, payload=payload)
        submitted.append((Verdict(event=event, runs=runs), session_id, inp))
    with tempfile.TemporaryDirectory() as tmp:
        with mock.patch.object(audit_module, "time", _ticking(now, step)):
            lines = written(Path(tmp) / "lines.jsonl", False, submitted)
        with mock.patch.object(audit_module, "time", _ticking(now, step)):
            records = written(Path(tmp) / "records.jsonl", True, submitted)
    assert lines == records
    assert SECRET.encode() not in lines


def _ticking(now: float, step: float) -> SimpleNamespace:
    """A clock at `now` that moves by `step` each time it is read."""
    reads = iter(range(10**9))
    return SimpleNamespace(time=lambda: now + step * next(reads), monotonic=time.monotonic)


def _copy(result: HookResult | None, ns: int | None = None) -> HookResult | None:
    """A result of its own per run (`_for` names the hook on it), timed as the engine times
    it (`ns / 1e6`) when `ns` is given."""
    if result is None:
        return None
    return replace(result) if ns is None else replace(result, duration_ms=ns / 1e6)


def test_a_secret_added_after_a_context_was_written_is_redacted_from_then_on(
    tmp_path: Path,
) -> None:
    """The fields after the session's are remembered from one record to the next: a secret
    the host adds in between is still redacted in the next record's context."""
    spec = SPECS[0]
    path = tmp_path / "audit.jsonl"
    audit = AuditLog(path, max_bytes=0, max_age=0, daily=False)
    audit.write_on_close()
    for secret in (None, "abc123", None):
        if secret is not None:
            audit.add_secret(secret)
        result = HookResult(additional_context="key abc123", hook=spec)
        verdict = Verdict(event=Event.UserPromptSubmit, runs=[(spec, result, 1000)])
        audit.submit(verdict, "s-1", HookInput("UserPromptSubmit", session_id="s-1"))
        audit.flush()
    audit.close()
    contexts = [json.loads(line)["context"] for line in path.read_bytes().splitlines()]
    assert contexts == ["key abc123", "key ***", "key ***"]
