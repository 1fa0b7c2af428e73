"""The failure policy: which hooks fail closed, read from `policy.yaml` at three levels.

    managed   /etc/hookwright/policy.yaml (``HOOKWRIGHT_MANAGED_POLICY`` names another file)
    user      ~/.hookwright/policy.yaml
    project   <project>/.hookwright/policy.yaml

Each file holds `rules`, each a `fail: closed` or `fail: open` with any of `events`, `dialects`
and `hooks` (globs on a hook's name or origin); a rule naming none of them covers every hook.
Within a file the last rule that covers a hook decides. Across files managed is read first,
then user, then project: a later level may tighten (close what an earlier one left open or
did not name) but never loosen; its `fail: open` for a hook an earlier level closes is
ignored with a warning naming the file.

A project's policy file needs no trust: it can only close hooks, never open one. A hook's own
field (native `on_error: block`, PicoClaw approvers) is never loosened by a policy either. The
events whose blocking answer would keep a turn going (Stop, SubagentStop, TaskCompleted,
TeammateIdle) are never closed, as in Claude Code's `onFailure`.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hookwright.config.loading import Diagnostic
from hookwright.config.safeparse import ParseError, read_yaml
from hookwright.config.tier_policy import NO_TIERS, SOURCE_TIER, TierSettings, read_tier_settings
from hookwright.core.events import Event, UnknownEventError, resolve_event
from hookwright.core.tiers import Tier
from hookwright.core.validation import did_you_mean

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias

PolicyLevel: TypeAlias = "Literal['managed', 'user', 'project']"
Fail: TypeAlias = "Literal['open', 'closed']"

#: Names the managed policy file in place of `DEFAULT_MANAGED_POLICY`.
MANAGED_POLICY_ENV = "HOOKWRIGHT_MANAGED_POLICY"
DEFAULT_MANAGED_POLICY = Path("/etc/hookwright/policy.yaml")
POLICY_FILE_NAME = "policy.yaml"

#: Events no policy closes: blocking them would keep the agent going, not stop an action.
NEVER_CLOSED: frozenset[Event] = frozenset(
    {Event.Stop, Event.SubagentStop, Event.TaskCompleted, Event.TeammateIdle}
)
_TOP_KEYS = ("rules", "tiers", "shadow")
_RULE_KEYS = ("fail", "events", "dialects", "hooks")


@dataclass(frozen=True, slots=True)
class PolicyTarget:
    """What a rule is tested against: one hook on one event."""

    name: str
    dialect: str
    origin: str
    event: Event


@dataclass(frozen=True, slots=True)
class PolicyRule:
    """One rule of a policy file; None for a field the rule does not name (any)."""

    fail: Fail
    events: frozenset[Event] | None
    dialects: frozenset[str] | None
    hooks: tuple[str, ...] | None
    #: Where it is written: the policy file and `rules[<index>]`.
    file: str
    path: str

    @property
    def where(self) -> str:
        return f"{self.file}: {self.path}"

    def covers(self, target: PolicyTarget) -> bool:
        if self.events is not None and target.event not in self.events:
            return False
        if self.dialects is not None and target.dialect not in self.dialects:
            return False
        if self.hooks is None:
            return True
        return any(
            fnmatch.fnmatchcase(target.name, glob) or fnmatch.fnmatchcase(target.origin, glob)
            for glob in self.hooks
        )


@dataclass(frozen=True, slots=True)
class PolicyFile:
    """One `policy.yaml`: its level, path, rules and tier settings."""

    level: PolicyLevel
    path: Path
    rules: tuple[PolicyRule, ...]
    tiers: TierSettings = NO_TIERS

    def rule_for(self, target: PolicyTarget) -> PolicyRule | None:
        """The last rule of the file that covers `target`."""
        for rule in reversed(self.rules):
            if rule.covers(target):
                return rule
        return None


@dataclass(frozen=True, slots=True)
class PolicyDecision:
    """How a hook fails: `closing` is the rule that closes it (None: it fails open, as its
    own field says); `ignored` are the lower levels' `fail: open` rules that tried to loosen."""

    closing: PolicyRule | None
    ignored: tuple[PolicyRule, ...] = ()

    @property
    def closed(self) -> bool:
        return self.closing is not None


@dataclass(frozen=True, slots=True)
class FailurePolicy:
    """The policy files found, managed first, then user, then project."""

    files: tuple[PolicyFile, ...] = ()

    def decide(self, target: PolicyTarget) -> PolicyDecision:
        """Managed beats user beats project; a level may tighten but never loosen."""
        if target.event in NEVER_CLOSED:
            return PolicyDecision(None)
        closing: PolicyRule | None = None
        ignored: list[PolicyRule] = []
        for policy_file in self.files:
            rule = policy_file.rule_for(target)
            if rule is None:
                continue
            if rule.fail == "closed":
                closing = closing or rule
            elif closing is not None:
                ignored.append(rule)
        return PolicyDecision(closing, tuple(ignored))

    def tier_of(self, target: PolicyTarget, source: str) -> Tier | None:
        """The tier a hook declared in `source` runs in: None without any policy file, else
        where the managed file places it, else its source's (`SOURCE_TIER`)."""
        if not self.files:
            return None
        for policy_file in self.files:
            if policy_file.level == "managed":
                placed = policy_file.tiers.placement(target.name, target.origin)
                if placed is not None:
                    return placed
        return SOURCE_TIER.get(source, "project")

    def shadows(self, target: PolicyTarget, tier: Tier) -> bool:
        """Whether a policy file within its reach puts the hook, or its tier, in shadow."""
        return any(f.tiers.shadows(target.name, target.origin, tier) for f in self.files)


