"""A stand-in for the Claude Code CLI behind claude-agent-sdk: a custom `Transport` (the SDK's
own tests drive its control protocol the same way), with no process and no network.

It speaks the CLI's side of the protocol: answers ``initialize`` (keeping the hook callbacks it
names), reads user messages, asks the SDK's hook callbacks (``hook_callback``), its permission
callback (``can_use_tool``) and its in-process MCP servers (``mcp_message``), and streams
assistant, user and result messages back. The model is scripted; what the CLI does with hook
answers follows Claude Code 2.1.240 as measured (docs/claude-code.md): UserPromptSubmit
``decision: block`` stops the turn before the model; context becomes a system message after the
prompt or the tool results (``<Event>[:<tool>] hook additional context: ...``); PreToolUse
``deny`` answers the call with the reason as an error, ``ask`` goes to ``can_use_tool`` (refused
with the reason without one), as does a call of a tool in `prompted_tools` (one the CLI's
permission rules do not allow) that no hook allowed or denied; ``updatedInput`` is what runs;
PostToolUse (PostToolUseFailure for an error result) follows every call that ran;
``continue: false`` ends the turn after the tool; a Stop block adds ``Stop hook
feedback:\\n<reason>`` as a user message, at most ``CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`` (from
the options' env, as the CLI's process has it) times in a row.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from claude_agent_sdk import ClaudeAgentOptions, Transport

from .scenario import EXHAUSTED, Reply

CAP_ENV = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"
Message = dict[str, Any]


@dataclass
class Answer:
    """The hook callbacks' answers for one event, merged."""

    block: str | None = None
    permission: str | None = None
    reason: str | None = None
    updated_input: dict[str, Any] | None = None
    context: list[str] = field(default_factory=list)
    stop: bool = False

    def take(self, output: Message) -> None:
        specific = output.get("hookSpecificOutput") or {}
        if output.get("decision") == "block":
            self.block = str(output.get("reason") or "")
        decision = specific.get("permissionDecision")
        rank = ("allow", "ask", "deny")
        if decision in rank and rank.index(decision) >= rank.index(self.permission or "allow"):
            self.permission, self.reason = decision, specific.get("permissionDecisionReason")
        if isinstance(specific.get("updatedInput"), dict):
            self.updated_input = specific["updatedInput"]
        if specific.get("additionalContext"):
            self.context.append(str(specific["additionalContext"]))
        self.stop = self.stop or output.get("continue") is False


