"""`hookwright hooks test`: dispatch one event to a project's hooks and print the merged
verdict as one JSON object.

Free of typer and rich: the typer command (`hookwright.cli.app`) and the command line's fast
path (`hookwright.cli.quick`) both call `run`, so the two print the same bytes."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from hookwright.cli.project import (
    CliError,
    bound,
    claude_code_profile,
    engine_for,
    error_line,
    say_diagnostics,
    say_err,
    trust_store,
)
from hookwright.config.safeparse import (
    MAX_TEXT_CHARS,
    ParseError,
    decode_utf8,
    load_json_text,
    read_text,
)
from hookwright.config.trust import TrustPolicy
from hookwright.core.events import Event, HookInput, UnknownEventError, resolve_event
from hookwright.core.home import user_home
from hookwright.core.results_json import verdict_to_json
from hookwright.monitor import debug as debug_trace

if TYPE_CHECKING:
    from hookwright.cli.explain import Explanation
    from hookwright.config.loading import DiscoveredHook
    from hookwright.core.spec import HookSpec
    from hookwright.engine.kernel import HookEngine
    from hookwright.engine.services import ModelEvaluator
    from hookwright.host.open import BoundHooks

#: Read when an engine is built (the audit's size limits, the OpenTelemetry collector); a bad
#: value is reported then.
_ENGINE_WARNS_ABOUT = (
    "HOOKWRIGHT_AUDIT_MAX_BYTES",
    "HOOKWRIGHT_AUDIT_KEEP",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
)


class HooksTest(NamedTuple):
    """The command's arguments, as given (a named tuple: cheaper to define than a dataclass,
    which counts on the fast path)."""

    event: str
    input_file: str | None = None
    project: Path = Path(".")
    configs: list[Path] | None = None
    explain: bool = False
    from_transcript: Path | None = None
    tool_use: str | None = None
    #: The Claude Code version to load the hooks as (``--claude-code-version``).
    claude_code_version: str | None = None
    #: The model prompt and agent hooks ask (`hookwright run`'s `--model` specs).
    model: str | None = None
    #: The skills of `<project>/skills` whose prompt hooks run (None: every one).
    skills: list[str] | None = None


def run(args: HooksTest) -> int:
    """Run the command; returns its exit code."""
    from hookwright.cli.dialect_input import shaped

    try:
        canonical = resolve_event(args.event)
        data = _recorded(args, canonical)
        data.update(_read_input(args.input_file))
        canonical, data, input_notes = shaped(args.event, canonical, data)
        project = bound(
            args.project,
            args.configs,
            TrustPolicy(everything=True),
            claude_code_profile(args.claude_code_version),
            args.skills,
        )
        _only_hooks_of(args.event, canonical, project)
        evaluator = _evaluator(args.model, project.opened.project_dir, project.opened.home)
        registered = engine_for(project) if _needs_engine(project, args.explain) else None
        say_diagnostics(project, said_on_rows=_said_on_rows(project, canonical, args.explain))
        trust = trust_store()
    except (CliError, UnknownEventError) as exc:
        return error_line(str(exc))
    data.setdefault("session_id", f"test-{os.urandom(4).hex()}")
    data.setdefault("cwd", str(args.project.resolve()))
    inp = HookInput.from_wire(canonical, data)
    if registered is None:
        for note in input_notes:
            say_err(f"warning: {note}")
        output = verdict_to_json(inp.event.value)
    else:
        engine, declared_by = registered
        _mark_as_tests(engine)
        if evaluator is not None:
            engine.services = replace(engine.services, evaluator=evaluator)
        output = _dispatch(engine, project, declared_by, trust, inp, args, input_notes)
    # One line for scripts; indented for a person reading a terminal.
    indent = 2 if sys.stdout.isatty() else None
    sys.stdout.write(json.dumps(output, ensure_ascii=False, indent=indent) + "\n")
    return 0


def _only_hooks_of(name: str, event: Event, project: BoundHooks) -> None:
    """Keep the hooks that run when the event called `name` fires: Gemini CLI's BeforeModel
    and BeforeToolSelection are both PreModelCall, and each runs its own hooks only."""
    if event is not Event.PreModelCall or name == event.value:
        return
    from hookwright.dialects.gemini.loader import SHARED_EVENTS, runs_on

    if name in SHARED_EVENTS:
        loaded = project.loaded
        loaded.specs[:] = [spec for spec in loaded.specs if runs_on(name, spec)]


def _evaluator(spec: str | None, project_dir: Path, home: Path) -> ModelEvaluator | None:
    """The model `spec` names, as prompt and agent hooks ask it in a session of `hookwright
    run` (a relative `scripted:FILE` is read from the project folder, as `run` reads it)."""
    if spec is None:
        return None
    from hookwright.runtime.evaluators import HookModels
    from hookwright.runtime.models import ModelConfigError, make_model

    try:
        return HookModels(make_model(spec, base_dir=project_dir), project_dir, home)
    except ModelConfigError as exc:
        raise CliError(f"--model: {exc}") from None


def _mark_as_tests(engine: HookEngine) -> None:
    """What this command runs is a test, not a session: its audit records say so."""
    from hookwright.monitor.audit import AuditLog

    if isinstance(engine.audit, AuditLog):
        engine.audit.test = True


def _needs_engine(project: BoundHooks, explain: bool) -> bool:
    """False when an engine would answer the empty verdict and print nothing: no hook bound,
    no explanation or trace wanted, none of the settings its construction may warn about."""
    return (
        bool(project.loaded.specs)
        or explain
        or debug_trace.state.on
        or any(os.environ.get(variable) for variable in _ENGINE_WARNS_ABOUT)
    )


def _dispatch(
    engine: HookEngine,
    project: BoundHooks,
    declared_by: dict[int, DiscoveredHook],
    trust: TrustPolicy,
    inp: HookInput,
    args: HooksTest,
    input_notes: list[str],
) -> dict[str, Any]:
    """The verdict of `inp` (with `--explain`, its explanation too, also printed to stderr),
    with the prompts skill hooks would put before the model."""
    explain = args.explain
    explanation = _explain(engine, project, declared_by, trust, inp, explain)
    explanation.warnings[:0] = input_notes
    explanation = replace(explanation, asked_as=args.event)
    if args.model is None:
        explanation.warnings.extend(_asking_a_model(engine.hooks(inp.event)))
    if not explain:
        for warning in explanation.warnings:
            say_err(f"warning: {warning}")
    try:
        verdict = engine.dispatch_sync(inp)
    finally:
        engine.close()
    output = verdict.to_json()
    if explain:
        from hookwright.cli.explain import print_explanation, verdict_json

        print_explanation(inp, verdict, explanation)
        output = verdict_json(verdict, explanation)
    if verdict.results:  # a project with no hooks never loads the effect records
        from hookwright.core.effects import failure_fix

        for entry, result in zip(output["hooks"], verdict.results, strict=True):
            if fix := failure_fix(result.effects):
                entry["fix"] = fix  # what makes a failed hook work, when its dialect says
    if verdict.effects.prompt_injections:
        from hookwright.cli.skill_events import injection_lines, injections_json

        output["prompt_injections"] = injections_json(verdict)
        say_err("\n".join(["prompts for the model:", *injection_lines(verdict)]))
    return output


def _asking_a_model(hooks: list[HookSpec]) -> list[str]:
    """One line per prompt or agent hook of the event: without `--model` it fails."""
    from hookwright.dialects.base import Handler
    from hookwright.host.labels import system_name
    from hookwright.transports.model import ModelTransport

    return [
        f"hook {spec.name!r} ({system_name(spec.dialect)}) asks a model and none is given: it "
        "fails; test it with --model scripted:FILE (or openai:NAME, anthropic:NAME)"
        for spec in hooks
        if isinstance(spec.handler, Handler) and isinstance(spec.handler.transport, ModelTransport)
    ]


def _read_input(source: str | None) -> dict[str, Any]:
    if source is None:
        return {}
    name = "stdin" if source == "-" else source
    try:
        text = _read_stdin() if source == "-" else read_text(Path(source))
    except ParseError as exc:
        raise CliError(f"cannot read input {name}: {exc.reason}") from None
    if not text.strip():
        return {}
    try:
        data = load_json_text(text)
    except ParseError as exc:
        raise CliError(f"input {name}: {exc.reason}") from None
    if not isinstance(data, dict):
        raise CliError(f"input {name} must be a JSON object, got {type(data).__name__}")
    return data


def _read_stdin() -> str:
    data = sys.stdin.buffer.read(MAX_TEXT_CHARS + 1)
    if len(data) > MAX_TEXT_CHARS:
        raise ParseError(f"larger than {MAX_TEXT_CHARS:,} bytes")
    return decode_utf8(data)


def _explain(
    engine: HookEngine,
    project: BoundHooks,
    declared_by: dict[int, DiscoveredHook],
    trust: TrustPolicy,
    inp: HookInput,
    full: bool,
) -> Explanation:
    """The input warnings, and with `full` every candidate hook, the folders not trusted and
    the hooks that will not run."""
    from hookwright.cli.explain import Explanation, other_events, unloaded_for
    from hookwright.engine.selection import input_warnings

    untrusted = {key for key, hook in declared_by.items() if not trust.trusts(hook.trust_root)}
    not_bound = [item for item in project.opened.not_run if item.reason == "not_bound"]
    unloaded = unloaded_for(not_bound, inp.event) if full else []
    return Explanation(
        candidates=engine.explain(inp) if full else [],
        untrusted=untrusted,
        unloaded=unloaded,
        warnings=input_warnings(engine.hooks(inp.event), inp),
        elsewhere=other_events(engine.hooks(), inp.event) if full else [],
        project_dir=project.opened.project_dir,
    )


def _said_on_rows(project: BoundHooks, event: Event, explain: bool) -> list[str]:
    """The load errors `--explain` says on the rows of the event's hooks that did not load."""
    if not explain:
        return []
    from hookwright.config.loading import load_error

    not_bound = (item for item in project.opened.not_run if item.reason == "not_bound")
    rows = (item.hook for item in not_bound if event in item.hook.events)
    errors = (load_error(hook, project.loaded.diagnostics) for hook in rows)
    return [str(error) for error in errors if error is not None]


def _recorded(args: HooksTest, event: Event) -> dict[str, Any]:
    """The input of the recorded call `--from-transcript` names (a file or a session id)."""
    if args.from_transcript is None:
        if args.tool_use is not None:
            raise CliError("--tool-use needs --from-transcript FILE")
        return {}
    from hookwright.cli.recorded import RecordedCallError, recorded_call, transcript_file

    try:
        path = transcript_file(args.from_transcript, user_home(), args.project.resolve())
        return recorded_call(path, event, args.tool_use)
    except RecordedCallError as exc:
        raise CliError(str(exc)) from None
