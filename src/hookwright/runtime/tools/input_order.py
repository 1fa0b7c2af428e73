"""The order Claude Code writes a tool's input in for its hooks: its input schema's, whatever
order the model wrote the keys in; and its refusal of a key the schema does not have.

Claude Code parses a tool call's input with the tool's schema before any hook runs, and the
parsed object lists the schema's fields in the schema's order (measured with 2.1.240 and
2.1.332: Bash ``{"description", "command"}``, Write ``{"content", "file_path"}`` and Edit
``{"new_string", "old_string", "file_path"}`` reach PreToolUse, PostToolUse and PostToolBatch
in the order below). The orders are those of the input types Claude Code ships
(``sdk-tools.d.ts``, the same for every field both versions have; 2.1.332 added Agent's
``effort``, Read's ``allow_large`` and WebFetch's ``offset``).

An input the schema does not take is refused before any hook runs (`input_refusal`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

#: Claude Code's field order per tool. A tool not listed keeps the model's order.
INPUT_ORDER: Final[Mapping[str, tuple[str, ...]]] = {
    "Agent": (
        "description",
        "prompt",
        "subagent_type",
        "model",
        "effort",
        "run_in_background",
        "name",
        "team_name",
        "mode",
        "isolation",
    ),
    "Bash": ("command", "timeout", "description", "run_in_background", "dangerouslyDisableSandbox"),
    "Read": ("file_path", "offset", "limit", "pages", "allow_large"),
    "Write": ("file_path", "content"),
    "Edit": ("file_path", "old_string", "new_string", "replace_all"),
    "Glob": ("pattern", "path"),
    "Grep": (
        "pattern",
        "path",
        "glob",
        "output_mode",
        "-B",
        "-A",
        "-C",
        "context",
        "-n",
        "-i",
        "-o",
        "type",
        "head_limit",
        "offset",
        "multiline",
    ),
    "TaskCreate": ("subject", "description", "activeForm", "metadata"),
    "TaskUpdate": (
        "taskId",
        "subject",
        "description",
        "activeForm",
        "status",
        "addBlocks",
        "addBlockedBy",
        "owner",
        "metadata",
    ),
}


def unexpected_keys(tool: str, arguments: Mapping[str, Any]) -> list[str]:
    """The keys of `arguments` that `tool`'s schema does not have, in the model's order (none
    for a tool not listed)."""
    order = INPUT_ORDER.get(tool)
    return [] if order is None else [key for key in arguments if key not in order]


def in_schema_order(tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """`arguments` with the fields of `tool`'s schema in its order (as written when the
    schema refuses them, or `tool` is not listed)."""
    order = INPUT_ORDER.get(tool)
    if order is None or unexpected_keys(tool, arguments):
        return dict(arguments)
    return {key: arguments[key] for key in order if key in arguments}
