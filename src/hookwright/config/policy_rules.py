"""The rules of one `policy.yaml` (`hookwright.config.policy`): what a rule is tested against
(`PolicyTarget`), one rule (`PolicyRule`), one file (`PolicyFile`), and reading a file.

Loaded where a policy file exists or a hook is tested against one: a project, user and
machine without a `policy.yaml`, the usual case, never load it.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass

from hookwright.config.loading import Diagnostic
from hookwright.config.safeparse import ParseError, read_yaml
from hookwright.config.tier_policy import NO_TIERS, TierSettings, read_tier_settings
from hookwright.core.events import Event, UnknownEventError, resolve_event
from hookwright.core.validation import did_you_mean

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Literal, TypeAlias

    from hookwright.config.policy import PolicyLevel

Fail: TypeAlias = "Literal['open', 'closed']"

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


def read_policy_file(
    level: PolicyLevel, path: Path, problems: list[Diagnostic]
) -> PolicyFile | None:
    """The policy file at `path`, read with the bounded YAML parser; None, and an error naming
    it, when it cannot be read (its rules then apply nowhere); a bad field is a warning or an
    error naming the file and the field."""
    try:
        data = read_yaml(path)
    except ParseError as exc:
        problems.append(Diagnostic(str(path), "", f"{exc.reason}; failure policy not applied"))
        return None
    rules = _rules(data, str(path), problems)
    tiers = (
        read_tier_settings(data, level, str(path), problems)
        if isinstance(data, Mapping)
        else NO_TIERS
    )
    return PolicyFile(level, path, tuple(rules), tiers)


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


__all__ = ["Fail", "PolicyFile", "PolicyRule", "PolicyTarget", "read_policy_file"]
