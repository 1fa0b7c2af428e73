"""Normalise two observations of one Codex case and say where they differ.

`stdin`, `order` and `files` are read as for Claude Code (`conformance.compare`). `model` is
what hooks put in front of the model, per request of the agent loop, in order, read from the
Responses API's input items (Codex; hookwright with `openai-responses:`) or chat messages
(hookwright with `openai:`): user messages (the prompt, a Stop continuation), hook context
(developer messages, or the system messages after the first; a paragraph each), and tool
results (the text when a hook wrote it, `<output>` when the command's own output stands).
Codex's own developer and environment messages are not hook text and are left out; hook text
carries `MARK`.

`delegated` is `model` without the main agent's requests after it started a subagent (those
holding the start call's result): the subagent's requests and what led to them.

Two documented differences are normalised away: Codex writes the session's `model` into
every hook input, which a hookwright host does not pass to its hooks; and turn ids are each
host's own (Codex: a UUIDv7, hookwright: `turn-<hex>`), so each reads `<turnN>`, numbered in
the order first seen (which hooks share a turn is compared). The call starting a subagent is
compared as it is: hookwright shows Codex hooks its `Agent` call as Codex's `spawn_agent`.
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
#: The call id of the main agent's call starting a subagent (cases `subagent_*`).
SPAWN_CALL = "call_spawn"
MODEL_FIELD = re.compile(r'"model":"[^"]*",')
TURN_ID = re.compile(r'"turn_id":"([^"]*)"')


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


def _after_spawn(items: list[str]) -> bool:
    """Whether a request of the main agent follows its call starting a subagent, whose
    hand-back each agent frames its own way (Codex: the agent's id, a `wait_agent` call and a
    `<subagent_notification>`; hookwright: its `Agent` tool's answer)."""
    return any(item.startswith(f"tool {SPAWN_CALL}:") for item in items)


def _stdin(text: str) -> str:
    return MODEL_FIELD.sub("", text)


def view(observation: Observation, aspects: frozenset[str]) -> dict[str, Any]:
    ids = Normaliser(observation)
    turns: dict[str, str] = {}

    def turn(match: re.Match[str]) -> str:
        return f'"turn_id":"<turn{turns.setdefault(match.group(1), str(len(turns) + 1))}>"'

    def normalise(text: str) -> str:
        """Turn ids first: a UUIDv7 of Codex's would take a number the ids after it (a
        subagent's) are counted from."""
        return ids(TURN_ID.sub(turn, text))

    hooks = hook_view(observation, normalise)
    result: dict[str, Any] = {}
    if "order" in aspects:
        result["order"] = [f"{r['event']} {r['label']}" for r in hooks]
    if "stdin" in aspects:
        result["stdin"] = [f"{r['label']} cwd={r['cwd']} {_stdin(r['stdin'])}" for r in hooks]
    requests = [
        (responses_items if "input" in body else chat_items)(body, normalise)
        for body in observation.requests
    ]
    if "model" in aspects:
        result["model"] = requests
    if "delegated" in aspects:
        result["delegated"] = [items for items in requests if not _after_spawn(items)]
    if "files" in aspects:
        result["files"] = {name: normalise(text) for name, text in observation.files.items()}
    return result


def differences(expected: Observation, actual: Observation, aspects: frozenset[str]) -> str:
    """A unified diff of the two views ('' when they agree)."""
    want = json.dumps(view(expected, aspects), indent=1, ensure_ascii=False).splitlines()
    got = json.dumps(view(actual, aspects), indent=1, ensure_ascii=False).splitlines()
    diff = difflib.unified_diff(want, got, expected.agent, actual.agent, lineterm="", n=2)
    return "\n".join(diff)
