"""What a Gemini command hook reads: `JSON.stringify(input)` as Gemini CLI writes it, compact,
no trailing newline, fields in Gemini's order (session_id, transcript_path, cwd,
hook_event_name, timestamp, then the event's own)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from hookwright.core.events import HookInput
from hookwright.dialects.gemini.events import gemini_tool


def encode_stdin(inp: HookInput, event_name: str) -> bytes:
    body = {**_base(inp, event_name), **_fields(inp, event_name)}
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()


def _base(inp: HookInput, event_name: str) -> dict[str, Any]:
    stamp = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return {
        "session_id": inp.session_id or "",
        "transcript_path": inp.transcript_path or "",
        "cwd": inp.cwd or "",
        "hook_event_name": event_name,
        "timestamp": stamp,
    }


def _fields(inp: HookInput, event_name: str) -> dict[str, Any]:
    payload = inp.payload
    if event_name in ("BeforeTool", "AfterTool"):
        return tool_fields(payload, event_name)
    if event_name == "BeforeAgent":
        return {"prompt": payload.get("prompt", "")}
    if event_name == "AfterAgent":
        return {
            "prompt": str(payload.get("turn_prompt") or payload.get("prompt") or ""),
            "prompt_response": prompt_response(payload),
            "stop_hook_active": bool(payload.get("stop_hook_active")),
        }
    if event_name in ("BeforeModel", "BeforeToolSelection"):
        return {"llm_request": llm_request(payload)}
    if event_name == "AfterModel":
        return {"llm_request": llm_request(payload), "llm_response": llm_response(payload)}
    if event_name == "SessionStart":
        return {"source": payload.get("source", "startup")}
    if event_name == "SessionEnd":
        return {"reason": payload.get("reason", "exit")}
    if event_name == "PreCompress":
        return {"trigger": payload.get("trigger", "auto")}
    return {
        "notification_type": payload.get("notification_type", ""),
        "message": payload.get("message", ""),
        "details": payload.get("details", {}),
    }


def prompt_response(payload: Mapping[str, Any]) -> str:
    """Gemini's `cumulativeResponse`: the text of every answer of the turn (continuations
    included) that has any, joined by newlines; ``[no response text]`` when none has."""
    replies = payload.get("turn_replies")
    if isinstance(replies, list):
        text = "\n".join(reply for reply in replies if isinstance(reply, str) and reply)
    else:
        text = str(payload.get("last_assistant_message") or "")
    return text or "[no response text]"


def tool_fields(payload: Mapping[str, Any], event_name: str) -> dict[str, Any]:
    name, arguments = gemini_tool(
        str(payload.get("tool_name", "")), payload.get("tool_input") or {}
    )
    fields: dict[str, Any] = {"tool_name": name, "tool_input": arguments}
    if event_name == "AfterTool":
        fields["tool_response"] = tool_response(payload)
    return fields


def tool_response(payload: Mapping[str, Any]) -> dict[str, Any]:
    """Gemini's tool result record: what the model reads (`llmContent`) and what the user is
    shown (`returnDisplay`), plus `error` when the tool failed."""
    response = payload.get("tool_response")
    error = payload.get("error")
    text = response if isinstance(response, str) else _text(response)
    record: dict[str, Any] = {"llmContent": text, "returnDisplay": text}
    if error:
        record["error"] = {"message": str(error)}
    return record


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, Mapping):
        for key in ("content", "output", "stdout", "text"):
            if isinstance(value.get(key), str):
                return str(value[key])
    return json.dumps(value, ensure_ascii=False)


def llm_request(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The request in Gemini's "stable" hook form: text messages only (user|model), the
    system instruction left out, and the sampling settings."""
    messages = []
    for message in payload.get("messages") or []:
        if not isinstance(message, Mapping) or message.get("role") == "system":
            continue
        text = _message_text(message.get("content"))
        if text:
            role = "model" if message.get("role") == "assistant" else "user"
            messages.append({"role": role, "content": text})
    options = payload.get("options") or {}
    config = {
        key: options[source]
        for key, source in (("temperature", "temperature"), ("topP", "top_p"), ("topK", "top_k"))
        if source in options
    }
    return {"model": payload.get("model", ""), "messages": messages, "config": config}


def _message_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(block.get("text", ""))
            for block in content
            if isinstance(block, Mapping) and block.get("type", "text") == "text"
        )
    return ""


def llm_response(payload: Mapping[str, Any]) -> dict[str, Any]:
    response = payload.get("response") or {}
    text = str(response.get("content") or "") if isinstance(response, Mapping) else ""
    candidate = {
        "content": {"role": "model", "parts": [text] if text else []},
        "finishReason": "STOP",
        "index": 0,
    }
    return {"text": text, "candidates": [candidate]}
