"""The Codex source: every layer Codex reads (`layers`) -> discovered hooks.

Every hook is listed; one runs only when Codex would run it and hookwright trusts it: a
project hook needs the project folder trusted by hookwright, every hook but a managed one
needs Codex's review (`review`), and Codex's switches must let it run (`switches`). A hook
that does not run binds to nothing, and the binding says why in a warning (naming the exact
review entry, or the file and key that turn it off), so `hooks list`, `validate` and every
host report it as not run instead of skipping it silently.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from hookwright.config.loading import (
    Diagnostic,
    DiscoveredHook,
    Discovery,
    LoadContext,
    LoadResult,
    register_source,
)
from hookwright.config.trust import TrustPolicy
from hookwright.core.events import TOOL_EVENTS
from hookwright.core.matching import Matcher
from hookwright.core.spec import HookSpec
from hookwright.dialects.codex.codec import command_handler
from hookwright.dialects.codex.config import CANONICAL, EVENT_LABELS, CodexHook, codex_home
from hookwright.dialects.codex.layers import CodexLayers, read_layers
from hookwright.dialects.codex.review import HookState, hook_states, review_note, review_of
from hookwright.dialects.codex.switches import switch_verdict
from hookwright.dialects.codex.tools import CodexToolMatcher

DIALECT = "codex"
_NAME_LIMIT = 60


def _matcher(hook: CodexHook, diagnostics: list[Diagnostic]) -> tuple[bool, Matcher | None]:
    """(valid, the group's matcher): Codex skips a group whose matcher is invalid. A tool
    event's is tested against the tool's name as Codex shows it (`spawn_agent`)."""
    if hook.matcher is None:
        return True, None
    kind = CodexToolMatcher if CANONICAL[hook.event] in TOOL_EVENTS else Matcher
    matcher = kind(hook.matcher, "claude")
    if matcher.error is not None:
        where = f"hooks.{hook.event}[{hook.group_index}].matcher"
        diagnostics.append(
            Diagnostic(
                str(hook.source),
                where,
                f"invalid matcher {hook.matcher!r}: {matcher.error}; group skipped",
                "warning",
            )
        )
        return False, None
    return True, matcher


def run_label(event: str) -> str:
    """The event as Codex names a run of its hook (``hook_run_id``): kebab case, as
    ``subagent-stop`` (measured on Codex CLI 0.171.0), where review keys are snake case."""
    return EVENT_LABELS[event].replace("_", "-")


def build_spec(hook: CodexHook, ctx: LoadContext, matcher: Matcher | None, order: int) -> HookSpec:
    """`order`: the hook's place among every Codex hook discovered, Codex's display order."""
    text = hook.command.strip()
    short = text if len(text) <= _NAME_LIMIT else text[: _NAME_LIMIT - 1] + "…"
    return HookSpec(
        name=f"command:{short}",
        event=CANONICAL[hook.event],
        handler=command_handler(
            hook.run_command,
            timeout=float(hook.timeout),
            codex_home=codex_home(ctx.home),
            project=ctx.project_dir,
            run_id=f"{run_label(hook.event)}:{order}:{hook.source}",
            env=hook.env,
            background=hook.background,
        ),
        matcher=matcher,
        source=hook.layer,
        dialect=DIALECT,
        mode="parallel",
        timeout=float(hook.timeout),
        origin=hook.origin,
        status_message=hook.status_message,
    )


@dataclass(frozen=True, slots=True)
class Gate:
    """What decides whether a discovered hook runs, besides hookwright's folder trust."""

    layers: CodexLayers
    states: Mapping[str, HookState]


def bind_reviewed(hook: CodexHook, spec: HookSpec, gate: Gate, trust: TrustPolicy) -> LoadResult:
    """The hook's spec when Codex's switches and review let it run; else nothing, and why."""
    verdict = switch_verdict(hook, gate.layers, trust.trusts)
    notes = [verdict.note] if verdict.note is not None else []
    if not verdict.runs:
        why = None if verdict.note is None else _said(verdict.note)
        return LoadResult(diagnostics=notes, off_because=why)
    review = "reviewed" if hook.layer == "managed" else review_of(hook, gate.states)
    if review == "reviewed":
        return LoadResult(specs=[spec], diagnostics=notes)
    where = hook.origin.rpartition(":")[2]
    note = Diagnostic(str(hook.declared_in or hook.source), where, review_note(hook, review))
    off = review_note(hook, review, said="")  # said where "not run" is said already
    return LoadResult(diagnostics=[replace(note, severity="warning")], off_because=off)


def _said(note: Diagnostic) -> str:
    """A switch's note as one line naming its file and setting."""
    return f"{note.file}: {note.path}: {note.message}"


def discover(ctx: LoadContext) -> Discovery:
    """Every Codex hook of every layer Codex reads, in Codex's order."""
    discovery = Discovery()
    layers = read_layers(ctx, discovery.diagnostics)
    discovery.files += [str(path) for path in layers.files]
    discovery.valid_until = layers.valid_until
    gate = Gate(layers, hook_states(layers.user_config))
    order = 0
    for hook in layers.hooks:
        order += _add(discovery, hook, ctx, gate, order)
    return discovery


def _add(discovery: Discovery, hook: CodexHook, ctx: LoadContext, gate: Gate, order: int) -> int:
    """List `hook`; how many places of Codex's display order it takes (0 or 1)."""
    valid, matcher = _matcher(hook, discovery.diagnostics)
    if not valid:
        return 0
    spec = build_spec(hook, ctx, matcher, order)
    trust_root = _project_folder(hook) if hook.layer == "project" else None
    listed = DiscoveredHook.of_specs([spec], trust_root)
    bind = functools.partial(bind_reviewed, hook, spec, gate)
    discovery.hooks.append(replace(listed, binder=bind, command=hook.command))
    return 1


def _project_folder(hook: CodexHook) -> Path:
    """The folder holding the ``.codex`` the hook is declared in: the folder to trust."""
    return (hook.declared_in or hook.source).parent.parent


register_source(DIALECT, discover)
