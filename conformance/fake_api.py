"""A scripted Anthropic Messages API on 127.0.0.1, shared by real Claude Code and hookwright.

Requests that offer a `Bash` tool belong to the agent loop and take the next scripted turn;
every other request (titles, hook models, summaries) is a side request and gets `side_reply`.
Tool-use ids come from the script, so both agents see the same ids. Every request body is
recorded, so a case can compare what each model was given.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.loopback import LoopbackHandler, LoopbackServer


@dataclass(frozen=True, slots=True)
class ToolUse:
    id: str
    name: str
    input: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Turn:
    """One scripted assistant message: optional text, then tool calls."""

    text: str = ""
    tools: Sequence[ToolUse] = ()
    error: int | None = None
    """Answer with this HTTP status and the API's error body instead (e.g. 400)."""


@dataclass(slots=True)
class Recorded:
    path: str
    body: dict[str, Any]
    loop: bool


@dataclass(slots=True)
class Script:
    turns: deque[Turn] = field(default_factory=deque)
    side_reply: str = "ok"
    requests: list[Recorded] = field(default_factory=list)


def is_loop_request(body: dict[str, Any]) -> bool:
    tools = body.get("tools")
    if not isinstance(tools, list):
        return False
    return any(isinstance(tool, dict) and tool.get("name") == "Bash" for tool in tools)


class FakeAnthropic(LoopbackServer):
    """Context manager; `load` replaces the script between runs of one case."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.script = Script()
        self._message_count = 0
        super().__init__(_Handler)

    @property
    def base_url(self) -> str:
        return self.origin

    def load(self, turns: Sequence[Turn], side_reply: str = "ok") -> Script:
        with self._lock:
            self.script = Script(deque(turns), side_reply)
            return self.script

    def next_message_id(self) -> str:
        """A fresh id per reply: Claude Code merges replies that share an id into one message."""
        with self._lock:
            self._message_count += 1
            return f"msg_fake_{self._message_count}"

    def take(self, path: str, body: dict[str, Any]) -> Turn:
        loop = is_loop_request(body)
        with self._lock:
            self.script.requests.append(Recorded(path, body, loop))
            if loop and self.script.turns:
                return self.script.turns.popleft()
            if loop:
                return Turn("(script exhausted)")
            return Turn(self.script.side_reply)


class _Handler(LoopbackHandler[FakeAnthropic]):
    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        body = self.read_json_object()
        if not path.endswith("/messages"):
            self.send_json(200 if path.endswith("count_tokens") else 404, {"input_tokens": 10})
            return
        turn = self.owner.take(path, body)
        model = str(body.get("model", "claude"))
        if turn.error is not None:
            self.send_json(turn.error, _error_body(turn.error))
            return
        if body.get("stream"):
            self._stream(turn, model)
        else:
            self.send_json(200, _message(turn, model, self.owner.next_message_id()))

    def do_GET(self) -> None:
        self.send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": ""}})

    def do_HEAD(self) -> None:
        self.send_json(200, {})

    def _stream(self, turn: Turn, model: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        message_id = self.owner.next_message_id()
        start = _message(Turn(), model, message_id) | {"stop_reason": None}
        self._event("message_start", {"message": start})
        for index, block in enumerate(_blocks(turn)):
            empty = {**block, "input": {}} if block["type"] == "tool_use" else {**block, "text": ""}
            self._event("content_block_start", {"index": index, "content_block": empty})
            if block["type"] == "tool_use":
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            else:
                delta = {"type": "text_delta", "text": block["text"]}
            self._event("content_block_delta", {"index": index, "delta": delta})
            self._event("content_block_stop", {"index": index})
        stop = {"stop_reason": _stop_reason(turn), "stop_sequence": None}
        self._event("message_delta", {"delta": stop, "usage": {"output_tokens": 5}})
        self._event("message_stop", {})

    def _event(self, name: str, data: dict[str, Any]) -> None:
        payload = json.dumps({"type": name, **data})
        self.wfile.write(f"event: {name}\ndata: {payload}\n\n".encode())
        self.wfile.flush()


def _blocks(turn: Turn) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
    blocks += [
        {"type": "tool_use", "id": use.id, "name": use.name, "input": use.input}
        for use in turn.tools
    ]
    return blocks


def _stop_reason(turn: Turn) -> str:
    return "tool_use" if turn.tools else "end_turn"


def _message(turn: Turn, model: str, message_id: str) -> dict[str, Any]:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": _blocks(turn),
        "stop_reason": _stop_reason(turn),
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error"}


def _error_body(status: int) -> dict[str, Any]:
    kind = _ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": f"scripted {status}"}}
