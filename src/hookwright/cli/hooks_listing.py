"""`hooks list --json`: the listed hooks in the shape of Claude Code's hooks listing (the
SDK's `get_hooks_listing` answer, 2.1.332): `events`, `hooks`, `eventCatalog`, `policy` and,
when settings files could not be read, `errors`. Hooks of every dialect are listed with
Claude Code's field names; what only hookwright knows about a hook (its dialect, how it
fails and what closed it, why it will not run, the file that declares it, its tier) is under
each hook's `hookwright` key, every field of the table's row."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict

from hookwright.cli.hooktable import HookRow
from hookwright.core.events import MATCH_FIELD, Event

#: The key on each listed hook holding hookwright's own facts about it.
EXTENSION_KEY = "hookwright"

#: hookwright's hook sources by Claude Code's source names (sources without one keep theirs).
SOURCE_NAMES: dict[str, str] = {
    "managed": "policySettings",
    "flag": "flagSettings",
    "local": "localSettings",
    "project": "projectSettings",
    "user": "userSettings",
    "plugin": "pluginHook",
    "in-process": "sessionHook",
    "session": "sessionHook",
    "host": "sessionHook",
    "skill": "sessionHook",
}
SOURCE_LABELS: dict[str, str] = {
    "policySettings": "Managed settings (set by your organization)",
    "flagSettings": "Settings given on the command line",
    "localSettings": "Local project settings",
    "projectSettings": "Project settings",
    "userSettings": "User settings",
    "pluginHook": "Plugin hooks",
    "sessionHook": "Session hooks (registered by code or a skill)",
}
#: Claude Code's hook types, read from a Claude Code hook's listed name (`<type>:<text>`).
CLAUDE_CODE_TYPES = ("command", "prompt", "agent", "http", "mcp_tool", "script")
CONTENT_LABELS = {
    "command": "Command",
    "prompt": "Prompt",
    "agent": "Prompt",
    "http": "URL",
    "mcp_tool": "MCP tool",
    "script": "Script",
}
#: Reasons a declared hook never runs (a missing program still runs, and fails).
DISABLED_REASONS = ("untrusted", "not_bound")
SUMMARIES: dict[Event, str] = {
    Event.SessionStart: "When a session starts or resumes",
    Event.Setup: "When the project is set up",
    Event.InstructionsLoaded: "When an instructions file is loaded",
    Event.UserPromptSubmit: "When the user submits a prompt",
    Event.UserPromptExpansion: "When a prompt's command or mention is expanded",
    Event.MessageDisplay: "Before a message is shown",
    Event.PreToolUse: "Before a tool runs",
    Event.PermissionRequest: "When a permission prompt would show",
    Event.PermissionDenied: "After a tool call is denied",
    Event.PostToolUse: "After a tool runs",
    Event.PostToolUseFailure: "After a tool fails",
    Event.PostToolBatch: "After a batch of tool calls",
    Event.Notification: "When a notification is sent",
    Event.SubagentStart: "When a subagent starts",
    Event.SubagentStop: "When a subagent finishes",
    Event.TaskCreated: "When a task is created",
    Event.TaskCompleted: "When a task is completed",
    Event.Stop: "When the agent is about to stop",
    Event.StopFailure: "When a turn ends on an error",
    Event.TeammateIdle: "When a teammate goes idle",
    Event.ConfigChange: "When a settings file changes",
    Event.CwdChanged: "When the working directory changes",
    Event.DirectoryAdded: "When a working directory is added",
    Event.FileChanged: "When a watched file changes",
    Event.WorktreeCreate: "When a worktree is created",
    Event.WorktreeRemove: "When a worktree is removed",
    Event.PreCompact: "Before the conversation is compacted",
    Event.PostCompact: "After the conversation is compacted",
    Event.Elicitation: "When an MCP server asks the user for input",
    Event.ElicitationResult: "When the user answers an MCP server",
    Event.SessionEnd: "When a session ends",
    Event.PrePlanning: "Before the agent plans a turn",
    Event.PreAgentStep: "Before each agent step",
    Event.PreContextBuild: "Before the model's context is built",
    Event.PostContextBuild: "After the model's context is built",
    Event.PreModelCall: "Before each model call",
    Event.PostModelCall: "After each model call",
    Event.Interrupt: "When the user interrupts a running turn",
    Event.PreModelSwitch: "Before the model is switched",
    Event.PostModelSwitch: "After the model is switched",
    Event.PreSkillShellCommand: "Before a skill's shell command runs",
}


def revealed(text: str) -> str:
    """`text` on one line with its control characters shown as escapes, as Claude Code's
    listing shows display strings."""
    return "".join(ch if ch.isprintable() else f"\\u{ord(ch):04x}" for ch in text)


def _type_and_text(row: HookRow) -> tuple[str, str]:
    """A Claude Code hook's type and what it runs, from its listed name; for another
    dialect's hook, the dialect stands for the type and the name for what runs."""
    kind, sep, text = row.name.partition(":")
    if row.dialect == "claude_code" and sep and kind in CLAUDE_CODE_TYPES:
        return kind, text
    return row.dialect, row.name


