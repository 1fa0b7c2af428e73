"""The JSON envelope every OpenHarness handler receives, built from a canonical `HookInput`.

Common fields (the real project sends all of them on every event, including `trigger_type` and
`run_status` which its docs omit): `workspace_id`, `session_id`, `run_id`, `cwd`,
`hook_event_name` (the OpenHarness name the hook was declared for), `agent_name`,
`effective_agent_name`, `trigger_type`, `run_status`.

Where the canonical payload (docs/payloads.md) lacks a value: `run_id` falls back to the turn
id, `cwd` to the workspace root, `agent_name` to `HookInput.agent_type` (the subagent's type),
else `main`, `effective_agent_name` to `agent_name`, `trigger_type` to `message` (a run the
user's prompt started), `run_status` to `running` (`completed` / `failed` on run_completed /
run_failed); anything else missing is `null`.

Per-event fields:

* before_model_call: `model_ref`, `model_request` = `{model, canonicalModelRef, temperature?,
  topP?, maxTokens?, messages}`;
* after_model_call: the same plus `model_response` = `{model, text, finishReason}`;
* before_tool_dispatch: `tool_name`, `tool_input`, `tool_call_id`;
* after_tool_dispatch: the same plus `tool_output` (the canonical `tool_response`, else the
  model-facing `tool_result.content`);
* before/after_context_build: `context` = `{messages}`;
* before_context_compact: `context` = `{messages, trigger, customInstructions?}`;
* after_context_compact: `context` = `{summaryText, trigger}`.

Within one chain, a context patch is carried to the next hook in the input's chain state
(`HookInput.chain_state[CHAIN_STATE_KEY]["context"]`, never in the payload, so no other
dialect's wire sees it), and keys without a canonical field survive from hook to hook.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from hookwright.core.events import Event, HookInput

#: This dialect's key in `HookInput.chain_state`.
CHAIN_STATE_KEY: Final = "openharness"

#: The agent of a run outside any subagent, and what starts a run, when the host does not say.
MAIN_AGENT: Final = "main"
DEFAULT_TRIGGER: Final = "message"

_RUN_STATUS: Final[dict[Event, str]] = {Event.Stop: "completed", Event.StopFailure: "failed"}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def model_request(payload: dict[str, Any]) -> dict[str, Any]:
    """OpenHarness' view of the canonical request (`model`, `model_ref`, `options`,
    `messages`); option names are read in snake_case or camelCase."""
    options = payload.get("options")
    opts: dict[str, Any] = options if isinstance(options, dict) else {}
    request: dict[str, Any] = {
        "model": payload.get("model"),
        "canonicalModelRef": payload.get("model_ref") or payload.get("model"),
    }
    for target, names in (
        ("temperature", ("temperature",)),
        ("topP", ("top_p", "topP")),
        ("maxTokens", ("max_tokens", "maxTokens", "max_completion_tokens")),
    ):
        for name in names:
            if _number(opts.get(name)):
                request[target] = opts[name]
                break
    messages = payload.get("messages")
    request["messages"] = messages if isinstance(messages, list) else []
    return request


def model_response(payload: dict[str, Any]) -> dict[str, Any]:
    response = payload.get("response")
    resp: dict[str, Any] = response if isinstance(response, dict) else {}
    content = resp.get("content")
    return {
        "model": payload.get("model"),
        "text": content if isinstance(content, str) else "",
        "finishReason": resp.get("finish_reason"),
    }


def tool_output(payload: dict[str, Any]) -> Any:
    if payload.get("tool_response") is not None:
        return payload["tool_response"]
    result = payload.get("tool_result")
    return result.get("content") if isinstance(result, dict) else None


def chain_state(context: dict[str, Any]) -> dict[str, Any]:
    """The `HookResult.chain_state` that hands a merged context to the next hook."""
    return {CHAIN_STATE_KEY: {"context": context}}


#: The chain state an applied `tool_output` patch leaves, so later hooks of the chain know the
#: output they see is no longer the tool's.
OUTPUT_PATCHED: Final = {CHAIN_STATE_KEY: {"tool_output_patched": True}}


def output_patched(inp: HookInput) -> bool:
    """An earlier hook of this chain patched the tool output."""
    state = inp.chain_state.get(CHAIN_STATE_KEY)
    return isinstance(state, Mapping) and state.get("tool_output_patched") is True


def carried_context(inp: HookInput) -> dict[str, Any] | None:
    """The context an earlier hook of this chain left, if any."""
    state = inp.chain_state.get(CHAIN_STATE_KEY)
    carried = state.get("context") if isinstance(state, Mapping) else None
    return carried if isinstance(carried, dict) else None


def context(inp: HookInput) -> dict[str, Any]:
    carried = carried_context(inp)
    if carried is not None:
        return carried
    event, payload = inp.event, inp.payload
    if event is Event.PostCompact:
        return {"summaryText": payload.get("compact_summary"), "trigger": payload.get("trigger")}
    messages = payload.get("messages")
    ctx: dict[str, Any] = {"messages": messages if isinstance(messages, list) else []}
    if event is Event.PreCompact:
        ctx["trigger"] = payload.get("trigger")
        if payload.get("custom_instructions") is not None:
            ctx["customInstructions"] = payload["custom_instructions"]
    return ctx


def build_envelope(inp: HookInput, *, oh_event: str, workspace_root: Path) -> dict[str, Any]:
    payload = inp.payload
    agent_name = payload.get("agent_name") or inp.agent_type or MAIN_AGENT
    envelope: dict[str, Any] = {
        "workspace_id": payload.get("workspace_id"),
        "session_id": inp.session_id,
        "run_id": payload.get("run_id") or inp.turn_id,
        "cwd": inp.cwd or str(workspace_root),
        "hook_event_name": oh_event,
        "agent_name": agent_name,
        "effective_agent_name": payload.get("effective_agent_name") or agent_name,
        "trigger_type": payload.get("trigger_type") or DEFAULT_TRIGGER,
        "run_status": payload.get("run_status") or _RUN_STATUS.get(inp.event, "running"),
    }
    event = inp.event
    if event in (Event.PreModelCall, Event.PostModelCall):
        request = model_request(payload)
        envelope["model_ref"] = request["canonicalModelRef"]
        envelope["model_request"] = request
        if event is Event.PostModelCall:
            envelope["model_response"] = model_response(payload)
    elif event in (Event.PreToolUse, Event.PostToolUse):
        envelope["tool_name"] = payload.get("tool_name")
        envelope["tool_input"] = payload.get("tool_input", {})
        envelope["tool_call_id"] = payload.get("tool_use_id") or payload.get("tool_call_id")
        if event is Event.PostToolUse:
            envelope["tool_output"] = tool_output(payload)
    elif event in (
        Event.PreContextBuild,
        Event.PostContextBuild,
        Event.PreCompact,
        Event.PostCompact,
    ):
        envelope["context"] = context(inp)
    return envelope
