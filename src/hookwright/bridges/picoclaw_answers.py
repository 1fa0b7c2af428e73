"""hookwright's decisions as PicoClaw hook results (the JSON a process hook answers).

PicoClaw applies `continue`/`modify` with replace semantics on the object it gets back, so
every rewrite echoes the request's params with the changed fields; `deny_tool` and
`respond` are tool-call actions; `abort_turn` ends the turn with an error and `hard_abort`
also rolls the turn's messages back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookwright.core.messages import split_leading_system
from hookwright.dialects.picoclaw.codec import (
    go_messages,
    go_tools,
    is_tool_result,
    llm_response_to_wire,
    tool_result_to_wire,
)
from hookwright.host.decisions import (
    Ask,
    Defer,
    Deny,
    EndTurn,
    ModelRequest,
    Respond,
    Run,
    ToolAction,
    ToolResult,
)

CONTINUE: dict[str, Any] = {"action": "continue"}
APPROVED: dict[str, Any] = {"approved": True}
ASK_REASON = "a hook asked for the user's confirmation, which PicoClaw cannot ask for"


def end_turn(end: EndTurn) -> dict[str, Any]:
    """A hook ended the turn: a rollback (a hard abort, a blocked prompt) is `hard_abort`."""
    action = "hard_abort" if end.rollback or end.status == "blocked" else "abort_turn"
    return {"action": action, "reason": end.reason}


def tool_call(action: ToolAction, params: Mapping[str, Any], tool: str, args: Any) -> Any:
    """before_tool: run as is, run rewritten (`modify` with the new call), refuse, or answer."""
    if isinstance(action, Deny):
        return {"action": "deny_tool", "reason": action.reason or action.message}
    if isinstance(action, Ask):
        return {"action": "deny_tool", "reason": action.reason or ASK_REASON}
    if isinstance(action, Respond):
        return {"action": "respond", "result": result_to_wire(action.result)}
    if isinstance(action, Defer) or (action.tool_name == tool and action.tool_input == args):
        return CONTINUE
    assert isinstance(action, Run)
    call = {**params, "tool": action.tool_name, "arguments": dict(action.tool_input)}
    return {"action": "modify", "call": call}


def result_to_wire(result: ToolResult) -> dict[str, Any]:
    """A tool answer as PicoClaw's ToolResult: a PicoClaw ToolResult a hook gave, else the
    model-facing text."""
    if is_tool_result(result.data) and result.data.get("for_llm") == result.content:
        return tool_result_to_wire(result.data)
    wire: dict[str, Any] = {"for_llm": result.content, "is_error": result.is_error}
    if result.for_user:
        wire["for_user"] = result.for_user
    if result.media:
        wire["media"] = list(result.media)
    if result.response_handled:
        wire["response_handled"] = True
    return tool_result_to_wire(wire)


def replaced_output(response: Any, wire: Mapping[str, Any]) -> dict[str, Any] | None:
    """A structured replacement of a tool's output (Claude Code `updatedToolOutput`): a
    PicoClaw ToolResult, or an object with `stdout` (what the model sees of Bash)."""
    if is_tool_result(response):
        return tool_result_to_wire(response)
    if isinstance(response, Mapping) and isinstance(response.get("stdout"), str):
        return {**wire, "for_llm": response["stdout"]}
    return None


def with_notes(text: str, notes: list[str]) -> str:
    return "\n\n".join([text, *notes] if text else notes)


def tool_result(
    params: Mapping[str, Any],
    wire: Mapping[str, Any],
    replaced: Mapping[str, Any] | None,
    notes: list[str],
) -> Any:
    """after_tool: the wrapper PicoClaw reads back (`{..params, result}`) when the result
    was replaced or notes are due, else continue."""
    if replaced is None and not notes:
        return CONTINUE
    new = dict(wire if replaced is None else replaced)
    if notes:
        new["for_llm"] = with_notes(str(new.get("for_llm") or ""), notes)
    return {"action": "modify", "result": {**params, "result": new}}


def model_request(
    params: Mapping[str, Any],
    sent: ModelRequest,
    request: ModelRequest,
    rewritten: bool,
    notes: list[str],
) -> Any:
    """before_llm: the rewritten request (`modify`), hook context as a user message at the
    end. The system messages stay PicoClaw's (it restores them anyway); the notes the engine
    placed among them are dropped for that message."""
    if not rewritten and not notes:
        return CONTINUE
    system, _ = split_leading_system(list(sent.messages))
    _, history = split_leading_system(list(request.messages if rewritten else sent.messages))
    messages = [*system, *history]
    if notes:
        messages.append({"role": "user", "content": with_notes("", notes)})
    new = {**params, "model": request.model, "messages": go_messages(messages)}
    tools, options = go_tools(request.tools), dict(request.options or {})
    for key, value in (("tools", tools), ("options", options)):
        if value:
            new[key] = value
        else:
            new.pop(key, None)
    return {"action": "modify", "request": new}


def model_response(
    params: Mapping[str, Any], response: Mapping[str, Any] | None, notes: tuple[str, ...]
) -> Any:
    """after_llm: the replaced answer, hook context appended to its text."""
    if response is None and not notes:
        return CONTINUE
    base = dict(response if response is not None else params.get("response") or {})
    if notes:
        base["content"] = with_notes(str(base.get("content") or ""), list(notes))
    return {"action": "modify", "response": {**params, "response": llm_response_to_wire(base)}}