def listed_hook(row: HookRow) -> dict[str, object]:
    """One hook in Claude Code's listing row shape, with hookwright's row under
    `EXTENSION_KEY`."""
    source = SOURCE_NAMES.get(row.source, row.source)
    kind, text = _type_and_text(row)
    entry: dict[str, object] = {
        "event": "" if row.event == "-" else row.event,
        "matcher": "" if row.matcher == "*" else revealed(row.matcher),
        "source": source,
        "sourceLabel": SOURCE_LABELS.get(source, f"{row.source} hooks"),
        "type": kind,
        "displayText": revealed(text),
        "commandText": revealed(text),
        "contentLabel": CONTENT_LABELS.get(kind, "Definition"),
    }
    if row.if_rule:
        entry["condition"] = revealed(row.if_rule)
    if row.timeout is not None:
        entry["timeout"] = row.timeout
    if row.once:
        entry["runsOnce"] = True
    if row.not_run in DISABLED_REASONS:
        entry["disabled"] = True
    entry[EXTENSION_KEY] = asdict(row)
    return entry


def _grouped(rows: Sequence[HookRow]) -> list[HookRow]:
    """Rows by event in lifecycle order, then by matcher in first-seen order (dispatch
    order kept within a matcher); hooks whose event only their code knows come last."""
    order = {event.value: i for i, event in enumerate(Event)}
    matchers: dict[tuple[str, str], int] = {}
    for row in rows:
        matchers.setdefault((row.event, row.matcher), len(matchers))
    return sorted(
        rows, key=lambda r: (order.get(r.event, len(order)), matchers[(r.event, r.matcher)])
    )


def hooks_listing(
    rows: Sequence[HookRow], unreadable: Sequence[tuple[str, str]] = ()
) -> dict[str, object]:
    """The listing of `rows` (`hooktable.collect`); `unreadable` the settings files skipped
    whole, each with why, so their hooks are neither listed nor run."""
    grouped = _grouped(rows)
    events = [
        {
            "name": event.value,
            "summary": SUMMARIES[event],
            "supportsMatcher": event in MATCH_FIELD,
            "hookCount": count,
        }
        for event in Event
        if (count := sum(1 for row in grouped if row.event == event.value))
    ]
    listing: dict[str, object] = {
        "events": events,
        "hooks": [listed_hook(row) for row in grouped],
        "eventCatalog": [
            {"name": e.value, "summary": SUMMARIES[e], "supportsMatcher": e in MATCH_FIELD}
            for e in Event
        ],
        "policy": {
            "disabledByPolicy": False,
            "managedOnly": False,
            "pluginOnly": False,
            "allDisabled": False,
            "policyHookCount": sum(1 for row in rows if row.source == "managed"),
        },
    }
    if unreadable:
        listing["errors"] = [
            {"file": file, "path": "", "message": message} for file, message in unreadable
        ]
    return listing
