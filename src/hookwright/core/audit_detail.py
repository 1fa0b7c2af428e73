"""The details an audit record carries only for some hooks: who decided a permission outcome
(`PermissionSource`), how each hook moved its dispatch's verdict (`VerdictLink`, for hooks with
a policy tier), and which hook's answer kept a selected hook from running (`CutBy`).

They live apart from `AuditRecord` (`hookwright.core.audit_record`), which names them in
annotations alone: a dispatch without permission records, tiers or cut hooks makes none, so a
process answering one such event does not load them.
"""

from __future__ import annotations

from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias

#: Who or what decided a permission outcome: a permission rule, a person answering a prompt,
#: a hook's decision, or the permission mode.
Decider: TypeAlias = "Literal['rule', 'person', 'hook', 'mode']"
#: Where a person answered a permission prompt: the terminal of `hookwright chat` / `run`, the
#: page of `hookwright serve`, or a host's own approval callback (an adapter's framework
#: callback or interrupt, an embedding's `ask_user`).
PromptChannel: TypeAlias = "Literal['terminal', 'page', 'callback']"


@dataclass(slots=True, frozen=True)
class PermissionSource:
    """Who allowed, asked about or denied a tool call (a permission record's `permission`).

    `name`: the rule's text, the hook's name, the mode, or ``user`` for a person; `file`: the
    settings file the rule came from, when known; `mode`: the permission mode the call was
    decided under; `channel`: where the person answered (person records only)."""

    by: Decider
    name: str
    mode: str
    file: str | None = None
    channel: PromptChannel | None = None

    def to_dict(self) -> dict[str, Any]:
        """`channel` only on a person's record (the others keep the shape they always had)."""
        data = {"by": self.by, "name": self.name, "mode": self.mode, "file": self.file}
        if self.channel is not None:
            data["channel"] = self.channel
        return data


#: How one hook's decision moved the verdict of its dispatch: made it stricter, looser, or
#: left it as the hooks before it had it.
Change: TypeAlias = "Literal['tightened', 'loosened', 'kept']"


@dataclass(slots=True, frozen=True)
class VerdictLink:
    """One step of a verdict's chain: `hook` (of policy `tier`, when it has one) decided
    `decision`, which `change`d the verdict the hooks before it (in the order the engine ran
    them) had reached."""

    hook: str
    decision: str
    change: Change
    tier: str | None = None

    def to_dict(self) -> dict[str, str]:
        data = {"hook": self.hook, "decision": self.decision, "change": self.change}
        if self.tier is not None:
            data["tier"] = self.tier
        return data


@dataclass(slots=True, frozen=True)
class CutBy:
    """What kept a selected hook from running (a `cut` record's `cut_by`): `hook`, whose
    `decision` (`deny`, `block`, `defer`, `respond`, `abort`, `stop`) ended the dispatch
    before the hook's stage."""

    hook: str
    decision: str

    def to_dict(self) -> dict[str, str]:
        return {"hook": self.hook, "decision": self.decision}


__all__ = [
    "Change",
    "CutBy",
    "Decider",
    "PermissionSource",
    "PromptChannel",
    "VerdictLink",
]
