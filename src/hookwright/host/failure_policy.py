"""The failure policy applied when a project is opened (`hookwright.host.open.bind_hooks`).

* `close_by_policy`: the one place a spec meets the policy: one the policy closes gets
  `on_error="block"`, the one field the engine's run loop reads (`engine.run_loop.finish`):
  its failure then blocks; every spec gets its tier (`HookSpec.tier`, which orders and
  stages it) and shadow mode where a policy file says so. Every registration path of
  `hookwright.host.open` calls it (bound hooks through `apply_failure_policy`, a skill's or
  subagent's frontmatter hooks, skill prompt hooks).
* `failure_mode`: how a registered hook fails, and what closed it, for listings.
* `untrusted_guards`: a hook left unbound because its folder is not trusted, which the policy
  closes, is stood in for by a guard that blocks the calls it would have seen, with a reason
  naming the folder and how to trust it.
* `load_failure_closing`: whether the policy fails an event closed for the hooks of a config
  file that did not load, decided as for an untrusted hook.
* `command_problems`: a bound command hook whose program is missing or not executable.
* `start_refusal`: a file of hooks an organization requires (`Diagnostic.required`: Codex's
  cloud-managed config, its managed requirements and config files) that could not be read,
  which the policy closes, stops the session from starting, as the agent itself would not
  start without it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from hookwright.config.loading import Diagnostic, DiscoveredHook, LoadResult
from hookwright.config.policy import FailurePolicy, PolicyDecision
from hookwright.config.trust import TrustStore
from hookwright.core.events import Event, HookInput
from hookwright.core.systems import system_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    from hookwright.config.commands import CommandProblem
    from hookwright.config.policy_rules import PolicyRule, PolicyTarget
    from hookwright.core.results import Decision
    from hookwright.core.spec import HookSpec

#: The events an untrusted hook is stood in for on: those whose block stops an action.
GUARDED_EVENTS: frozenset[Event] = frozenset(
    {Event.PreToolUse, Event.PermissionRequest, Event.UserPromptSubmit, Event.PreModelCall}
)
_DENY_EVENTS = frozenset({Event.PreToolUse, Event.PermissionRequest})


#: What a hook's own field closes it with, as listings show it.
OWN_FIELD = "its own field (on_error: block)"


@dataclass(frozen=True, slots=True)
class FailureMode:
    """How a hook fails: `open` (its failure is reported and the action goes on) or `closed`
    (its failure blocks); `closed_by` names what closed it: a policy rule (``<file>:
    rules[<i>]``) or `OWN_FIELD`."""

    fails: Literal["open", "closed"]
    closed_by: str | None = None


OPEN = FailureMode("open")


def _target(spec: HookSpec) -> PolicyTarget:
    return _policy_target(spec.name, spec.dialect, spec.origin or "", spec.event)


def _policy_target(name: str, dialect: str, origin: str, event: Event) -> PolicyTarget:
    """What the policy's rules are tested against (their module loads with the first test:
    without a policy file nothing is tested)."""
    from hookwright.config.policy_rules import PolicyTarget

    return PolicyTarget(name, dialect, origin, event)


def close_by_policy(spec: HookSpec, policy: FailurePolicy) -> tuple[HookSpec, PolicyDecision]:
    """`spec` under `policy`: with `on_error="block"` when it closes it (a spec its own
    field closes is left as it is), in its tier and, where a policy file puts it there, in
    shadow mode (`tier_policy`); and the policy's decision. Without a policy file, `spec`."""
    if not policy.files:
        return spec, PolicyDecision(None)
    target = _target(spec)
    tier = policy.tier_of(target, spec.source)
    shadow = spec.shadow or (tier is not None and policy.shadows(target, tier))
    decision = PolicyDecision(None) if spec.on_error == "block" else policy.decide(target)
    on_error = "block" if decision.closing is not None else spec.on_error
    return replace(spec, on_error=on_error, tier=tier, shadow=shadow), decision


def failure_mode(spec: HookSpec, policy: FailurePolicy) -> FailureMode:
    """How the registered `spec` fails under `policy`, and what closed it (the policy's rule
    first: it is what a person reads to find why)."""
    closing = policy.decide(_target(spec)).closing
    if closing is not None:
        return FailureMode("closed", closing.where)
    return FailureMode("closed", OWN_FIELD) if spec.on_error == "block" else OPEN


