"""The run loop: how the hooks one dispatch selected run, and the rules they run by.

The selected hooks come planned in stages (`plan_stages`): consecutive parallel-mode hooks form
one stage, whose hooks all see the same input and merge in completion order; each chain-mode
hook is a stage of one. Stages run in order. After each stage, `next_input` applies the one
stage rule: a terminal verdict (deny, block, defer, respond, abort, continue: false) ends the
dispatch (the selected hooks it kept from running go on `Verdict.cut`, which the audit records
as status ``cut``); otherwise the next stage sees the input as this one rewrote it.

Every hook runs the same step: read the clock, call the handler, turn what it raised into its
result (`failure`: an error, or a timeout past `spec.timeout`; only what `escapes_hook` names
propagates), then `record`: stop the clock, `finish` the result (provenance, duration, the
`on_error` rule, redaction) and merge it into the verdict. `on_error: block` applies in
`finish`, so a handler that *returns* an error or timeout result blocks exactly as one that
raised.

Two loops drive the stages, differing only in how a handler is called:

* `run_inline`, the fast path: every hook is a sync Python callable without a timeout
  (`HookSpec.inline`), called directly on the dispatching thread. A parallel stage of such
  calls completes in call order, so its merge is the awaited loop's.
* `run_awaited`: any handler (a process, an HTTP endpoint, an async function, a timed sync
  function), awaited under its timeout (`_step`); the hooks of a parallel stage run
  concurrently. Its stages hold each hook's `RunContext`, which the engine makes once per
  hook and services (`run_contexts`), not once per run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Coroutine, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace

from hookwright.core.events import (
    INPUT_FIELD,
    MODEL_REQUEST_FIELDS,
    OUTPUT_FIELD,
    Event,
    HookInput,
)
from hookwright.core.outward import make_outward
from hookwright.core.results import Decision, HookResult, Status, Verdict
from hookwright.core.spec import HookCrashed, HookSpec, PythonHandler, escapes_hook
from hookwright.core.systems import ANSWER_WORDS, system_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    from hookwright.core.run_context import RunContext

#: The planned stages of one dispatch, in run order.
Stages = Sequence[Sequence[HookSpec]]
#: The same stages as `run_awaited` runs them: each hook's run context (`RunContext.spec`).
AwaitedStages: TypeAlias = "Sequence[Sequence[RunContext]]"
#: A sync Python hook as the fast path calls it: its spec, its callable, its return decoder.
InlineCall: TypeAlias = (
    "tuple[HookSpec, Callable[[HookInput], Any], Callable[[Any], HookResult | None]]"
)
InlineStages = Sequence[Sequence[InlineCall]]

#: Events whose blocking answer is called "deny" rather than "block".
_DENY_EVENTS = frozenset({Event.PreToolUse, Event.PermissionRequest})
_FAILED = frozenset({Status.error, Status.timeout})
_BLOCKING = frozenset({Decision.deny, Decision.block})
_clock = time.perf_counter_ns


# The rules ------------------------------------------------------------------------------------


def plan_stages(selected: Sequence[HookSpec]) -> list[list[HookSpec]]:
    """The stages `dispatch` runs for these (already ordered) hooks: a stage ends before a
    chain-mode hook and after it, and where the policy tier changes (a tier's terminal answer
    ends the dispatch before a lower tier runs)."""
    stages: list[list[HookSpec]] = []
    for spec in selected:
        if (
            spec.mode == "parallel"
            and stages
            and stages[-1][0].mode == "parallel"
            and stages[-1][0].tier == spec.tier
        ):
            stages[-1].append(spec)
        else:
            stages.append([spec])
    return stages


def next_input(inp: HookInput, verdict: Verdict) -> HookInput | None:
    """After a stage: None when the verdict so far is terminal (the dispatch ends after the
    stage that made it so), else the input the next stage sees."""
    if verdict.terminal:
        return None
    return apply_to_input(inp, verdict) if verdict.rewritten else inp


def apply_to_input(inp: HookInput, verdict: Verdict) -> HookInput:
    """The input the next stage sees: the current one with the verdict's rewrites applied,
    and the dialects' chain state carried along."""
    updates: dict[str, Any] = dict(verdict.payload_updates)
    if verdict.updated_input is not None:
        field_name = INPUT_FIELD.get(inp.event)
        if field_name is not None:
            updates[field_name] = verdict.updated_input
        elif inp.event is Event.PreModelCall:
            for key in MODEL_REQUEST_FIELDS:
                if key in verdict.updated_input:
                    updates[key] = verdict.updated_input[key]
    if verdict.updated_output is not None:
        out_field = OUTPUT_FIELD.get(inp.event)
        if out_field is not None:
            updates[out_field] = verdict.updated_output
    rewritten = inp.with_payload(**updates) if updates else inp
    if verdict.chain_state:
        rewritten = rewritten.with_chain_state(verdict.chain_state)
    return rewritten


