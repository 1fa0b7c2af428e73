"""A scripted OpenAI model API on 127.0.0.1, shared by real Codex CLI and hookwright.

Codex speaks the Responses API (`POST /v1/responses`, streamed), as does `hookwright run
--model openai-responses:NAME`; `--model openai:NAME` speaks chat completions (`POST
/v1/chat/completions`). All take the next scripted turn of one script, so a case states each
shell call once: Codex gets it as its `exec_command` tool (`{"cmd": ...}`), hookwright as
`Bash` (`{"command": ...}`), by the tools the request offers. Requests that
offer no shell tool (titles, summaries) are side requests and get `side_reply`. Every request
body is recorded with the API it came through.

A turn may start a subagent (`Spawn`): Codex gets it as its `spawn_agent` tool (namespace
`multi_agent_v1`, `{"message": ...}`) and a later `Wait` as `wait_agent` on the id Codex
answered with; hookwright gets it as its `Agent` tool, which returns when the subagent is done,
so a turn of `Wait` calls alone is left out of its script. The subagent's own requests (those
holding the spawn's message as a user message) take the spawn's own turns, whichever agent
asks first.
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
#: Codex CLI 0.171.0's subagent tools, in a namespace of their own (`[features] multi_agent`).
CODEX_AGENTS = "multi_agent_v1"
HOOKWRIGHT_AGENT = "Agent"


@dataclass(frozen=True, slots=True)
class Shell:
    """One shell call of a scripted turn."""

    id: str
    command: str


@dataclass(frozen=True, slots=True)
class Spawn:
    """A call starting a subagent on `message`, which then answers as `turns` script it."""

    id: str
    message: str
    turns: Sequence[Reply] = ()
    #: The kind of subagent asked for (Codex's `agent_type`, hookwright's `subagent_type`);
    #: None: Codex's call names none, hookwright's asks for `default`, as Codex names it.
    agent_type: str | None = None


@dataclass(frozen=True, slots=True)
class Wait:
    """Codex's call waiting for the subagent started by the call `spawn` (its id)."""

    id: str
    spawn: str


Call = Shell | Spawn | Wait


@dataclass(frozen=True, slots=True)
class Reply:
    """One scripted assistant message: optional text, then calls."""

    text: str = ""
    calls: Sequence[Call] = ()
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
    #: Each subagent's turns, by the message it was started on.
    subagents: dict[str, deque[Reply]] = field(default_factory=dict)


def _spawned(turns: Sequence[Reply]) -> dict[str, deque[Reply]]:
    return {
        call.message: deque(call.turns)
        for turn in turns
        for call in turn.calls
        if isinstance(call, Spawn)
    }


def _user_texts(body: dict[str, Any]) -> list[str]:
    texts = []
    for item in body.get("input") or body.get("messages") or ():
        if isinstance(item, dict) and item.get("role") == "user":
            content = item.get("content")
            parts = content if isinstance(content, list) else [{"text": content}]
            texts.append("".join(str(p.get("text", "")) for p in parts if isinstance(p, dict)))
    return texts


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
            self.script = Script(deque(turns), side_reply, subagents=_spawned(turns))
            return self.script

    def next_id(self) -> int:
        with self._lock:
            self._count += 1
            return self._count

    def take(self, api: str, body: dict[str, Any]) -> Reply:
        names = _tool_names(body)
        loop = bool(names & {CODEX_SHELL, HOOKWRIGHT_SHELL})
        with self._lock:
            self.script.requests.append(Recorded(api, body, loop))
            if not loop:
                return Reply(self.script.side_reply)
            turns = self._turns_for(body)
            if CODEX_AGENTS not in names:
                while turns and turns[0].calls and all(isinstance(c, Wait) for c in turns[0].calls):
                    turns.popleft()
            return turns.popleft() if turns else Reply("(script exhausted)")

    def _turns_for(self, body: dict[str, Any]) -> deque[Reply]:
        """The subagent's turns when `body` holds the message it was started on, else the
        main script's."""
        for text in _user_texts(body):
            if text in self.script.subagents:
                return self.script.subagents[text]
        return self.script.turns


def _codex_call(call: Call, body: dict[str, Any]) -> dict[str, Any]:
    """The name (and namespace) and arguments of `call` as Codex's tools take it."""
    if isinstance(call, Shell):
        return {"name": CODEX_SHELL, "arguments": json.dumps({"cmd": call.command})}
    if isinstance(call, Spawn):
        spawn = {"message": call.message}
        if call.agent_type is not None:
            spawn["agent_type"] = call.agent_type
        return {"name": "spawn_agent", "namespace": CODEX_AGENTS, "arguments": json.dumps(spawn)}
    wait = {"targets": [_spawned_id(body, call.spawn)], "timeout_ms": 60000}
    return {"name": "wait_agent", "namespace": CODEX_AGENTS, "arguments": json.dumps(wait)}


def _spawned_id(body: dict[str, Any], call_id: str) -> str:
    """The agent id Codex answered the `spawn_agent` call `call_id` with."""
    for item in body.get("input") or ():
        if item.get("type") == "function_call_output" and item.get("call_id") == call_id:
            try:
                return str(json.loads(item.get("output") or "{}").get("agent_id", ""))
            except (ValueError, AttributeError):
                return ""
    return ""


def _hookwright_call(call: Call) -> dict[str, Any] | None:
    """`call` as hookwright's tools take it; None for a `Wait` (its `Agent` call waits)."""
    if isinstance(call, Shell):
        return {"name": HOOKWRIGHT_SHELL, "arguments": json.dumps({"command": call.command})}
    if isinstance(call, Spawn):
        arguments = {
            "prompt": call.message,
            "description": "subtask",
            "subagent_type": call.agent_type or "default",
        }
        return {"name": HOOKWRIGHT_AGENT, "arguments": json.dumps(arguments)}
    return None


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
            named = _codex_call(call, body) if codex else _hookwright_call(call)
            if named is not None:
                items.append(
                    {
                        "type": "function_call",
                        "id": f"fc_{call.id}",
                        "call_id": call.id,
                        **named,
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
        named = [(call.id, _hookwright_call(call)) for call in reply.calls]
        calls = [(call_id, function) for call_id, function in named if function is not None]
        if calls:
            delta["tool_calls"] = [
                {"index": index, "id": call_id, "type": "function", "function": function}
                for index, (call_id, function) in enumerate(calls)
            ]
        self._sse({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        finish = "tool_calls" if calls else "stop"
        self._sse({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
