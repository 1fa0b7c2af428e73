"""`hooks test --from-transcript FILE [--tool-use ID]`: the input of a tool call recorded in a
session transcript, read through the transcript module (hookwright's own transcripts and
Claude Code's have the same lines)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hookwright.core.events import TOOL_EVENTS, Event
from hookwright.runtime import transcript as transcripts

FAILURE_EVENTS = frozenset({Event.PostToolUseFailure})
RESULT_EVENTS = frozenset({Event.PostToolUse, Event.PostToolUseFailure})


class RecordedCallError(ValueError):
    """The transcript cannot be read, or has no such call."""


#: What a session id (as `hookwright sessions` lists it) may hold; never a path.
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def transcript_file(given: Path, home: Path, project_dir: Path) -> Path:
    """`given` when it is a file; else, when it reads as a session id, that session's
    transcript in the project (what `hookwright sessions` lists and `--resume` takes)."""
    if given.is_file() or not _SESSION_ID.fullmatch(str(given)):
        return given
    stored = transcripts.transcript_path(home, project_dir, str(given))
    if stored.is_file():
        return stored
    raise RecordedCallError(
        f"--from-transcript {given}: no such file, nor a session of {project_dir} "
        "(see: hookwright sessions)"
    )


def _messages(path: Path) -> list[dict[str, Any]]:
    try:
        return transcripts.load(path)
    except (OSError, UnicodeError, AttributeError, TypeError, ValueError) as exc:
        raise RecordedCallError(f"cannot read transcript {path}: {exc}") from None


def _calls(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        call
        for message in messages
        if message.get("role") == "assistant"
        for call in message.get("tool_calls") or []
        if isinstance(call, dict)
    ]


def _pick(calls: list[dict[str, Any]], path: Path, tool_use: str | None) -> dict[str, Any]:
    if not calls:
        raise RecordedCallError(f"transcript {path} has no tool calls")
    if tool_use is None:
        return calls[-1]
    for call in calls:
        if call.get("id") == tool_use:
            return call
    ids = ", ".join(str(c.get("id")) for c in calls[-5:])
    raise RecordedCallError(
        f"transcript {path} has no tool call {tool_use!r} (the last ones: {ids})"
    )


def _result_of(messages: list[dict[str, Any]], use_id: Any) -> Any:
    for message in messages:
        if message.get("role") == "tool" and message.get("tool_call_id") == use_id:
            return message.get("content")
    return None


def _recorded_response(path: Path, use_id: Any) -> Any:
    """The structured result the transcript recorded for the call (Claude Code's
    `toolUseResult`: for Bash ``{stdout, stderr, interrupted, isImage, noOutputExpected}``),
    or None when its line has none."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for raw in lines:
        try:
            line = json.loads(raw)
        except json.JSONDecodeError:
            continue
        if not isinstance(line, dict) or "toolUseResult" not in line:
            continue
        content = (line.get("message") or {}).get("content")
        blocks = content if isinstance(content, list) else []
        if any(isinstance(b, dict) and b.get("tool_use_id") == use_id for b in blocks):
            return line["toolUseResult"]
    return None


def recorded_call(path: Path, event: Event, tool_use: str | None) -> dict[str, Any]:
    """The event input for a recorded call (the last one without `tool_use`): session and
    transcript path, tool name, input and use id; for PostToolUse the structured result the
    transcript recorded (else the text the model was shown, as ``{"content": ...}``), for
    PostToolUseFailure the error text the model was shown."""
    if event not in TOOL_EVENTS:
        names = ", ".join(sorted(e.value for e in TOOL_EVENTS))
        raise RecordedCallError(f"--from-transcript replays a tool call: use one of {names}")
    messages = _messages(path)
    call = _pick(_calls(messages), path, tool_use)
    function = call.get("function") or {}
    try:
        arguments = json.loads(function.get("arguments") or "{}")
    except json.JSONDecodeError:
        arguments = {}
    data: dict[str, Any] = {
        "session_id": path.stem,
        "transcript_path": str(path.resolve()),
        "tool_name": function.get("name"),
        "tool_input": arguments if isinstance(arguments, dict) else {},
        "tool_use_id": call.get("id"),
    }
    if event in RESULT_EVENTS:
        content = _result_of(messages, call.get("id"))
        if event in FAILURE_EVENTS:
            data["error"] = content if isinstance(content, str) else json.dumps(content)
        else:
            recorded = _recorded_response(path, call.get("id"))
            data["tool_response"] = recorded if recorded is not None else {"content": content}
    return data
