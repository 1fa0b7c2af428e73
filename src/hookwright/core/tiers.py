"""The policy tiers, in run order: the organisation's hooks first, the user's, the project's,
then the organisation's again (`hookwright.config.policy`). Imports nothing: the policy is
read where the engine's data model is not loaded."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal, TypeAlias

Tier: TypeAlias = "Literal['managed-prepend', 'user', 'project', 'managed-append']"
TIERS: tuple[Tier, ...] = ("managed-prepend", "user", "project", "managed-append")
#: A hook without a tier (no policy file, or one the host program registers) ranks first.
TIER_RANK: dict[str | None, int] = {None: 0, **{tier: rank for rank, tier in enumerate(TIERS)}}

__all__ = ["TIERS", "TIER_RANK", "Tier"]
