"""A scripted Gemini API on 127.0.0.1 for real Gemini CLI: `:streamGenerateContent?alt=sse`.

Requests that offer Gemini's shell tool belong to the agent loop and take the next scripted
turn (tool calls named as the reference agent names them, `Bash`, sent as Gemini's
`run_shell_command`; none when the request's function-calling mode is NONE, as the model
would); every other request (`:generateContent` side queries) gets a JSON
answer saying the user speaks next. Every request body is recorded.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Sequence
from typing import Any

from conformance.fake_api import Recorded, Script, ToolUse, Turn
from conformance.loopback import LoopbackHandler, LoopbackServer
from hookwright.dialects.gemini.events import gemini_tool

SIDE_ANSWER = {"reasoning": "The answer is complete.", "next_speaker": "user"}


def is_loop_request(body: dict[str, Any]) -> bool:
    for tool in body.get("tools") or []:
        for declaration in tool.get("functionDeclarations") or []:
            if declaration.get("name") == "run_shell_command":
                return True
    return False


class FakeGemini(LoopbackServer):
    """Context manager; `load` replaces the script between runs of one case."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.script = Script()
        super().__init__(_Handler)

    @property
    def base_url(self) -> str:
        return self.origin

    def load(self, turns: Sequence[Turn]) -> Script:
        with self._lock:
            self.script = Script(deque(turns))
            return self.script

    def take(self, path: str, body: dict[str, Any]) -> Turn | None:
        loop = is_loop_request(body)
        with self._lock:
            self.script.requests.append(Recorded(path, body, loop))
            if not loop:
                return None
            return self.script.turns.popleft() if self.script.turns else Turn("(end)")


class _Handler(LoopbackHandler[FakeGemini]):
    def do_POST(self) -> None:
        body = self.read_json_object()
        turn = self.owner.take(self.path, body)
        if turn is not None:
            turn = _callable(turn, body)
        chunk = _chunk(turn)
        if ":streamGenerateContent" in self.path:
            data = f"data: {json.dumps(chunk)}\r\n\r\n".encode()
            content_type = "text/event-stream"
        else:
            data = json.dumps(chunk).encode()
            content_type = "application/json"
        self.send_bytes(200, data, content_type)

    def do_GET(self) -> None:
        self.send_bytes(404, b"")


def _callable(turn: Turn, body: dict[str, Any]) -> Turn:
    """The turn as a model bound by the request's function-calling config answers it: with
    mode NONE in text only; with `allowedFunctionNames` calling only those functions."""
    config = (body.get("toolConfig") or {}).get("functionCallingConfig") or {}
    allowed = config.get("allowedFunctionNames") or []
    if config.get("mode") == "NONE":
        uses: list[ToolUse] = []
    elif allowed:
        uses = [use for use in turn.tools if gemini_tool(use.name, use.input)[0] in allowed]
    else:
        return turn
    return Turn(turn.text or ("" if uses else "(no tools)"), uses)


def _chunk(turn: Turn | None) -> dict[str, Any]:
    if turn is None:
        parts: list[dict[str, Any]] = [{"text": json.dumps(SIDE_ANSWER)}]
    else:
        parts = [{"text": turn.text}] if turn.text else []
        for use in turn.tools:
            name, args = gemini_tool(use.name, use.input)
            parts.append({"functionCall": {"id": use.id, "name": name, "args": args}})
    candidate = {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
    usage = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
    return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": "gemini-2.5-flash"}
