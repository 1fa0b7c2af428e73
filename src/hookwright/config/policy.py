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
TeammateIdle) are never closed, as in Claude Code's `onFailure`. The rules and their reading
are in `hookwright.config.policy_rules`, loaded where a policy file exists.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from hookwright.core.events import Event

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal, TypeAlias

    from hookwright.config.loading import Diagnostic
    from hookwright.config.policy_rules import PolicyFile, PolicyRule, PolicyTarget
    from hookwright.core.tiers import Tier

PolicyLevel: TypeAlias = "Literal['managed', 'user', 'project']"

#: Names the managed policy file in place of `DEFAULT_MANAGED_POLICY`.
MANAGED_POLICY_ENV = "HOOKWRIGHT_MANAGED_POLICY"
DEFAULT_MANAGED_POLICY = Path("/etc/hookwright/policy.yaml")
POLICY_FILE_NAME = "policy.yaml"

#: Events no policy closes: blocking them would keep the agent going, not stop an action.
NEVER_CLOSED: frozenset[Event] = frozenset(
    {Event.Stop, Event.SubagentStop, Event.TaskCompleted, Event.TeammateIdle}
)


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
        from hookwright.config.tier_policy import SOURCE_TIER  # with the policy files read

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
    """The policy files that exist (`policy_rules.read_policy_file`: a file that cannot be read
    is an error naming it, a bad field a warning or an error naming the file and the field)."""
    files: list[PolicyFile] = []
    problems: list[Diagnostic] = []
    for level, path in policy_paths(project_dir, home):
        if not os.path.lexists(path):
            continue
        from hookwright.config.policy_rules import read_policy_file  # a policy file exists

        policy_file = read_policy_file(level, path, problems)
        if policy_file is not None:
            files.append(policy_file)
    return FailurePolicy(tuple(files)), problems


__all__ = [
    "DEFAULT_MANAGED_POLICY",
    "MANAGED_POLICY_ENV",
    "NEVER_CLOSED",
    "FailurePolicy",
    "PolicyDecision",
    "load_failure_policy",
    "policy_paths",
]
