"""How a host's tools look to hooks: a framework's `run_shell(cmd)` seen by every hook as
`Bash(command)`, and hook rewrites mapped back to the host's names (each tool's
`tool_alias.ToolAlias`, made by the hosts that rename tools)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from hookwright.core.events import TOOL_EVENTS
from hookwright.core.spec import HookSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hookwright.host.tool_alias import ToolAlias


class ToolMap:
    """Both directions of the tool-name and argument mapping; tools without an alias keep
    their names."""

    def __init__(self, aliases: Iterable[ToolAlias] = ()) -> None:
        self._by_host = {a.host_name: a for a in aliases}
        self._by_hook = {a.hook_name: a for a in self._by_host.values()}

    def to_hooks(self, name: str, arguments: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        alias = self._by_host.get(name)
        if alias is None:
            return name, dict(arguments)
        renames = alias.arguments
        return alias.hook_name, {renames.get(k, k): v for k, v in arguments.items()}

    def to_host(self, name: str, arguments: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        alias = self._by_hook.get(name)
        if alias is None:
            return name, dict(arguments)
        back = {hook: host for host, hook in alias.arguments.items()}
        return alias.host_name, {back.get(k, k): v for k, v in arguments.items()}

    def hook_names(self, host_tools: Iterable[str]) -> list[str]:
        return [self.to_hooks(name, {})[0] for name in host_tools]


def unmatched_tool_hooks(specs: Iterable[HookSpec], hook_tool_names: Iterable[str]) -> list[str]:
    """One line per tool-event hook whose matcher matches none of the host's tools (seen by
    hooks' names): such a hook can never fire in this host."""
    names = list(hook_tool_names)
    problems: list[str] = []
    for spec in specs:
        matcher = spec.matcher
        if spec.event not in TOOL_EVENTS or matcher is None or not names:
            continue
        if not any(matcher.matches(name) for name in names):
            problems.append(
                f"warning: hook {spec.describe()} on {spec.event.value}: matcher "
                f"{matcher.pattern!r} matches none of this host's tools ({', '.join(names)})"
            )
    return problems