def failure(spec: HookSpec, exc: BaseException) -> HookResult:
    """What a hook raised, as its result: a timeout when it is the `TimeoutError` of a hook
    with a timeout, an error otherwise. What `escapes_hook` names (the host's Ctrl-C, the
    dispatch's own cancellation) is raised again."""
    if escapes_hook(exc):
        raise exc
    if isinstance(exc, TimeoutError) and spec.timeout is not None:
        return HookResult(status=Status.timeout, error=f"timed out after {spec.timeout:g}s")
    from hookwright.core.tracebacks import author_traceback, describe_exception  # it failed

    if isinstance(exc, HookCrashed):
        raised = exc.__cause__ or exc
        return HookResult(status=Status.error, error=str(exc), stderr=author_traceback(raised))
    return HookResult(
        status=Status.error, error=describe_exception(exc), stderr=author_traceback(exc)
    )


def finish(
    spec: HookSpec, result: HookResult, duration_ns: int, secrets: AbstractSet[str]
) -> HookResult:
    """Stamp provenance and duration, drop an `own_word` that is not the answer's
    (`_own_word_kept`), apply `on_error`, redact `secrets` and cap the texts (`outward`); a
    result object shared between hooks is copied.

    `on_error: block`: an error or timeout result, raised or returned, blocks (deny on
    PreToolUse and PermissionRequest, block elsewhere)."""
    if result.hook is not None and result.hook is not spec:
        result = replace(result)
    result.hook = spec
    result.duration_ms = duration_ns / 1e6
    if result.own_word is not None and not _own_word_kept(spec, result):
        result.own_word = None
    if spec.on_error == "block" and result.status in _FAILED and result.decision not in _BLOCKING:
        result.decision = Decision.deny if spec.event in _DENY_EVENTS else Decision.block
        result.reason = failed_closed_reason(spec, result)
    make_outward(result, secrets)
    return result


def _own_word_kept(spec: HookSpec, result: HookResult) -> bool:
    """Whether the word a result says its decision in is its answer's: one its system spells
    (not a Python hook's own), on an answer that did not fail (a hook that failed closed
    decided in no word of its own)."""
    return result.status is Status.ok and result.own_word in ANSWER_WORDS.get(spec.dialect, ())


def failed_closed_reason(spec: HookSpec, result: HookResult) -> str:
    """The block reason of a hook that failed closed: the hook (for one a config file
    declares, its system as its users say it and the file and field) and its failure."""
    failed = "timed out" if result.status is Status.timeout else "failed"
    declared = spec.source != "in-process" and spec.origin is not None
    who = f"{spec.name!r} ({system_name(spec.dialect)}, {spec.origin})" if declared else spec.name
    return f"hook {who} {failed}" + (f": {result.error}" if result.error else "")


def _not_reached(specs: Sequence[HookSpec], runs: Sequence[object]) -> tuple[HookSpec, ...]:
    """The hooks of `specs` (every stage's, in run order) a terminal verdict kept from running:
    the stages before it all ran, so those past the first `len(runs)` (a parallel stage's
    runs are in completion order, but all of its hooks ran). Worked out only when a dispatch
    ends early, so a dispatch that runs every hook pays nothing for it."""
    return tuple(specs[len(runs) :])


# The step -------------------------------------------------------------------------------------


def record(
    verdict: Verdict,
    spec: HookSpec,
    result: HookResult | None,
    duration_ns: int,
    secrets: AbstractSet[str],
) -> None:
    """The end of every hook's step: `finish` its result, add its run to `verdict` and merge
    the result in (None, no opinion: only the run is added; a shadow hook's result is kept
    with its run, never merged)."""
    if result is None:
        verdict.runs.append((spec, None, duration_ns))
    else:
        result = finish(spec, result, duration_ns, secrets)
        verdict.runs.append((spec, result, duration_ns))
        if not spec.shadow:
            verdict.absorb(result)


# The loops ------------------------------------------------------------------------------------


def inline_calls(stages: Stages) -> tuple[tuple[InlineCall, ...], ...]:
    """The calls `run_inline` makes for stages of sync Python hooks (`HookSpec.inline`)."""
    return tuple(tuple(_inline_call(spec) for spec in stage) for stage in stages)


