"""What a policy file says of tiers and shadow mode (`hookwright.config.policy`).

    tiers:
      managed-prepend: {hooks: ["org-guard*"]}     # managed file only: run these first
      managed-append: {hooks: ["*/org/final.yaml:*"]}  # ... or last
      project: {mode: shadow}                      # a whole tier decides, never enforces
    shadow: ["*new-guard*"]                        # these hooks decide, never enforce

Every hook has a tier from where it was declared (managed settings or files: managed-prepend;
the user's files: user; everything else: project) unless the managed file places it. Shadow
mode loosens, so a file reaches only its own level and below: the managed file any tier, the
user's file the user and project tiers, the project's file the project tier. What a file may
not do is a warning naming the file and the field, and is not applied.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass

from hookwright.config.loading import Diagnostic
from hookwright.core.tiers import TIERS, Tier
from hookwright.core.validation import did_you_mean

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias

Level: TypeAlias = "Literal['managed', 'user', 'project']"

#: The tiers a policy file of each level may put in shadow mode.
REACH: dict[Level, frozenset[Tier]] = {
    "managed": frozenset(TIERS),
    "user": frozenset({"user", "project"}),
    "project": frozenset({"project"}),
}
#: The tier of a hook by where it was declared (`HookSpec.source`); a source not named here
#: (project, local, plugin, skill, session) is the project's.
SOURCE_TIER: dict[str, Tier] = {"managed": "managed-prepend", "user": "user"}
_PLACED: tuple[Tier, ...] = ("managed-prepend", "managed-append")
_TIER_KEYS = ("hooks", "mode")


def _matches(globs: tuple[str, ...], name: str, origin: str) -> bool:
    return any(
        fnmatch.fnmatchcase(name, glob) or fnmatch.fnmatchcase(origin, glob) for glob in globs
    )


@dataclass(frozen=True, slots=True)
class TierSettings:
    """One policy file's `tiers` and `shadow`, already checked against its level's reach."""

    #: Hook globs (name or origin) the managed file places in managed-prepend or -append.
    placed: tuple[tuple[Tier, tuple[str, ...]], ...] = ()
    shadow_tiers: frozenset[Tier] = frozenset()
    shadow_hooks: tuple[str, ...] = ()
    reach: frozenset[Tier] = frozenset()

    def placement(self, name: str, origin: str) -> Tier | None:
        for tier, globs in self.placed:
            if _matches(globs, name, origin):
                return tier
        return None

    def shadows(self, name: str, origin: str, tier: Tier) -> bool:
        if tier not in self.reach:
            return False
        return tier in self.shadow_tiers or _matches(self.shadow_hooks, name, origin)


NO_TIERS = TierSettings()


def read_tier_settings(
    data: Mapping[str, Any], level: Level, file: str, problems: list[Diagnostic]
) -> TierSettings:
    """The `tiers` and `shadow` keys of one policy file."""
    placed: list[tuple[Tier, tuple[str, ...]]] = []
    shadow_tiers: set[Tier] = set()
    tiers = data.get("tiers") or {}
    if not isinstance(tiers, Mapping):
        problems.append(Diagnostic(file, "tiers", "expected a mapping of tier names"))
        tiers = {}
    for name, entry in tiers.items():
        where = f"tiers.{name}"
        if name not in TIERS:
            hint = did_you_mean(str(name), TIERS)
            problems.append(Diagnostic(file, where, f"unknown tier {name!r}{hint}"))
            continue
        if not isinstance(entry, Mapping):
            problems.append(Diagnostic(file, where, "expected a mapping (hooks, mode)"))
            continue
        for key in entry:
            if key not in _TIER_KEYS:
                problems.append(Diagnostic(file, f"{where}.{key}", f"unknown key {key!r}"))
        globs = _globs(entry.get("hooks"), file, f"{where}.hooks", problems)
        if globs and _may_place(name, level, file, where, problems):
            placed.append((name, globs))
        shadow = _shadow_mode(entry.get("mode"), file, f"{where}.mode", problems)
        if shadow and _may_shadow(name, level, file, f"{where}.mode", problems):
            shadow_tiers.add(name)
    hooks = _globs(data.get("shadow"), file, "shadow", problems)
    return TierSettings(tuple(placed), frozenset(shadow_tiers), hooks, REACH[level])


def _globs(value: Any, file: str, where: str, problems: list[Diagnostic]) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(glob, str) for glob in value):
        return tuple(value)
    problems.append(Diagnostic(file, where, "expected a name or a list of names; not applied"))
    return ()


def _shadow_mode(value: Any, file: str, where: str, problems: list[Diagnostic]) -> bool:
    if value is None or value == "enforce":
        return False
    if value == "shadow":
        return True
    got = f"expected shadow or enforce, got {value!r}; read as enforce"
    problems.append(Diagnostic(file, where, got))
    return False


def _may_place(tier: Tier, level: Level, file: str, where: str, problems: list[Diagnostic]) -> bool:
    if tier in _PLACED and level == "managed":
        return True
    why = (
        "only the managed policy file places hooks"
        if tier in _PLACED
        else "hooks are placed only in managed-prepend or managed-append"
    )
    problems.append(Diagnostic(file, f"{where}.hooks", f"{why}; not applied", "warning"))
    return False


def _may_shadow(
    tier: Tier, level: Level, file: str, where: str, problems: list[Diagnostic]
) -> bool:
    if tier in REACH[level]:
        return True
    why = f"a {level} policy file cannot put the {tier} tier in shadow mode; not applied"
    problems.append(Diagnostic(file, where, why, "warning"))
    return False


__all__ = ["NO_TIERS", "REACH", "SOURCE_TIER", "TierSettings", "read_tier_settings"]
