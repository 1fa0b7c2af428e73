"""Skill prompt hooks: prompts a skill declares in ``hooks/hooks.json``, inserted into the message
list at five checkpoints of the agent flow and pulled out again at fixed points.

Public entry point for users is `hookwright.skills`. This package imports no other dialect.
"""

from __future__ import annotations

from hookwright.dialects.skills.config import (
    TIMINGS,
    HookInfo,
    SkillHookError,
    available_skills,
    scan_hooks,
    skills_not_enabled,
    unknown_skills,
)
from hookwright.dialects.skills.flow import SkillHookFlow
from hookwright.dialects.skills.manager import HookManager

__all__ = [
    "TIMINGS",
    "HookInfo",
    "HookManager",
    "SkillHookError",
    "SkillHookFlow",
    "available_skills",
    "scan_hooks",
    "skills_not_enabled",
    "unknown_skills",
]
