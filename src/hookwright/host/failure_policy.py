"""The failure policy applied when a project is opened (`hookwright.host.open.bind_hooks`).

* `apply_failure_policy`: a bound hook the policy closes gets `on_error="block"`, the one
  field the engine's run loop reads (`engine.run_loop.finish`): its failure then blocks.
* `untrusted_guards`: a hook left unbound because its folder is not trusted, which the policy
  closes, is stood in for by a guard that blocks the calls it would have seen, with a reason
  naming the folder and how to trust it.
* `command_problems`: a bound command hook whose program is missing or not executable.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from hookwright.config.commands import CommandProblem, command_problem
from hookwright.config.loading import Diagnostic, DiscoveredHook, LoadResult
from hookwright.config.policy import FailurePolicy, PolicyRule, PolicyTarget
from hookwright.config.trust import TrustStore
from hookwright.core.events import Event, HookInput

if TYPE_CHECKING:
    from hookwright.core.spec import HookSpec

#: The events an untrusted hook is stood in for on: those whose block stops an action.
GUARDED_EVENTS: frozenset[Event] = frozenset(
    {Event.PreToolUse, Event.PermissionRequest, Event.UserPromptSubmit, Event.PreModelCall}
)
_DENY_EVENTS = frozenset({Event.PreToolUse, Event.PermissionRequest})


def apply_failure_policy(loaded: LoadResult, policy: FailurePolicy) -> list[Diagnostic]:
    """Close the specs of `loaded` the policy closes (in place); a warning for each lower
    level's `fail: open` that tried to loosen one."""
    ignored: dict[str, tuple[PolicyRule, PolicyRule, str]] = {}
    for index, spec in enumerate(loaded.specs):
        if spec.on_error == "block":
            continue
        target = PolicyTarget(spec.name, spec.dialect, spec.origin or "", spec.event)
        decision = policy.decide(target)
        if decision.closing is None:
            continue
        closed = replace(spec, on_error="block")
        loaded.specs[index] = closed
        declared = loaded.declared_by.pop(id(spec), None)
        if declared is not None:
            loaded.declared_by[id(closed)] = declared
        for rule in decision.ignored:
            ignored.setdefault(rule.where, (rule, decision.closing, spec.name))
    return [
        Diagnostic(
            rule.file,
            rule.path,
            f"'fail: open' ignored for hook {name!r}: {closing.where} closes it, and a "
            "policy can tighten but never loosen what an earlier level closes",
            "warning",
        )
        for rule, closing, name in ignored.values()
    ]


def untrusted_guards(
    untrusted: Iterable[DiscoveredHook],
    policy: FailurePolicy,
    store: TrustStore,
    project_dir: Path,
) -> list[HookSpec]:
    """A blocking guard for each untrusted hook the policy closes, on each event of
    `GUARDED_EVENTS` it listens to (PreToolUse when only its code knows its events)."""
    guards: list[HookSpec] = []
    for hook in untrusted:
        for event in hook.events or (Event.PreToolUse,):
            if event not in GUARDED_EVENTS:
                continue
            target = PolicyTarget(hook.name, hook.dialect, hook.origin, event)
            rule = policy.decide(target).closing
            if rule is not None:
                folder = hook.trust_root or project_dir
                guards.append(_guard(hook, event, rule, store.how_to_trust(folder), folder))
    return guards


def _guard(
    hook: DiscoveredHook, event: Event, rule: PolicyRule, how: str, folder: Path
) -> HookSpec:
    # The engine's data model loads only when a guard is built: opening a folder for the
    # command line stays free of it (and of asyncio).
    from hookwright.core.matching import Matcher
    from hookwright.core.results import Decision, HookResult
    from hookwright.core.spec import HookSpec, PythonHandler

    decision = Decision.deny if event in _DENY_EVENTS else Decision.block
    reason = (
        f"hook {hook.name!r} ({hook.dialect}, {hook.origin}) did not run: the folder {folder} "
        f"is not trusted, and the failure policy ({rule.where}) fails it closed; {how}"
    )

    def blocked(_inp: HookInput) -> HookResult:
        return HookResult(decision=decision, reason=reason)

    # Only a Claude Code matcher is read as written; another dialect's guard covers the
    # whole event (its matcher may test another field).
    matcher = (
        Matcher(hook.matcher, "claude")
        if hook.dialect == "claude_code" and hook.matcher is not None
        else None
    )
    return HookSpec(
        name=f"{hook.name} (untrusted)",
        event=event,
        handler=PythonHandler(blocked),
        matcher=matcher if event in _DENY_EVENTS else None,
        source=hook.source,
        dialect=hook.dialect,
        origin=hook.origin,
        description=reason,
    )


def command_problems(
    hooks: Iterable[DiscoveredHook], project_dir: Path, home: Path
) -> list[tuple[DiscoveredHook, CommandProblem, str]]:
    """The command hooks among `hooks` whose program is missing or not executable, with its
    path (relative paths are read from the project folder, where hooks run)."""
    variables = {"CLAUDE_PROJECT_DIR": str(project_dir), "HOME": str(home)}
    found: list[tuple[DiscoveredHook, CommandProblem, str]] = []
    for hook in hooks:
        if hook.command is None:
            continue
        problem = command_problem(hook.command, cwd=project_dir, variables=variables)
        if problem is not None:
            found.append((hook, *problem))
    return found
