"""The JSON Schema (2020-12) of a Codex CLI `hooks.json`, for an editor (`hookwright schema
codex`): what `config.parse_events` reads. The same tables written inline under ``[hooks]`` in
`config.toml` follow it too (its ``hooks.state`` review entries aside)."""

from __future__ import annotations

from typing import Any

from hookwright.dialects.codex.config import (
    DEFAULT_TIMEOUT,
    EVENT_LABELS,
    SESSION_END_TIMEOUT,
    SHORT_DEFAULT_TIMEOUT,
)

_TIMEOUT = {
    "type": "integer",
    "minimum": 0,
    "description": (
        f"Seconds (default {DEFAULT_TIMEOUT}, at least 1; a SessionEnd or Interrupt hook's "
        f"default is {SHORT_DEFAULT_TIMEOUT}, and Codex caps it at {SESSION_END_TIMEOUT})."
    ),
}

_HANDLER = {
    "type": "object",
    "required": ["type", "command"],
    "properties": {
        "type": {
            "const": "command",
            "description": "Codex runs command hooks only (prompt and agent hooks are skipped).",
        },
        "command": {"type": "string", "minLength": 1, "pattern": r"\S"},
        "timeout": _TIMEOUT,
        "timeout_sec": {**_TIMEOUT, "description": "The same as `timeout`."},
        "async": {"type": "boolean", "description": "Run without waiting for the answer."},
        "statusMessage": {"type": "string"},
    },
}

_GROUP = {
    "type": "object",
    "required": ["hooks"],
    "properties": {
        "matcher": {
            "type": "string",
            "description": "Tool names: exact, a|b, a regex, or * / empty for all.",
        },
        "hooks": {"type": "array", "items": {"$ref": "#/$defs/Handler"}},
    },
}


def json_schema() -> dict[str, Any]:
    events = {name: {"type": "array", "items": {"$ref": "#/$defs/Group"}} for name in EVENT_LABELS}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Codex CLI hooks (hooks.json)",
        "type": "object",
        "properties": {
            "hooks": {"type": "object", "properties": events, "additionalProperties": False}
        },
        "$defs": {"Group": _GROUP, "Handler": _HANDLER},
    }
