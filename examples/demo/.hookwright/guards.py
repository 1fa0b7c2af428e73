"""The demo's Python hooks: rewrite an argument, add context."""

from __future__ import annotations

import shlex
from typing import Any

from hookwright import HookInput, HookResult, add_context, rewrite_input


def dry_run_push(inp: HookInput) -> HookResult:
    """Pushes are rehearsed: the command is replaced by an echo of what would run."""
    command = inp.tool_input.get("command", "")
    new_input: dict[str, Any] = {
        **inp.tool_input,
        "command": f"echo {shlex.quote('dry run: ' + command)}",
    }
    return rewrite_input(new_input, reason="pushes are rehearsed as dry runs")


def project_facts(inp: HookInput) -> HookResult:
    return add_context("This demo project has no remote; pushes are dry runs.")
