"""`ToolAlias`: one host tool as hooks see it, the entry of a `hookwright.host.toolmap.ToolMap`.

Apart from the map every session has (empty, for a host whose tools hooks see by their own
names, as Claude Code's): it loads with a host that renames its tools (PicoClaw, Gemini CLI,
a framework's adapter).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ToolAlias:
    """One host tool as hooks see it: its hook-facing name and argument renames
    (host argument -> hook argument)."""

    host_name: str
    hook_name: str
    arguments: Mapping[str, str] = field(default_factory=dict)


__all__ = ["ToolAlias"]