def _inline_call(spec: HookSpec) -> InlineCall:
    handler = spec.handler
    assert isinstance(handler, PythonHandler), spec
    return spec, handler.func, handler.decode


def run_inline(inp: HookInput, stages: InlineStages, secrets: AbstractSet[str]) -> Verdict:
    """The fast path: every hook is a sync Python callable without a timeout; run the stages
    on this thread. One clock read per hook: each hook's run ends where the next one's
    starts."""
    verdict = Verdict(inp.event)
    runs = verdict.runs
    current = inp
    for stage in stages:
        if verdict.runs:
            following = next_input(current, verdict)
            if following is None:
                verdict.cut_off(
                    _not_reached([spec for each in stages for spec, _, _ in each], runs)
                )
                break
            current = following
        started = _clock()
        for spec, func, decode in stage:
            try:
                raw = func(current)
                result = raw if raw is None or type(raw) is HookResult else decode(raw)
            except BaseException as exc:
                result = failure(spec, exc)
            finished = _clock()
            if result is None:
                # No opinion: all `record` would do is add the run; the call is saved.
                runs.append((spec, None, finished - started))
            else:
                record(verdict, spec, result, finished - started, secrets)
            started = finished
    return verdict


def run_contexts(
    stages: Stages, context_of: Callable[[HookSpec], RunContext]
) -> tuple[tuple[RunContext, ...], ...]:
    """The stages as `run_awaited` takes them: each hook's `context_of(spec)`."""
    return tuple(tuple(context_of(spec) for spec in stage) for stage in stages)


def run_awaited(
    inp: HookInput, stages: AwaitedStages, secrets: AbstractSet[str]
) -> Coroutine[Any, Any, Verdict]:
    """The stages of any hooks, each awaited under its timeout; a parallel stage's hooks run
    concurrently and merge as they complete. One stage of one hook (a JSON-RPC hook on a
    tool call) is its step alone: no stage rule applies, and the dispatch awaits one
    coroutine less."""
    if len(stages) == 1 and len(stages[0]) == 1:
        return _step(Verdict(inp.event), stages[0][0], inp, secrets)
    return _run_stages(inp, stages, secrets)


async def _run_stages(inp: HookInput, stages: AwaitedStages, secrets: AbstractSet[str]) -> Verdict:
    verdict = Verdict(inp.event)
    current = inp
    for stage in stages:
        if verdict.runs:
            following = next_input(current, verdict)
            if following is None:
                specs = [context.spec for each in stages for context in each]
                verdict.cut_off(_not_reached(specs, verdict.runs))
                break
            current = following
        if len(stage) == 1:
            await _step(verdict, stage[0], current, secrets)
        else:
            await _concurrently(verdict, stage, current, secrets)
    return verdict


async def _step(
    verdict: Verdict, context: RunContext, inp: HookInput, secrets: AbstractSet[str]
) -> Verdict:
    """One hook's step in the awaited loop: its handler awaited with its `context`, bounded
    by `spec.timeout` (`TimeoutError` past it), then `record` into `verdict`, which it
    returns. The call is written out here rather than in a helper: on the JSON-RPC path
    every coroutine level costs each round trip twice (the suspension at the pipe and the
    resumption)."""
    spec = context.spec
    handler = spec.handler
    timeout = context.timeout
    started = _clock()
    try:
        if timeout is None or getattr(handler, "enforces_timeout", False) is True:
            # No limit, or the handler bounds every await below it itself (a PicoClaw
            # handler): a second scope would only add a timer per call.
            result = await handler(inp, context)
        else:
            from asyncio import timeout as deadline  # loaded: a handler is awaited

            async with deadline(timeout):
                result = await handler(inp, context)
    except BaseException as exc:
        result = failure(spec, exc)
    if result is None:
        # No opinion: all `record` would do is add the run; the call is saved.
        verdict.runs.append((spec, None, _clock() - started))
    else:
        record(verdict, spec, result, _clock() - started, secrets)
    return verdict


async def _concurrently(
    verdict: Verdict, stage: Sequence[RunContext], inp: HookInput, secrets: AbstractSet[str]
) -> None:
    """One parallel stage: every hook's step as a task, each merged as it completes; when
    the dispatch is cancelled, so are they, and it waits for them to end."""
    import asyncio

    tasks = [asyncio.ensure_future(_step(verdict, context, inp, secrets)) for context in stage]
    try:
        await asyncio.gather(*tasks)
    except asyncio.CancelledError:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