def untrusted_failure_mode(
    hook: DiscoveredHook, event: Event | None, policy: FailurePolicy
) -> FailureMode:
    """How an untrusted hook fails on `event` (None: an event only its code knows): closed
    where `untrusted_guards` stands a blocking guard in for it."""
    closing = _untrusted_closing(hook, event or Event.PreToolUse, policy)
    return OPEN if closing is None else FailureMode("closed", closing.where)


def _untrusted_closing(
    hook: DiscoveredHook, event: Event, policy: FailurePolicy
) -> PolicyRule | None:
    """The rule that has a guard stand in for the untrusted `hook` on `event`, if any."""
    if event not in GUARDED_EVENTS:
        return None
    return policy.decide(_policy_target(hook.name, hook.dialect, hook.origin, event)).closing


def load_failure_closing(file: str, event: Event, policy: FailurePolicy) -> PolicyRule | None:
    """The rule that fails `event` closed for the hooks of a config `file` that did not load,
    decided as for an untrusted hook (`untrusted_guards`): on `GUARDED_EVENTS` only, the file
    standing for the hook's name and origin; its dialect is unknown, so a rule that names
    `dialects` does not cover it."""
    if event not in GUARDED_EVENTS:
        return None
    return policy.decide(_policy_target(file, "", file, event)).closing


#: `GUARDED_EVENTS` in the order a refusal names the first that closes.
_GUARDED_ORDER = (
    Event.PreToolUse,
    Event.PermissionRequest,
    Event.UserPromptSubmit,
    Event.PreModelCall,
)


def start_refusal(
    diagnostics: Iterable[Diagnostic], dialects: Mapping[str, str], policy: FailurePolicy
) -> str | None:
    """Why no session starts: the first `required` file that could not be read whose hooks
    the policy fails closed on an event that gates an action (decided as for an untrusted
    hook, the file standing for the hooks' name and origin, `dialects` naming the dialect that
    read it), in one line naming the file, why, the fix and the rule; None: it starts."""
    for diagnostic in diagnostics:
        if not diagnostic.required:
            continue
        dialect = dialects.get(diagnostic.file, "")
        for event in _GUARDED_ORDER:
            target = _policy_target(diagnostic.file, dialect, diagnostic.file, event)
            rule = policy.decide(target).closing
            if rule is not None:
                said = str(diagnostic).partition(": ")[2]  # without the severity
                closes = f"the failure policy ({rule.where}) fails its hooks closed"
                return f"not starting: {said}; {closes}"
    return None


def closing_decision(event: Event) -> Decision:
    """How a closed guard refuses on `event`: deny where a call is refused, else block."""
    from hookwright.core.results import Decision

    return Decision.deny if event in _DENY_EVENTS else Decision.block


def apply_failure_policy(loaded: LoadResult, policy: FailurePolicy) -> list[Diagnostic]:
    """Close the specs of `loaded` the policy closes (in place); a warning for each lower
    level's `fail: open` that tried to loosen one."""
    ignored: dict[str, tuple[PolicyRule, PolicyRule, str]] = {}
    for index, spec in enumerate(loaded.specs):
        closed, decision = close_by_policy(spec, policy)
        if closed is spec:
            continue
        loaded.specs[index] = closed
        declared = loaded.declared_by.pop(id(spec), None)
        if declared is not None:
            loaded.declared_by[id(closed)] = declared
        if decision.closing is None:
            continue
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
            rule = _untrusted_closing(hook, event, policy)
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
    from hookwright.core.results import HookResult
    from hookwright.core.spec import HookSpec, PythonHandler

    decision = closing_decision(event)
    reason = (
        f"hook {hook.name!r} ({system_name(hook.dialect)}, {hook.origin}) did not run: "
        f"the folder {folder} "
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
    """The hooks among `hooks` whose program is missing or not executable, with its path:
    as its dialect found it when it read the hook (`DiscoveredHook.program_problem`: a
    PicoClaw process's program or script in its `dir`), or a command hook's first word
    (relative paths are read from the project folder, where hooks run)."""
    variables = {"CLAUDE_PROJECT_DIR": str(project_dir), "HOME": str(home)}
    found: list[tuple[DiscoveredHook, CommandProblem, str]] = []
    for hook in hooks:
        if hook.program_problem is not None:
            found.append((hook, hook.program_problem.problem, hook.program_problem.path))
            continue
        if hook.command is None:
            continue
        from hookwright.config.commands import command_problem  # a command hook's program

        problem = command_problem(hook.command, cwd=project_dir, variables=variables)
        if problem is not None:
            found.append((hook, *problem))
    return found
