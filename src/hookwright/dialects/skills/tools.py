"""A skill hook's `tool_filter` checked against the tools of the host that runs it: a name the
host does not have (`read_file` where the tools are `Read` and `Grep`) never matches, so the
hook never fires for it. Each such name is a warning that says which tool was likely meant."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from pathlib import Path

from hookwright.config.loading import Diagnostic
from hookwright.core.tool_names import unknown_tool
from hookwright.dialects.skills.config import HOOKS_DIR, HOOKS_FILE, HookInfo


def tool_filter_warnings(
    hooks: Iterable[HookInfo], skills_dir: Path, tools: Collection[str]
) -> list[Diagnostic]:
    """One warning per `tool_filter` name of an after_tool_call hook that is not in `tools`,
    naming the skill's hooks.json, the hook and the tool likely meant."""
    warnings: list[Diagnostic] = []
    for hook in hooks:
        if hook.timing != "after_tool_call" or not hook.tool_filter:
            continue
        config = skills_dir / hook.skill / HOOKS_DIR / HOOKS_FILE
        for name in hook.tool_filter:
            problem = unknown_tool(name, tools)
            if problem is not None:
                message = f"skill {hook.skill!r} hook {hook.name!r}: {problem}: never fires for it"
                warnings.append(Diagnostic(str(config), "tool_filter", message, "warning"))
    return warnings
