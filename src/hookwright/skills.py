"""Skill prompt hooks, under the names the seed gives them::

    from hookwright.skills import HookManager, scan_hooks

    hooks = scan_hooks(["my-skill"])                 # reads ./skills/my-skill/hooks/hooks.json
    manager = HookManager(full_messages, hooks)
    for event in manager.inject("after_user_input"):  # persistent hooks: forward to the client
        ...

`SkillHookFlow` wraps a manager and runs the whole checkpoint/remove table for a host.
"""

from __future__ import annotations

from hookwright.dialects.skills import (
    TIMINGS,
    HookInfo,
    HookManager,
    SkillHookError,
    SkillHookFlow,
    scan_hooks,
)

__all__ = ["TIMINGS", "HookInfo", "HookManager", "SkillHookError", "SkillHookFlow", "scan_hooks"]
