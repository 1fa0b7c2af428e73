"""`onFailure: "block"` on command, http and mcp_tool hooks (Claude Code 2.1.295+): a failure
of the hook counts as exit code 2, so the action the event guards is blocked.

A failure, decided here once for every hook type (`command_failure`, `http_failure`,
`mcp_failure`): the hook could not start (a missing program, a refused connection, an MCP
server that is not connected), timed out, exited with a code other than 0 or 2, answered an
HTTP status other than 2xx, or answered JSON that does not parse or fails validation. An
mcp_tool hook also fails when its tool reports an error or answers without any hook field
(plain text, or JSON that is not a hook's answer), except on PreCompact and WorktreeCreate. A
hook whose answer blocks anyway (exit 1 with a JSON deny) keeps its own block.

`onFailure` is ignored for async command hooks and on Stop, SubagentStop, TaskCompleted and
TeammateIdle; for mcp_tool hooks also on SessionStart and Setup. On an event where exit code 2
does not block, a failure blocks nothing either.

The block reads as Claude Code writes it: ``[<hook>]: failed; blocking because onFailure is
"block"`` and, on the next line, what the hook said (its stderr, ``No stderr output``, the
parse or validation error); a timeout is ``[<hook>]: timed out; ...`` with nothing after.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from hookwright.config.safeparse import ParseError, load_json_text
from hookwright.core.events import Event, HookInput
from hookwright.core.results import Decision, HookResult, Status
from hookwright.dialects.claude_code.codec import NO_STDERR, can_block, parse_json_object
from hookwright.dialects.claude_code.config import CommandHook, HandlerConfig, McpToolHook
from hookwright.dialects.claude_code.notes import blocking_error
from hookwright.dialects.claude_code.tables import DENY_EVENTS, EXIT2_BLOCKS

E = Event

#: Events on which `onFailure` is ignored for every hook type.
EXEMPT_EVENTS: Final[frozenset[Event]] = frozenset(
    {E.Stop, E.SubagentStop, E.TaskCompleted, E.TeammateIdle}
)
#: mcp_tool hooks also ignore it here.
MCP_EXEMPT_EVENTS: Final[frozenset[Event]] = EXEMPT_EVENTS | {E.SessionStart, E.Setup}
#: Where a failure of a blocking hook blocks: where exit code 2 does, and PermissionRequest
#: (a denial with the failure as its message).
FAILURE_BLOCKS: Final[frozenset[Event]] = EXIT2_BLOCKS | {E.PermissionRequest}
#: Events whose mcp_tool hooks may answer in plain text (compact instructions, a path).
MCP_TEXT_ANSWERS: Final[frozenset[Event]] = frozenset({E.PreCompact, E.WorktreeCreate})

BECAUSE = 'blocking because onFailure is "block"'
MCP_BECAUSE = (
    f"{BECAUSE} and the hook got no usable answer from its MCP server. The user needs to fix "
    "the cause (in a session, /mcp shows the server's state) or ask whoever manages the hook; "
    "Claude should not change the hook or work around it."
)
MCP_DETAILS_LEFT_OUT = (
    " Details are left out of this message, since the MCP server may have written them. To see "
    "them, start Claude Code with --debug and try again: they go to its debug log."
)
MCP_CALL_FAILED = "The call to the MCP server failed."
MCP_TOOL_ERROR = "The MCP tool returned an error."
MCP_INVALID = "The MCP tool's answer looks like JSON, but is not a valid hook output."
MCP_NO_VERDICT = "The MCP tool's answer is not a hook's JSON output, {} or empty."
NOT_VALID_JSON = (
    "Hook output looks like a JSON object but is not valid JSON \u2014 {error}. Emit the payload "
    "with a JSON encoder (jq, ConvertTo-Json, json.dumps) rather than string concatenation so "
    "backslashes and quotes inside strings are escaped."
)
INVALID_OUTPUT = "invalid hook output: "
HTTP_NOT_JSON = "HTTP hook must return JSON, but got non-JSON response body: "
HTTP_BAD_JSON = "HTTP hook must return valid JSON, but parsing failed: "
#: Fields that make an mcp_tool answer a hook's answer (`reason` alone does not).
HOOK_FIELDS: Final[frozenset[str]] = frozenset(
    {
        "continue",
        "suppressOutput",
        "stopReason",
        "decision",
        "systemMessage",
        "terminalSequence",
        "hookSpecificOutput",
    }
)


@dataclass(frozen=True, slots=True)
class HookFailure:
    """Why a hook failed: `detail` is the line(s) after the block's first line ('' for none)."""

    timed_out: bool = False
    detail: str = ""


