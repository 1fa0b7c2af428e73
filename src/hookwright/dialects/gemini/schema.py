"""The JSON Schema (2020-12) of the hooks of a Gemini CLI `settings.json`, for an editor
(`hookwright schema gemini`): `hooksConfig` and `hooks`, as `loader.discover` reads them; the
file's other keys are Gemini's own and left open."""

from __future__ import annotations

from typing import Any

from hookwright.dialects.gemini.codec import DEFAULT_TIMEOUT_MS
from hookwright.dialects.gemini.events import EVENTS, TOOL_EVENTS, TRIGGER_FIELDS

_HANDLER = {
    "type": "object",
    "required": ["type", "command"],
    "properties": {
        "type": {"const": "command", "description": "Settings files hold command hooks only."},
        "command": {"type": "string", "minLength": 1, "pattern": r"\S"},
        "name": {"type": "string", "description": "What `hooksConfig.disabled` names."},
        "timeout": {
            "type": "number",
            "exclusiveMinimum": 0,
            "description": f"Milliseconds (default {DEFAULT_TIMEOUT_MS}).",
        },
        "description": {"type": "string"},
        "env": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}

_HOOKS_CONFIG: dict[str, Any] = {
    "type": "object",
    "properties": {
        "enabled": {"type": "boolean"},
        "disabled": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Hook names (a hook's `name`, else its command) that do not run.",
        },
        "notifications": {"type": "boolean"},
    },
}


def _matcher(event: str) -> dict[str, Any]:
    if event in TOOL_EVENTS:
        return {"type": "string", "description": "A regex searched in the Gemini tool name."}
    if event in TRIGGER_FIELDS:
        return {"type": "string", "description": f"The exact `{TRIGGER_FIELDS[event]}`."}
    return {"type": "string", "description": "Ignored on this event."}


def _groups(event: str) -> dict[str, Any]:
    group = {
        "type": "object",
        "required": ["hooks"],
        "properties": {
            "matcher": _matcher(event),
            "sequential": {"type": "boolean"},
            "hooks": {"type": "array", "items": {"$ref": "#/$defs/Handler"}},
        },
    }
    return {"type": "array", "items": group}


def json_schema() -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Gemini CLI settings (hooks)",
        "type": "object",
        "properties": {
            "hooksConfig": {"$ref": "#/$defs/HooksConfig"},
            "hooks": {
                "type": "object",
                # `enabled`, `disabled` and `notifications` are also read here (older files).
                "properties": {
                    **_HOOKS_CONFIG["properties"],
                    **{event: _groups(event) for event in EVENTS},
                },
                "additionalProperties": False,
            },
        },
        "$defs": {"Handler": _HANDLER, "HooksConfig": _HOOKS_CONFIG},
    }
