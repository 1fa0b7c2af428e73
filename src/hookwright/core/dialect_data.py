"""`DialectData`: the base of a dialect's own record on a `HookSpec` (`HookSpec.dialect_data`).

Apart from `HookSpec` (`hookwright.core.spec`), which names it in an annotation alone: it loads
with the first dialect that defines a record of its own (skills, PicoClaw, Gemini), not with
every spec.
"""

from __future__ import annotations

from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hookwright.core.events import HookInput


@dataclass(frozen=True, slots=True)
class DialectData:
    """Base of a dialect's own frozen record on a `HookSpec` (`HookSpec.dialect_data`): each
    dialect subclasses it with typed fields and reads its own with `isinstance`.

    A dialect whose hooks select by a field of their own, inside the hook rather than by a
    matcher (a skill hook's `tool_filter`), says so with the two methods below, which the
    views (`hooks list`, `--explain`, the debug trace) read; the engine never calls them."""

    def shown_matcher(self) -> str | None:
        """What the views show as the hook's matcher (None: its matcher, if any)."""
        return None

    def selection_reason(self, inp: HookInput) -> str | None:
        """Whether the hook's own selection takes `inp`, in words (None: it has none)."""
        return None


__all__ = ["DialectData"]
