"""JSON Schema (2020-12) of a skill's `hooks/hooks.json`, for editors; the rules are
`skills.config`'s (unknown keys are allowed there, so they are here)."""

from __future__ import annotations

from typing import Any

from hookwright.dialects.skills.config import ROLES, TIMINGS


def json_schema() -> dict[str, Any]:
    hook = {
        "type": "object",
        "required": ["name", "file", "timing", "role", "persistent"],
        "properties": {
            "name": {"type": "string", "minLength": 1, "description": "Unique within the skill."},
            "file": {
                "type": "string",
                "description": "The prompt's Markdown file, inside the skill's hooks/ folder.",
            },
            "timing": {"enum": list(TIMINGS), "description": "The checkpoint it fires at."},
            "role": {"enum": list(ROLES)},
            "persistent": {
                "type": "boolean",
                "description": "Kept in the conversation (true) or for the next model call only.",
            },
            "tool_filter": {
                "type": ["array", "null"],
                "items": {"type": "string"},
                "minItems": 1,
                "description": "after_tool_call only: the tools it fires after (null: every one).",
            },
        },
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Skill hooks (skills/<skill>/hooks/hooks.json)",
        "type": "object",
        "required": ["hooks"],
        "properties": {"hooks": {"type": "array", "items": hook}},
    }
