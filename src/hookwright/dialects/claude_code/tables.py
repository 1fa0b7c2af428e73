"""Per-event facts of Claude Code's hook contract (spec §1.3, §1.4, §4.2, §4.5, §6, §7.3).

Every rule that differs by event lives here as a table, so the codec reads as the algorithm and
the tables read as the spec.
"""

from __future__ import annotations

from hookwright.core.events import CLAUDE_CODE_EVENTS, CLAUDE_CODE_LATER_EVENTS, MATCH_FIELD, Event

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Literal, TypeAlias

HookType: TypeAlias = "Literal['command', 'http', 'mcp_tool', 'prompt', 'agent']"

E = Event

#: Event names a Claude Code config may use, in some Claude Code version (the profile a
#: session imitates says which it has: `dialects.claude_profiles`).
EVENT_NAMES: Final[frozenset[str]] = frozenset(
    event.value for event in (*CLAUDE_CODE_EVENTS, *CLAUDE_CODE_LATER_EVENTS)
)

_ALL_TYPES: Final[frozenset[str]] = frozenset({"command", "http", "mcp_tool", "prompt", "agent"})
_NO_MODEL: Final[frozenset[str]] = frozenset({"command", "http", "mcp_tool"})

#: Handler types each event accepts (§1.3).
ACCEPTED_TYPES: Final[dict[Event, frozenset[str]]] = {
    **{
        event: _ALL_TYPES
        for event in (
            E.PreToolUse,
            E.PostToolUse,
            E.PostToolUseFailure,
            E.PostToolBatch,
            E.PermissionRequest,
            E.PermissionDenied,
            E.UserPromptSubmit,
            E.UserPromptExpansion,
            E.Stop,
            E.SubagentStop,
            E.TaskCreated,
            E.TaskCompleted,
            E.TeammateIdle,
            E.PreModelSwitch,
            E.PostModelSwitch,
            E.PreSkillShellCommand,
        )
    },
    **{
        event: _NO_MODEL
        for event in (
            E.ConfigChange,
            E.CwdChanged,
            E.DirectoryAdded,
            E.Elicitation,
            E.ElicitationResult,
            E.FileChanged,
            E.InstructionsLoaded,
            E.MessageDisplay,
            E.Notification,
            E.PostCompact,
            E.PreCompact,
            E.SessionEnd,
            E.StopFailure,
            E.SubagentStart,
            E.WorktreeCreate,
            E.WorktreeRemove,
        )
    },
    E.SessionStart: frozenset({"command", "mcp_tool"}),
    E.Setup: frozenset({"command", "mcp_tool"}),
}

#: Events with a matcher field; a matcher on any other event is ignored (§2.2).
MATCHER_EVENTS: Final[frozenset[Event]] = frozenset(
    e for e in CLAUDE_CODE_EVENTS if e in MATCH_FIELD
)
#: Events whose matcher uses the narrow pre-2.1.191 exact-name character set (§2.1).
NARROW_MATCHER_EVENTS: Final[frozenset[Event]] = frozenset({E.FileChanged, E.StopFailure})

#: Default timeouts in seconds (§1.4).
DEFAULT_TIMEOUT: Final[float] = 600.0
PROMPT_TIMEOUT: Final[float] = 30.0
AGENT_TIMEOUT: Final[float] = 60.0
EVENT_TIMEOUT: Final[dict[Event, float]] = {E.UserPromptSubmit: 30.0, E.MessageDisplay: 10.0}
#: SessionEnd hooks share a small budget (§1.4).
SESSION_END_BUDGET: Final[float] = 1.5
SESSION_END_MAX: Final[float] = 60.0


def default_timeout(hook_type: str, event: Event) -> float:
    if hook_type == "prompt":
        return PROMPT_TIMEOUT
    if hook_type == "agent":
        return AGENT_TIMEOUT
    return EVENT_TIMEOUT.get(event, DEFAULT_TIMEOUT)


#: Exit 2 blocks (or, on PostToolUse/PostToolUseFailure, feeds stderr back to Claude) (§6).
EXIT2_BLOCKS: Final[frozenset[Event]] = frozenset(
    {
        E.PreToolUse,
        E.UserPromptSubmit,
        E.UserPromptExpansion,
        E.PostToolUse,
        E.PostToolUseFailure,
        E.PostToolBatch,
        E.Stop,
        E.SubagentStop,
        E.TaskCreated,
        E.TaskCompleted,
        E.TeammateIdle,
        E.ConfigChange,
        E.PreCompact,
        E.Elicitation,
        E.ElicitationResult,
        E.WorktreeCreate,
        E.PreModelSwitch,
        E.PreSkillShellCommand,
    }
)
#: Exit 2 is not honoured and its stderr is dropped; the JSON decision alone counts.
EXIT2_IGNORED: Final[frozenset[Event]] = frozenset({E.PermissionRequest})
#: Events whose hookSpecificOutput is not read on exit 2 (§4.2).
EXIT2_SKIPS_SPECIFIC: Final[frozenset[Event]] = frozenset({E.Elicitation, E.ElicitationResult})

