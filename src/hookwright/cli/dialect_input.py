"""`hooks test` input in the words of the event's own system: named by a PicoClaw method
(`before_tool`), the input may be what PicoClaw sends (`{"tool": "Bash", "arguments": {...}}`);
named by a Gemini CLI event (`BeforeTool`), what Gemini CLI sends (`run_shell_command`);
named by an OpenHarness event (`before_tool_dispatch`), the OpenHarness envelope (`tool_call_id`,
`tool_output`, `model_request`, `context`, ...); named by a skill hook's timing
(`after_tool_call`), what the reference agent passes there. Each is read into the canonical
input every hook is given, so each dialect's hook then receives it in its own shape.

A field the event's system does not have is passed on as it is, with a warning naming it; a
tool name the reference agent does not have gets a warning with the tool likely meant."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from hookwright.core.events import COMMON_FIELDS, TOOL_EVENTS, Event
from hookwright.core.tool_names import REFERENCE_AGENT_TOOLS, unknown_tool
from hookwright.core.words import listed

Reader = Callable[[dict[str, Any]], dict[str, Any]]

#: Canonical input fields a dialect-shaped input may also use (docs/payloads.md).
CANONICAL = frozenset(
    {
        *COMMON_FIELDS,
        "hook_event_name",
        "tool_name",
        "tool_input",
        "tool_use_id",
        "tool_response",
        "tool_result",
        "prompt",
        "model",
        "messages",
        "tools",
        "options",
        "response",
    }
)


#: The skill prompt hooks' timings (`hookwright.dialects.skills.TIMINGS`), named here so that
#: an input of another event loads neither the skills dialect nor the engine's data model.
SKILL_TIMINGS = frozenset(
    {"after_user_input", "before_planning", "before_first_agent", "before_each_agent",
     "after_tool_call"}
)  # fmt: skip


class Shaped(NamedTuple):
    event: Event
    data: dict[str, Any]
    warnings: list[str]


def _renamed(data: dict[str, Any], renames: dict[str, str]) -> dict[str, Any]:
    """`data` with each dialect field under its canonical name (a canonical field given too
    wins)."""
    out = {key: value for key, value in data.items() if key not in renames}
    for theirs, ours in renames.items():
        if theirs in data:
            out.setdefault(ours, data[theirs])
    return out


_PICOCLAW_RENAMES = {
    "tool": "tool_name",
    "arguments": "tool_input",
    "result": "tool_response",
    "duration": "duration_ns",
}
#: Every field of a PicoClaw hook request's params, by method.
_PICOCLAW_FIELDS = {
    "before_tool": ("meta", "context", "tool", "arguments", "channel", "chat_id"),
    "approve_tool": ("meta", "context", "tool", "arguments", "channel", "chat_id"),
    "after_tool": ("meta", "context", "tool", "arguments", "result", "duration", "channel",
                   "chat_id"),
    "before_llm": ("meta", "context", "model", "messages", "tools", "options", "channel",
                   "chat_id", "graceful_terminal"),
    "after_llm": ("meta", "context", "model", "response", "channel", "chat_id"),
}  # fmt: skip


def _picoclaw(data: dict[str, Any]) -> dict[str, Any]:
    return _renamed(data, _PICOCLAW_RENAMES)


_OPENHARNESS_COMMON = (
    "workspace_id", "session_id", "run_id", "cwd", "hook_event_name", "agent_name",
    "effective_agent_name", "trigger_type", "run_status",
)  # fmt: skip
_OH_TOOL = ("tool_name", "tool_input", "tool_call_id")
_OH_MODEL = ("model_ref", "model_request")
_OPENHARNESS_FIELDS = {
    "before_tool_dispatch": _OH_TOOL,
    "after_tool_dispatch": (*_OH_TOOL, "tool_output"),
    "before_model_call": _OH_MODEL,
    "after_model_call": (*_OH_MODEL, "model_response"),
    "before_context_build": ("context",),
    "after_context_build": ("context",),
    "before_context_compact": ("context",),
    "after_context_compact": ("context",),
    "run_completed": (),
    "run_failed": (),
}
_OH_OPTIONS = {"temperature": "temperature", "topP": "top_p", "maxTokens": "max_tokens"}
_OH_CONTEXT = {
    "messages": "messages",
    "trigger": "trigger",
    "customInstructions": "custom_instructions",
    "summaryText": "compact_summary",
}


def _openharness(data: dict[str, Any]) -> dict[str, Any]:
    out = _renamed(data, {"tool_call_id": "tool_use_id", "tool_output": "tool_response"})
    if isinstance(data.get("run_id"), str):
        out.setdefault("turn_id", data["run_id"])
    request = out.pop("model_request", None)
    if isinstance(request, dict):
        options = {
            ours: request[theirs] for theirs, ours in _OH_OPTIONS.items() if theirs in request
        }
        out.setdefault("model", request.get("model"))
        out.setdefault("messages", request.get("messages") or [])
        if options:
            out.setdefault("options", options)
    response = out.pop("model_response", None)
    if isinstance(response, dict):
        reply = {"content": response.get("text"), "finish_reason": response.get("finishReason")}
        out.setdefault("response", reply)
    context = out.pop("context", None)
    if isinstance(context, dict):
        for theirs, ours in _OH_CONTEXT.items():
            if theirs in context:
                out.setdefault(ours, context[theirs])
    return out


_GEMINI_COMMON = ("session_id", "transcript_path", "cwd", "hook_event_name", "timestamp")
_GEMINI_TOOL = ("tool_name", "tool_input", "mcp_context", "original_request_name")
_GEMINI_FIELDS = {
    "BeforeTool": _GEMINI_TOOL,
    "AfterTool": (*_GEMINI_TOOL, "tool_response"),
    "BeforeAgent": ("prompt",),
    "AfterAgent": ("prompt", "prompt_response", "stop_hook_active"),
}


def _gemini(data: dict[str, Any]) -> dict[str, Any]:
    """A Gemini CLI tool call (`run_shell_command`) under the host's tool names (`Bash`),
    its result record's `llmContent` as the tool's output."""
    from hookwright.dialects.gemini.events import host_tool

    out = dict(data)
    name, arguments = out.get("tool_name"), out.get("tool_input")
    if isinstance(name, str):
        out["tool_name"], out["tool_input"] = host_tool(
            name, arguments if isinstance(arguments, dict) else {}
        )
    response = out.get("tool_response")
    if isinstance(response, dict) and isinstance(response.get("llmContent"), str):
        out["tool_response"] = response["llmContent"]
    if "prompt_response" in out:
        out.setdefault("last_assistant_message", out.pop("prompt_response"))
    return out


#: Per system: its event names with their fields, and the reader into the canonical input.
_SYSTEMS: tuple[tuple[str, dict[str, tuple[str, ...]], Reader], ...] = (
    ("PicoClaw", _PICOCLAW_FIELDS, _picoclaw),
    ("Gemini CLI", {k: (*_GEMINI_COMMON, *v) for k, v in _GEMINI_FIELDS.items()}, _gemini),
    ("OpenHarness", {k: (*_OPENHARNESS_COMMON, *v) for k, v in _OPENHARNESS_FIELDS.items()},
     _openharness),
)  # fmt: skip


def shaped(name: str, event: Event, data: dict[str, Any]) -> Shaped:
    """The canonical input for the event named `name` (already resolved to `event`) from
    `data` as its system sends it, and one warning per thing the hooks will not see as
    the author may expect."""
    warnings: list[str] = []
    if name in SKILL_TIMINGS:
        from hookwright.cli.skill_events import skill_event, skill_input

        event = skill_event(name) or event
        data, warnings = skill_input(name, data)
    method = name.removeprefix("hook.")
    for system, fields, read in _SYSTEMS:
        if method in fields:
            known = {*fields[method], *CANONICAL}
            unknown = [key for key in data if key not in known]
            if unknown:
                warnings.append(
                    f"{system} {method} has no {listed([repr(u) for u in unknown], 'field')}: "
                    f"passed on as they are (its fields: {', '.join(fields[method]) or 'none'})"
                )
            data = read(data)
    return Shaped(event, data, warnings + _tool_warnings(event, data))


def _tool_warnings(event: Event, data: dict[str, Any]) -> list[str]:
    """The input's tool names the reference agent's hooks never see."""
    names = [data.get("tool_name")] if event in TOOL_EVENTS else []
    calls = data.get("tool_calls")
    if isinstance(calls, list):
        names += [call.get("tool_name") for call in calls if isinstance(call, dict)]
    problems = (
        unknown_tool(name, REFERENCE_AGENT_TOOLS) for name in names if isinstance(name, str)
    )
    return [f"the input's tool {problem}" for problem in problems if problem is not None]
