"""Tool names as hooks see them, and a suggestion for a name a host does not have.

Hooks see every host's tools by Claude Code's names (`Bash`, `Read`, ...); a hook written for
another agent often names that agent's tool instead (`read_file`, `exec`, `search_text`) and
then never fires. `unknown_tool` says so, naming the tool that was likely meant."""

from __future__ import annotations

from collections.abc import Collection

from hookwright.core.validation import did_you_mean

#: The reference agent's tools (`hookwright run`, `chat`, `serve`), as hooks see them; tools
#: of MCP servers (`mcp__<server>__<tool>`) come and go with the servers.
REFERENCE_AGENT_TOOLS: tuple[str, ...] = ("Bash", "Read", "Write", "Edit", "Glob", "Grep", "Agent")

#: Other agents' names for these tools (PicoClaw, OpenHarness, Gemini CLI, skill examples).
OTHER_AGENTS_NAMES: dict[str, str] = {
    "exec": "Bash",
    "shell": "Bash",
    "run_shell": "Bash",
    "run_shell_command": "Bash",
    "execute_command": "Bash",
    "read_file": "Read",
    "read_many_files": "Read",
    "view": "Read",
    "write_file": "Write",
    "create_file": "Write",
    "edit_file": "Edit",
    "replace": "Edit",
    "str_replace": "Edit",
    "search_text": "Grep",
    "search_file_content": "Grep",
    "grep_search": "Grep",
    "glob": "Glob",
    "find_files": "Glob",
    "list_files": "Glob",
    "list_dir": "Glob",
    "list_directory": "Glob",
    "Task": "Agent",
    "spawn_agent": "Agent",
}


def unknown_tool(name: str, tools: Collection[str]) -> str | None:
    """None when `name` is one of `tools` (or an MCP tool's name, which only a running server
    knows); else one line saying so, with the tool likely meant."""
    if name in tools or name.startswith("mcp__"):
        return None
    meant = OTHER_AGENTS_NAMES.get(name)
    hint = f" (did you mean {meant!r}?)" if meant in tools else did_you_mean(name, tools)
    return f"{name!r} is not a tool of this host{hint}; its tools: {', '.join(tools)}"