def blocks_on_failure(config: HandlerConfig, event: Event) -> bool:
    """Whether a failure of this hook on `event` blocks (its `onFailure` is "block" and not
    ignored there)."""
    if isinstance(config, CommandHook):
        if config.is_async:
            return False
        exempt = EXEMPT_EVENTS
    elif isinstance(config, McpToolHook):
        exempt = MCP_EXEMPT_EVENTS
    elif config.type == "http":
        exempt = EXEMPT_EVENTS
    else:
        return False
    return getattr(config, "onFailure", "continue") == "block" and event not in exempt


def _json_error(stdout: str) -> str | None:
    """The parser's message when `stdout` looks like a JSON object and does not parse."""
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        load_json_text(text)
    except ParseError as exc:
        return exc.reason
    return None


def _validation_detail(result: HookResult) -> str:
    error = result.error or ""
    if error.startswith(INVALID_OUTPUT):
        return f"Hook JSON output validation failed \u2014 {error.removeprefix(INVALID_OUTPUT)}"
    return error


def command_failure(
    exit_code: int, stdout: str, stderr: str, result: HookResult
) -> HookFailure | None:
    """The failure a finished command hook is, if any: exit code other than 0 and 2, or on
    exit 0 an answer that does not parse, fails validation or is over the cap."""
    if exit_code not in (0, 2):
        return HookFailure(detail=stderr.strip() or NO_STDERR)
    if exit_code == 2:
        return None
    broken = _json_error(stdout)
    if broken is not None:
        return HookFailure(detail=NOT_VALID_JSON.format(error=broken))
    if result.status is Status.error:
        return HookFailure(detail=_validation_detail(result))
    return None


def http_failure(
    result: HookResult, *, url: str, status: int | None, body: str
) -> HookFailure | None:
    """An http hook fails when its request does: refused, timed out, a status other than 2xx,
    a body that is not a valid hook answer (`decode_http` marks each an error). The detail is
    worded as Claude Code words it where hookwright knows the cause."""
    if result.status is Status.timeout:
        return HookFailure(timed_out=True)
    if result.status is not Status.error:
        return None
    if status is not None and not 200 <= status < 300:
        return HookFailure(detail=f"HTTP {status} from {url}")
    text = body.strip()
    if status is not None and text and parse_json_object(text) is None:
        broken = _json_error(text)
        if broken is None:
            return HookFailure(detail=f"{HTTP_NOT_JSON}{text}")
        return HookFailure(detail=f"{HTTP_BAD_JSON}{broken}")
    return HookFailure(detail=_validation_detail(result))


def mcp_failure(event: Event, text: str) -> HookFailure | None:
    """A successful mcp_tool call whose text is no hook answer: plain text, an image, JSON
    that does not parse or has no hook field (``{}`` and empty text are answers)."""
    stripped = text.strip()
    if not stripped or event in MCP_TEXT_ANSWERS:
        return None
    if _json_error(stripped) is not None:
        return HookFailure(detail=MCP_INVALID)
    data = parse_json_object(stripped)
    if data is None:
        return HookFailure(detail=MCP_NO_VERDICT)
    if data and not HOOK_FIELDS & data.keys():
        return HookFailure(detail=MCP_NO_VERDICT)
    return None


def fail_closed(
    inp: HookInput, result: HookResult, failure: HookFailure, *, label: str, mcp: bool = False
) -> HookResult:
    """`result` blocked as exit code 2 would block it, for `failure` of the hook `label`;
    a result that already blocks, and an event where exit 2 blocks nothing, stay as they are."""
    event = inp.event
    blocked = result.decision in (Decision.deny, Decision.block)
    if blocked or event not in FAILURE_BLOCKS or not can_block(inp):
        return result
    what = "timed out" if failure.timed_out else "failed"
    reason = f"[{label}]: {what}; {MCP_BECAUSE if mcp else BECAUSE}"
    if failure.detail:
        detail = failure.detail + MCP_DETAILS_LEFT_OUT if mcp else failure.detail
        reason = f"{reason}\n{detail}"
    result.decision = Decision.deny if event in DENY_EVENTS else Decision.block
    result.reason = reason
    result.updated_input = None
    if result.status is Status.ok:  # what it noted (a broken JSON answer) stays first
        result.status = Status.error
        result.error = f"{result.error}; {reason}" if result.error else reason
    if event is E.PreToolUse:
        result.add_effects(tool_message=blocking_error(inp, reason))
    elif event is E.PermissionRequest:
        result.add_effects(tool_message=reason)
    return result
