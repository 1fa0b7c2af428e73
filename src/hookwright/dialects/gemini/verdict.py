"""A merged `Verdict` back on Gemini CLI's wire: the JSON a Gemini command hook prints to
have that verdict's effect, so hookwright can answer as a Gemini hook (`hookwright hook
gemini`). `output.py` reads the same fields the other way.

A block is the top-level ``decision: "deny"`` with its ``reason`` (Gemini ignores Claude
Code's ``permissionDecision``); a tool-input rewrite is ``hookSpecificOutput.tool_input``
(Gemini merges it into the arguments; the verdict is `HookSession.relay`'s with Gemini's
tool map, so the rewrite is already in Gemini's argument names); a request rewrite at
BeforeModel is ``hookSpecificOutput.llm_request``; context is ``additionalContext`` where
Gemini hands it to the model (BeforeAgent, AfterTool, SessionStart); a stop is ``continue:
false`` with its ``stopReason``. A verdict that changes nothing prints nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from hookwright.core.results import REWRITE_DECISIONS, Verdict

BLOCKED: Final = "Blocked by hook"
#: Where Gemini 0.61.0 reads `decision` (elsewhere it is ignored).
_BLOCKING: Final = frozenset(
    {"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel"}
)
#: Where `additionalContext` reaches the model (BeforeTool's reaches nobody).
_CONTEXT: Final = frozenset({"SessionStart", "BeforeAgent", "AfterTool"})


def encode_output(verdict: Verdict, event_name: str) -> dict[str, Any]:
    """The JSON object a Gemini hook of `event_name` prints to have `verdict`'s effect."""
    out: dict[str, Any] = {}
    if verdict.blocked and event_name in _BLOCKING:
        out["decision"] = "deny"
        out["reason"] = verdict.reason or BLOCKED
    if not verdict.continue_:
        out["continue"] = False
        out["stopReason"] = verdict.stop_reason or verdict.reason or BLOCKED
    if verdict.system_messages:
        out["systemMessage"] = "\n".join(verdict.system_messages)
    specific = {} if verdict.blocked else _specific(verdict, event_name)
    if specific:
        out["hookSpecificOutput"] = {"hookEventName": event_name, **specific}
    return out


def _specific(verdict: Verdict, event_name: str) -> dict[str, Any]:
    specific: dict[str, Any] = {}
    rewrite = verdict.updated_input
    if rewrite is not None and event_name == "BeforeTool":
        if verdict.decision is None or verdict.decision in REWRITE_DECISIONS:
            specific["tool_input"] = dict(rewrite)
    elif rewrite is not None and event_name == "BeforeModel":
        request = llm_request(rewrite)
        if request:
            specific["llm_request"] = request
    if event_name in _CONTEXT and verdict.additional_context:
        specific["additionalContext"] = "\n".join(verdict.additional_context)
    return specific


def llm_request(rewrite: Mapping[str, Any]) -> dict[str, Any]:
    """A rewritten PreModelCall request (`model`, chat `messages`) in Gemini's hook form."""
    request: dict[str, Any] = {}
    if isinstance(rewrite.get("model"), str):
        request["model"] = rewrite["model"]
    messages = rewrite.get("messages")
    if isinstance(messages, list):
        request["messages"] = [
            {
                "role": "model" if message.get("role") == "assistant" else "user",
                "content": message["content"],
            }
            for message in messages
            if isinstance(message, Mapping)
            and message.get("role") != "system"
            and isinstance(message.get("content"), str)
        ]
    return request


def encode_output_json(verdict: Verdict, event_name: str) -> bytes:
    """`encode_output` as the bytes a hook prints (nothing when the verdict changes nothing)."""
    out = encode_output(verdict, event_name)
    if not out:
        return b""
    return json.dumps(out, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