#: Output discarded: only `terminalSequence` acts (§6, §4.2 exceptions).
OUTPUT_DISCARDED: Final[frozenset[Event]] = frozenset(
    {
        E.Notification,
        E.StopFailure,
        E.InstructionsLoaded,
        E.SessionEnd,
        E.PostCompact,
        E.WorktreeRemove,
    }
)

#: `continue: false` stops Claude on these events and is discarded elsewhere (§4.5).
CONTINUE_HONOURED: Final[frozenset[Event]] = frozenset(
    {
        E.PreToolUse,
        E.PostToolUse,
        E.PostToolUseFailure,
        E.PermissionRequest,
        E.PermissionDenied,
        E.UserPromptSubmit,
        E.UserPromptExpansion,
        E.Stop,
        E.SubagentStop,
        E.PostToolBatch,
        E.SessionStart,
        E.Setup,
        E.SubagentStart,
        E.TeammateIdle,
        E.TaskCompleted,
    }
)
#: `systemMessage` reaches the user (or, for DirectoryAdded, Claude) on these events (§4.5).
SYSTEM_MESSAGE_KEPT: Final[frozenset[Event]] = CONTINUE_HONOURED | {
    E.TaskCreated,
    E.CwdChanged,
    E.FileChanged,
    E.DirectoryAdded,
}

#: Events where top-level `decision: "block"` means something (§7.3).
TOP_LEVEL_BLOCK: Final[frozenset[Event]] = frozenset(
    {
        E.UserPromptSubmit,
        E.UserPromptExpansion,
        E.PostToolUse,
        E.PostToolUseFailure,
        E.PostToolBatch,
        E.Stop,
        E.SubagentStop,
        E.ConfigChange,
        E.PreCompact,
        E.TaskCreated,
    }
)

#: Events whose `hookSpecificOutput.additionalContext` is delivered to Claude.
ADDITIONAL_CONTEXT: Final[frozenset[Event]] = frozenset(
    {
        E.PreToolUse,
        E.PostToolUse,
        E.PostToolUseFailure,
        E.PostToolBatch,
        E.UserPromptSubmit,
        E.UserPromptExpansion,
        E.SessionStart,
        E.Setup,
        E.SubagentStart,
        E.Stop,
        E.SubagentStop,
        E.PostModelSwitch,
    }
)
#: Plain stdout of a successful hook becomes Claude context on these events (§4.2).
PLAIN_STDOUT_CONTEXT: Final[frozenset[Event]] = frozenset(
    {E.UserPromptSubmit, E.UserPromptExpansion, E.SessionStart}
)
#: Command hooks on these events get `CLAUDE_ENV_FILE` (§8).
ENV_FILE_EVENTS: Final[frozenset[Event]] = frozenset(
    {E.SessionStart, E.Setup, E.CwdChanged, E.FileChanged}
)

#: A deny's reason when the hook gave none.
DEFAULT_DENY_REASON: Final[str] = "Blocked by hook"
#: A PreSkillShellCommand answer that rewrites the command blocks it: the rewrite is never run.
SKILL_REWRITE_REFUSED: Final[str] = (
    "A PreSkillShellCommand hook answered updatedInput, which is never applied; the command "
    "is blocked"
)

#: The blocking answer of an event: "deny" for permission checks, "block" elsewhere.
DENY_EVENTS: Final[frozenset[Event]] = frozenset(
    {E.PreToolUse, E.PermissionRequest, E.PreModelSwitch, E.PreSkillShellCommand}
)

#: Hook output strings longer than this are saved to a file and replaced by a preview (§3).
OUTPUT_CAP: Final[int] = 10_000
#: PostToolUse `classifierContext` cap (§6).
CLASSIFIER_CONTEXT_CAP: Final[int] = 2_000

#: Events whose payload a `{"ok": false}` prompt answer ends the turn on, unless
#: `continueOnBlock` (§7.4).
PROMPT_ENDS_TURN: Final[frozenset[Event]] = frozenset(
    {E.PreToolUse, E.PostToolUse, E.PostToolBatch, E.UserPromptSubmit, E.UserPromptExpansion}
)
#: Events where `continueOnBlock` can soften a prompt block into feedback.
PROMPT_CONTINUE_ON_BLOCK: Final[frozenset[Event]] = frozenset({E.PreToolUse, E.PostToolUse})
#: A prompt `{"ok": false}` has no effect here.
PROMPT_NO_EFFECT: Final[frozenset[Event]] = frozenset({E.PermissionRequest, E.PermissionDenied})