def policy_paths(project_dir: Path, home: Path) -> tuple[tuple[PolicyLevel, Path], ...]:
    """Where each level's policy file is, managed first."""
    managed = os.environ.get(MANAGED_POLICY_ENV) or str(DEFAULT_MANAGED_POLICY)
    return (
        ("managed", Path(managed)),
        ("user", home / ".hookwright" / POLICY_FILE_NAME),
        ("project", project_dir / ".hookwright" / POLICY_FILE_NAME),
    )


def load_failure_policy(project_dir: Path, home: Path) -> tuple[FailurePolicy, list[Diagnostic]]:
    """The policy files that exist, each read with the bounded YAML parser; a file that cannot
    be read is an error naming it (its rules then apply nowhere), a bad field a warning or an
    error naming the file and the field."""
    files: list[PolicyFile] = []
    problems: list[Diagnostic] = []
    for level, path in policy_paths(project_dir, home):
        if not os.path.lexists(path):
            continue
        try:
            data = read_yaml(path)
        except ParseError as exc:
            problems.append(Diagnostic(str(path), "", f"{exc.reason}; failure policy not applied"))
            continue
        rules = _rules(data, str(path), problems)
        tiers = (
            read_tier_settings(data, level, str(path), problems)
            if isinstance(data, Mapping)
            else NO_TIERS
        )
        files.append(PolicyFile(level, path, tuple(rules), tiers))
    return FailurePolicy(tuple(files)), problems


def _rules(data: Any, file: str, problems: list[Diagnostic]) -> list[PolicyRule]:
    if data is None:
        return []
    if not isinstance(data, Mapping):
        problems.append(Diagnostic(file, "", "expected a mapping with 'rules'"))
        return []
    _unknown_keys(data, _TOP_KEYS, file, "", problems)
    items = data.get("rules") or []
    if not isinstance(items, list):
        problems.append(Diagnostic(file, "rules", "expected a list of rules"))
        return []
    rules = (_rule(item, file, f"rules[{index}]", problems) for index, item in enumerate(items))
    return [rule for rule in rules if rule is not None]


def _rule(item: Any, file: str, path: str, problems: list[Diagnostic]) -> PolicyRule | None:
    """One rule. A mistake never loosens: a `fail` that is neither word reads as closed, a
    `fail: closed` rule with a field it cannot read covers everything that field could name,
    a `fail: open` rule with any mistake is dropped."""
    if not isinstance(item, Mapping):
        problems.append(Diagnostic(file, path, "expected a mapping (fail, events, ...)"))
        return None
    before = len(problems)
    fail = item.get("fail")
    if fail not in ("open", "closed"):
        got = f"expected open or closed, got {fail!r}; read as closed"
        problems.append(Diagnostic(file, f"{path}.fail", got))
    _unknown_keys(item, _RULE_KEYS, file, path, problems)
    events = _events(_names(item, "events", file, path, problems), file, path, problems)
    dialects = _names(item, "dialects", file, path, problems)
    hooks = _names(item, "hooks", file, path, problems)
    rule = PolicyRule(
        "open" if fail == "open" else "closed",
        events,
        frozenset(dialects) if dialects is not None else None,
        tuple(hooks) if hooks is not None else None,
        file,
        path,
    )
    if rule.fail == "open" and len(problems) > before:
        problems.append(Diagnostic(file, path, "this 'fail: open' rule is not applied"))
        return None
    return rule


def _names(
    item: Mapping[str, Any], key: str, file: str, path: str, problems: list[Diagnostic]
) -> list[str] | None:
    """The names the rule's `key` lists; None when it names none or cannot be read (then
    the rule covers every value of the field)."""
    value = item.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        problems.append(Diagnostic(file, f"{path}.{key}", "expected a name or a list of names"))
        return None
    return list(value)


def _events(
    names: list[str] | None, file: str, path: str, problems: list[Diagnostic]
) -> frozenset[Event] | None:
    if names is None:
        return None
    events: set[Event] = set()
    for name in names:
        try:
            events.add(resolve_event(name))
        except UnknownEventError as exc:
            problems.append(Diagnostic(file, f"{path}.events", str(exc)))
            return None
    return frozenset(events)


def _unknown_keys(
    data: Mapping[Any, Any],
    known: tuple[str, ...],
    file: str,
    path: str,
    problems: list[Diagnostic],
) -> None:
    for key in data:
        if key not in known:
            where = f"{path}.{key}" if path else str(key)
            hint = did_you_mean(str(key), known)
            problems.append(Diagnostic(file, where, f"unknown key {key!r}{hint}"))


__all__ = [
    "DEFAULT_MANAGED_POLICY",
    "MANAGED_POLICY_ENV",
    "NEVER_CLOSED",
    "FailurePolicy",
    "PolicyDecision",
    "PolicyFile",
    "PolicyRule",
    "PolicyTarget",
    "load_failure_policy",
    "policy_paths",
]
