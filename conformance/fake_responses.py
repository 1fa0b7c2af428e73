"""A scripted OpenAI model API on 127.0.0.1, shared by real Codex CLI and hookwright.

Codex speaks the Responses API (`POST /v1/responses`, streamed), as does `hookwright run
--model openai-responses:NAME`; `--model openai:NAME` speaks chat completions (`POST
/v1/chat/completions`). All take the next scripted turn of one script, so a case states each
shell call once: Codex gets it as its `exec_command` tool (`{"cmd": ...}`), hookwright as
`Bash` (`{"command": ...}`), by the tools the request offers. Requests that
offer no shell tool (titles, summaries) are side requests and get `side_reply`. Every request
body is recorded with the API it came through.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.loopback import LoopbackHandler, LoopbackServer

CODEX_SHELL = "exec_command"
HOOKWRIGHT_SHELL = "Bash"


@dataclass(frozen=True, slots=True)
class Shell:
    """One shell call of a scripted turn."""

    id: str
    command: str


@dataclass(frozen=True, slots=True)
class Reply:
    """One scripted assistant message: optional text, then shell calls."""

    text: str = ""
    calls: Sequence[Shell] = ()
    #: An HTTP error status to answer with instead (its body an OpenAI error object).
    status: int | None = None


@dataclass(slots=True)
class Recorded:
    api: str  # "responses" | "chat"
    body: dict[str, Any]
    loop: bool


@dataclass(slots=True)
class Script:
    turns: deque[Reply] = field(default_factory=deque)
    side_reply: str = "ok"
    requests: list[Recorded] = field(default_factory=list)


def _tool_names(body: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    for tool in body.get("tools") or ():
        if isinstance(tool, dict):
            function = tool.get("function")
            named = function if isinstance(function, dict) else tool
            names.add(str(named.get("name", "")))
    return names


class FakeOpenAI(LoopbackServer):
    """Context manager; `load` replaces the script between runs of one case."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.script = Script()
        self._count = 0
        super().__init__(_Handler)

    @property
    def base_url(self) -> str:
        """The API root both agents are given (`.../v1`)."""
        return f"{self.origin}/v1"

    def load(self, turns: Sequence[Reply], side_reply: str = "ok") -> Script:
        with self._lock:
            self.script = Script(deque(turns), side_reply)
            return self.script

    def next_id(self) -> int:
        with self._lock:
            self._count += 1
            return self._count

    def take(self, api: str, body: dict[str, Any]) -> Reply:
        loop = bool(_tool_names(body) & {CODEX_SHELL, HOOKWRIGHT_SHELL})
        with self._lock:
            self.script.requests.append(Recorded(api, body, loop))
            if loop and self.script.turns:
                return self.script.turns.popleft()
            if loop:
                return Reply("(script exhausted)")
            return Reply(self.script.side_reply)


class _Handler(LoopbackHandler[FakeOpenAI]):
    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path.endswith("/models"):
            self.send_json(200, {"object": "list", "data": [], "models": []})
            return
        self.send_json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        body = self.read_json_object()
        if path.endswith("/responses"):
            self._responses(self.owner.take("responses", body), body)
        elif path.endswith("/chat/completions"):
            self._chat(self.owner.take("chat", body), body)
        else:
            self.send_json(404, {"error": {"message": f"no {path} here"}})

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()

    def _sse(self, data: dict[str, Any], name: str | None = None) -> None:
        head = f"event: {name}\n" if name else ""
        self.wfile.write(f"{head}data: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    # Responses API (Codex) -------------------------------------------------------------------

    def _responses(self, reply: Reply, body: dict[str, Any]) -> None:
        if reply.status is not None:
            error = {"message": "MARK the model failed", "type": "server_error", "code": None}
            self.send_json(reply.status, {"error": error})
            return
        number = self.owner.next_id()
        response = {"id": f"resp_{number}", "object": "response", "model": body.get("model")}
        self._start_stream()
        self._event("response.created", {"response": {**response, "status": "in_progress"}})
        items: list[dict[str, Any]] = []
        if reply.text:
            items.append(
                {
                    "type": "message",
                    "id": f"msg_{number}",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
                }
            )
        codex = CODEX_SHELL in _tool_names(body)
        for call in reply.calls:
            arguments = {"cmd": call.command} if codex else {"command": call.command}
            items.append(
                {
                    "type": "function_call",
                    "id": f"fc_{call.id}",
                    "call_id": call.id,
                    "name": CODEX_SHELL if codex else HOOKWRIGHT_SHELL,
                    "arguments": json.dumps(arguments),
                    "status": "completed",
                }
            )
        for index, item in enumerate(items):
            self._event("response.output_item.added", {"output_index": index, "item": item})
            if item["type"] == "message":
                delta = {"output_index": index, "content_index": 0, "delta": reply.text}
                self._event("response.output_text.delta", {"item_id": item["id"], **delta})
            self._event("response.output_item.done", {"output_index": index, "item": item})
        usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
        done = {**response, "status": "completed", "output": items, "usage": usage}
        self._event("response.completed", {"response": done})

    def _event(self, name: str, data: dict[str, Any]) -> None:
        self._sse({"type": name, **data}, name)

    # Chat completions (hookwright) -----------------------------------------------------------

    def _chat(self, reply: Reply, body: dict[str, Any]) -> None:
        number = self.owner.next_id()
        model = str(body.get("model", "gpt"))
        base = {"id": f"chatcmpl_{number}", "object": "chat.completion.chunk", "model": model}
        self._start_stream()
        delta: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if reply.calls:
            delta["tool_calls"] = [
                {
                    "index": index,
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": HOOKWRIGHT_SHELL,
                        "arguments": json.dumps({"command": call.command}),
                    },
                }
                for index, call in enumerate(reply.calls)
            ]
        self._sse({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        finish = "tool_calls" if reply.calls else "stop"
        self._sse({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