class FakeClaudeCLI(Transport):
    def __init__(self, options: ClaudeAgentOptions, session_id: str = "cli-session") -> None:
        self.options = options
        self.session_id = session_id
        self.replies: list[Reply] = []
        #: What the model saw at each call: Messages API messages.
        self.calls: list[list[Message]] = []
        self.messages: list[Message] = []
        self.results: list[Message] = []
        #: Tools the CLI prompts about itself (its permission rules do not allow them).
        self.prompted_tools: set[str] = set()
        self._hooks: dict[str, list[Message]] = {}
        self._out: asyncio.Queue[Message | None] = asyncio.Queue()
        self._pending: dict[str, asyncio.Future[Message]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._mcp_ready: set[str] = set()
        self._ids = 0

    # Transport --------------------------------------------------------------------------------

    async def connect(self) -> None:
        pass

    def is_ready(self) -> bool:
        return True

    async def write(self, data: str) -> None:
        for line in data.splitlines():
            message = json.loads(line)
            kind = message.get("type")
            if kind == "control_response":
                response = message["response"]
                self._pending.pop(response["request_id"]).set_result(response)
            elif kind == "control_request":
                await self._answer_control(message)
            elif kind == "user":
                self._spawn(self._guarded(str(message["message"]["content"])))

    async def read_messages(self) -> AsyncIterator[Message]:
        while (message := await self._out.get()) is not None:
            yield message

    async def end_input(self) -> None:
        self._spawn(self._finish())

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await self._out.put(None)

    # The control protocol ---------------------------------------------------------------------

    def _spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _finish(self) -> None:
        await asyncio.gather(*[t for t in self._tasks if t is not asyncio.current_task()])
        await self._out.put(None)

    async def _answer_control(self, message: Message) -> None:
        request = message["request"]
        body: Message = {}
        if request["subtype"] == "initialize":
            self._hooks = request.get("hooks") or {}
            body = {"commands": [], "hook_on_failure_supported": True}
        reply = {"subtype": "success", "request_id": message["request_id"], "response": body}
        await self._out.put({"type": "control_response", "response": reply})

    async def _ask(self, request: Message) -> Message:
        self._ids += 1
        request_id = f"cli_{self._ids}"
        answer: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = answer
        await self._out.put(
            {"type": "control_request", "request_id": request_id, "request": request}
        )
        return await answer

    async def _hook(self, event: str, fields: Message, tool: str | None = None) -> Answer:
        hook_input = {
            "session_id": self.session_id,
            "transcript_path": f"/fake/{self.session_id}.jsonl",
            "cwd": str(self.options.cwd),
            "permission_mode": "default",
            "hook_event_name": event,
            **fields,
        }
        merged = Answer()
        for matcher in self._hooks.get(event, []):
            pattern = matcher.get("matcher")
            if (
                tool is not None
                and pattern not in (None, "", "*")
                and not re.fullmatch(pattern, tool)
            ):
                continue
            for callback in matcher["hookCallbackIds"]:
                request = {"subtype": "hook_callback", "callback_id": callback, "input": hook_input}
                response = await self._ask({**request, "tool_use_id": fields.get("tool_use_id")})
                if response["subtype"] == "success":
                    merged.take(response["response"])
                elif matcher.get("onFailure") == "block":
                    merged.block = merged.reason = f"hook callback failed: {response['error']}"
                    merged.permission = "deny"
        return merged

    async def _permission(
        self, name: str, tool_input: Message, reason: str, call_id: str
    ) -> Message:
        if self.options.can_use_tool is None:
            return {"behavior": "deny", "message": reason}
        request = {"subtype": "can_use_tool", "tool_name": name, "input": tool_input}
        request.update(decision_reason=reason, decision_reason_type="hook", tool_use_id=call_id)
        response = await self._ask(request)
        return response["response"] if response["subtype"] == "success" else {"behavior": "deny"}

    async def _mcp(self, server: str, method: str, params: Message) -> Message:
        if server not in self._mcp_ready:
            self._mcp_ready.add(server)
            hello = {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "fake"},
            }
            await self._mcp(server, "initialize", hello)
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            await self._ask({"subtype": "mcp_message", "server_name": server, "message": note})
        self._ids += 1
        call = {"jsonrpc": "2.0", "id": self._ids, "method": method, "params": params}
        response = await self._ask(
            {"subtype": "mcp_message", "server_name": server, "message": call}
        )
        return dict(response["response"]["mcp_response"].get("result") or {})

    # The agent loop ---------------------------------------------------------------------------

    def _emit(self, kind: str, **fields: Any) -> Any:
        return self._out.put({"type": kind, "session_id": self.session_id, **fields})

    async def _guarded(self, prompt: str) -> None:
        """A turn; a failure of this stand-in ends it with an error result, not a hang."""
        try:
            await self._turn(prompt)
        except Exception as exc:
            failed = {"subtype": "error_during_execution", "duration_ms": 0, "duration_api_ms": 0}
            await self._emit("result", **failed, is_error=True, num_turns=0, result=repr(exc))

    async def _turn(self, prompt: str) -> None:
        answer = await self._hook("UserPromptSubmit", {"prompt": prompt})
        if answer.block is not None or answer.stop:
            text = f"UserPromptSubmit operation blocked by hook:\n{answer.block}"
            return await self._result(f"{text}\n\nOriginal prompt: {prompt}", 0)
        self.messages.append({"role": "user", "content": prompt})
        self._notes([f"UserPromptSubmit hook additional context: {c}" for c in answer.context])
        blocks, turns = 0, 0
        cap = int(self.options.env.get(CAP_ENV, "8"))
        while True:
            turns += 1
            reply = self._model()
            content = [{"type": "text", "text": reply.text}] if reply.text else []
            content += [
                {"type": "tool_use", "id": c.id, "name": c.name, "input": c.args}
                for c in reply.calls
            ]
            self.messages.append({"role": "assistant", "content": content})
            await self._emit(
                "assistant",
                message={"role": "assistant", "model": "fake", "content": content},
                parent_tool_use_id=None,
            )
            if reply.calls:
                if await self._tools(reply):
                    return await self._result(reply.text, turns)
                continue
            stop = await self._hook(
                "Stop", {"stop_hook_active": blocks > 0, "last_assistant_message": reply.text}
            )
            if stop.block is None or blocks >= cap or stop.stop:
                return await self._result(reply.text, turns)
            blocks += 1
            self.messages.append({"role": "user", "content": f"Stop hook feedback:\n{stop.block}"})

    def _model(self) -> Reply:
        self.calls.append(copy.deepcopy(self.messages))
        return self.replies.pop(0) if self.replies else Reply(EXHAUSTED)

    def _notes(self, notes: Sequence[str]) -> None:
        if notes:
            self.messages.append({"role": "system", "content": "\n\n".join(notes)})

    async def _tools(self, reply: Reply) -> bool:
        """Run the reply's calls; True when a hook ended the turn."""
        results, notes, ended = [], [], False
        for call in reply.calls:
            result, note, stop = await self._tool(call.id, call.name, call.args)
            results.append(result)
            notes += note
            ended = ended or stop
        self.messages.append({"role": "user", "content": results})
        self._notes(notes)
        await self._emit(
            "user", message={"role": "user", "content": results}, parent_tool_use_id=None
        )
        return ended

    async def _tool(
        self, call_id: str, name: str, args: Message
    ) -> tuple[Message, list[str], bool]:
        fields = {"tool_name": name, "tool_input": args, "tool_use_id": call_id}
        pre = await self._hook("PreToolUse", fields, name)
        notes = [f"PreToolUse:{name} hook additional context: {c}" for c in pre.context]
        tool_input = pre.updated_input if pre.updated_input is not None else args
        if pre.permission == "deny":
            return _result(call_id, pre.reason or "", True), notes, pre.stop
        prompted = pre.permission is None and name in self.prompted_tools
        if pre.permission == "ask" or prompted:
            verdict = await self._permission(name, tool_input, pre.reason or "", call_id)
            if verdict.get("behavior") != "allow":
                return _result(call_id, str(verdict.get("message") or ""), True), notes, pre.stop
            tool_input = verdict.get("updatedInput") or tool_input
        _, server, tool = name.split("__", 2)
        ran = await self._mcp(server, "tools/call", {"name": tool, "arguments": tool_input})
        text = "\n".join(part.get("text", "") for part in ran.get("content", []))
        failed = bool(ran.get("isError"))
        event = "PostToolUseFailure" if failed else "PostToolUse"
        outcome = (
            {"error": text, "is_interrupt": False}
            if failed
            else {"tool_response": ran.get("content", [])}
        )
        post = await self._hook(event, {**fields, "tool_input": tool_input, **outcome}, name)
        notes += [f"{event}:{name} hook additional context: {c}" for c in post.context]
        if post.block is not None:
            notes.append(f"{event}:{name} hook blocking error: {post.block}")
        return _result(call_id, text, failed), notes, pre.stop or post.stop

    async def _result(self, text: str, turns: int) -> None:
        result = {"subtype": "success", "duration_ms": 0, "duration_api_ms": 0, "is_error": False}
        self.results.append({**result, "result": text})
        await self._emit("result", **result, num_turns=turns, result=text)


def _result(call_id: str, text: str, is_error: bool) -> Message:
    return {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": is_error}
