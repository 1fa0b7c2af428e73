"""Normalise two observations of one Codex case and say where they differ.

`stdin`, `order` and `files` are read as for Claude Code (`conformance.compare`). `model` is
what hooks put in front of the model, per request of the agent loop, in order, read from the
Responses API's input items (Codex; hookwright with `openai-responses:`) or chat messages
(hookwright with `openai:`): user messages (the prompt, a Stop continuation), hook context
(developer messages, or the system messages after the first; a paragraph each), and tool
results (the text when a hook wrote it, `<output>` when the command's own output stands).
Codex's own developer and environment messages are not hook text and are left out; hook text
carries `MARK`.

Two documented differences are normalised away: Codex writes the session's `model` into
every hook input, which a hookwright host does not pass to its hooks; and turn ids are each
host's own (Codex: a UUIDv7, hookwright: `turn-<hex>`), so both read `<turn>`.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from typing import Any

from conformance.compare import Normaliser, hook_view
from conformance.harness import Observation

MARK = "MARK"
MODEL_FIELD = re.compile(r'"model":"[^"]*",')
TURN_ID = re.compile(r'"turn_id":"[^"]*"')


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _tool(call_id: Any, output: str, normalise: Callable[[str], str]) -> str:
    shown = normalise(output) if MARK in output else "<output>"
    return f"tool {call_id}: {shown}"


def responses_items(body: dict[str, Any], normalise: Callable[[str], str]) -> list[str]:
    items: list[str] = []
    for item in body.get("input") or []:
        kind, role = item.get("type"), item.get("role")
        if kind == "function_call_output":
            items.append(_tool(item.get("call_id"), _text(item.get("output")), normalise))
        elif kind == "message" and role == "user":
            text = _text(item.get("content"))
            if not text.startswith("<environment_context>"):
                items.append(f"user: {normalise(text)}")
        elif kind == "message" and role == "developer":
            paragraphs = _text(item.get("content")).split("\n\n")
            items += [f"context: {normalise(p)}" for p in paragraphs if MARK in p]
    return items


def chat_items(body: dict[str, Any], normalise: Callable[[str], str]) -> list[str]:
    items: list[str] = []
    for index, message in enumerate(body.get("messages") or []):
        role, text = message.get("role"), _text(message.get("content"))
        if role == "tool":
            items.append(_tool(message.get("tool_call_id"), text, normalise))
        elif role == "user":
            items.append(f"user: {normalise(text)}")
        elif role in ("system", "developer") and index > 0:
            items += [f"context: {normalise(p)}" for p in text.split("\n\n") if p.strip()]
    return items


def _stdin(text: str) -> str:
    return TURN_ID.sub('"turn_id":"<turn>"', MODEL_FIELD.sub("", text))


def view(observation: Observation, aspects: frozenset[str]) -> dict[str, Any]:
    normalise = Normaliser(observation)
    hooks = hook_view(observation, normalise)
    result: dict[str, Any] = {}
    if "order" in aspects:
        result["order"] = [f"{r['event']} {r['label']}" for r in hooks]
    if "stdin" in aspects:
        result["stdin"] = [f"{r['label']} cwd={r['cwd']} {_stdin(r['stdin'])}" for r in hooks]
    if "model" in aspects:
        result["model"] = [
            (responses_items if "input" in body else chat_items)(body, normalise)
            for body in observation.requests
        ]
    if "files" in aspects:
        result["files"] = {name: normalise(text) for name, text in observation.files.items()}
    return result


def differences(expected: Observation, actual: Observation, aspects: frozenset[str]) -> str:
    """A unified diff of the two views ('' when they agree)."""
    want = json.dumps(view(expected, aspects), indent=1, ensure_ascii=False).splitlines()
    got = json.dumps(view(actual, aspects), indent=1, ensure_ascii=False).splitlines()
    diff = difflib.unified_diff(want, got, expected.agent, actual.agent, lineterm="", n=2)
    return "\n".join(diff)
