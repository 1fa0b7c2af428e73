"""The agent's history (OpenAI chat messages) as OpenAI Responses API input items.

The first system message becomes the request's `instructions`; every later one (hook context)
a developer message. The paragraphs a system message lists under `BESIDE_CALL` (a tool hook's
context whose dialect shows it beside the call: Codex) go right after the `function_call` they
name, a developer message each, before that call's output, where Codex puts them; chat
completions allow nothing there, so the history keeps them after the tool results and only this
translation moves them.
"""

from __future__ import annotations

from typing import Any

from hookwright.runtime.models.base import BESIDE_CALL, Message, ToolDefinition

Item = dict[str, Any]


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _message(role: str, text: str) -> Item:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def _listed_beside(message: Message) -> list[tuple[str, str]]:
    if message.get("role") != "system" or not isinstance(message.get(BESIDE_CALL), list):
        return []
    return [(str(entry[0]), str(entry[1])) for entry in message[BESIDE_CALL]]


def _beside_calls(messages: list[Message]) -> dict[str, list[str]]:
    """The context texts to show beside each call, by call id, for calls in the history."""
    called = {
        str(call.get("id"))
        for message in messages
        if message.get("role") == "assistant"
        for call in message.get("tool_calls") or ()
    }
    beside: dict[str, list[str]] = {}
    for message in messages:
        for call_id, text in _listed_beside(message):
            if call_id in called:
                beside.setdefault(call_id, []).append(text)
    return beside


def _left_in_place(message: Message, beside: dict[str, list[str]]) -> str:
    """A system message's text without the paragraphs shown beside their calls (all of it
    when one of their calls is not in the history)."""
    text = _text_of(message.get("content"))
    listed = _listed_beside(message)
    if not listed or any(call_id not in beside for call_id, _ in listed):
        return text
    moved = "\n\n".join(paragraph for _, paragraph in listed)
    return text.removeprefix(moved).removeprefix("\n\n")


def _assistant_items(message: Message, beside: dict[str, list[str]]) -> list[Item]:
    items: list[Item] = []
    text = _text_of(message.get("content"))
    if text:
        items.append(_message("assistant", text))
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        call_id = str(call.get("id"))
        items.append(
            {
                "type": "function_call",
                "call_id": call_id,
                "name": str(function.get("name", "")),
                "arguments": str(function.get("arguments") or ""),
            }
        )
        items += [_message("developer", note) for note in beside.get(call_id, ())]
    return items


def input_items(messages: list[Message]) -> tuple[str | None, list[Item]]:
    """`instructions` (the first system message) and the input items of the rest."""
    instructions: str | None = None
    if messages and messages[0].get("role") == "system":
        instructions = _text_of(messages[0].get("content"))
        messages = messages[1:]
    beside = _beside_calls(messages)
    items: list[Item] = []
    for message in messages:
        role = message.get("role")
        if role == "assistant":
            items += _assistant_items(message, beside)
        elif role == "tool":
            output = _text_of(message.get("content"))
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": str(message.get("tool_call_id")),
                    "output": output,
                }
            )
        elif role == "system":
            text = _left_in_place(message, beside)
            if text:
                items.append(_message("developer", text))
        elif role in ("user", "developer"):
            items.append(_message(str(role), _text_of(message.get("content"))))
    return instructions, items


def tools_of(tools: list[ToolDefinition] | None) -> list[Item]:
    """Chat-completions tool definitions as Responses function tools."""
    converted: list[Item] = []
    for tool in tools or ():
        function = tool.get("function") if tool.get("type") == "function" else None
        if not isinstance(function, dict):
            converted.append(tool)
            continue
        item: Item = {"type": "function", "name": function.get("name", "")}
        if function.get("description"):
            item["description"] = function["description"]
        item["parameters"] = function.get("parameters") or {"type": "object", "properties": {}}
        item["strict"] = False
        converted.append(item)
    return converted
