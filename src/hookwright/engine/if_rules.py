"""Whether a hook's `if` rule takes one input: the engine's selection of every dispatch
(`HookEngine.select`) and its explanation (`engine.selection`) apply the same rule from here."""

from __future__ import annotations

from hookwright.core.events import TOOL_EVENTS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hookwright.core.events import HookInput
    from hookwright.core.matching import IfRule


def if_rule_matches(rule: IfRule, inp: HookInput) -> bool:
    """An `if` rule is checked on tool events only; on any other event it never matches. On
    an MCP tool only the exact tool name matches (`mcp__srv__echo`, `mcp__srv__echo(*)`),
    as measured in Claude Code 2.1.240: not `mcp__srv`, globs such as `mcp__srv__*`, nor a
    content pattern. An action rule (``FileWrite(/etc/**)``) reads the input's actions,
    whatever the tool."""
    if inp.event not in TOOL_EVENTS:
        return False
    if rule.reads_actions:
        return rule.matches(inp.tool_name or "", inp.tool_input, cwd=inp.cwd, actions=inp.actions)
    name = inp.tool_name or ""
    if name.startswith("mcp__"):
        return rule.names_exactly(name)
    return rule.matches(
        inp.tool_name or "",
        inp.tool_input,
        cwd=inp.cwd,
        project_dir=inp.payload.get("project_dir"),
    )


__all__ = ["if_rule_matches"]
