"""PicoClaw's hook calls answered by a project's hooks (`hookwright picoclaw-process`).

Each PicoClaw session (`meta.SessionKey`) is a `HookSession` on the project's Claude Code,
OpenHarness, skill and Python hooks (its PicoClaw hooks are PicoClaw's own, so they are left
out and nothing runs twice). PicoClaw's tools are seen by hooks under Claude Code's names
(`exec` is `Bash`, ...). Context a hook gives the model rides on the next thing PicoClaw lets
a hook change: the tool result of the call (after_tool) or the next model request
(before_llm, as a user message)."""

from __future__ import annotations

import asyncio
import sys
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookwright.bridges import picoclaw_answers as answers
from hookwright.bridges.picoclaw_rpc import INVALID_PARAMS, METHOD_NOT_FOUND, Call, RpcFault
from hookwright.core.messages import text_of
from hookwright.dialects.picoclaw.codec import content_for_llm, llm_response_from_wire
from hookwright.host.decisions import ModelRequest, ToolResult
from hookwright.host.session import HookSession, SessionIdentity
from hookwright.host.tool_alias import ToolAlias
from hookwright.host.toolmap import ToolMap
from hookwright.monitor.audit import default_audit_path

#: PicoClaw's tools as hooks see them (Claude Code's names and argument names).
PICOCLAW_TOOLS = ToolMap(
    [
        ToolAlias("exec", "Bash", {"working_dir": "cwd"}),
        ToolAlias("read_file", "Read", {"path": "file_path"}),
        ToolAlias("write_file", "Write", {"path": "file_path"}),
        ToolAlias(
            "edit_file",
            "Edit",
            {"path": "file_path", "old_text": "old_string", "new_text": "new_string"},
        ),
        ToolAlias("web_fetch", "WebFetch"),
        ToolAlias("web_search", "WebSearch"),
    ]
)
INTERCEPTORS = ("before_llm", "after_llm", "before_tool", "after_tool", "approve_tool")
NOTIFICATIONS = ("hook.event", "hook.runtime_event")
#: The legacy `hook.event` Kind index of turn_end (PicoClaw v0.2.4 to v0.2.8).
LEGACY_TURN_END = 1
MAX_SESSIONS = 32
DEFAULT_SESSION = "picoclaw"


def hello_result() -> dict[str, Any]:
    """PicoClaw ignores what hello answers; this names what the process serves."""
    return {
        "ok": True,
        "name": "hookwright",
        "methods": [f"hook.{name}" for name in INTERCEPTORS],
        "notifications": list(NOTIFICATIONS),
    }


def untrusted_answer(call: Call) -> Any:
    """What an untrusted project answers: nothing changes, every tool is approved (PicoClaw
    denies on anything but `approved: true`)."""
    if call.method == "hook.hello":
        return hello_result()
    if call.method == "hook.approve_tool":
        return answers.APPROVED
    if call.method.removeprefix("hook.") in INTERCEPTORS:
        return answers.CONTINUE
    raise RpcFault(METHOD_NOT_FOUND, f"method not found: {call.method}", call.id)


def _mapping(params: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = params.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise RpcFault(INVALID_PARAMS, f"invalid params: {key} is not an object")
    return dict(value)


def _text(params: Mapping[str, Any], key: str) -> str:
    value = params.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RpcFault(INVALID_PARAMS, f"invalid params: {key} is not a string")
    return value


def _list(params: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    value = params.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise RpcFault(INVALID_PARAMS, f"invalid params: {key} is not a list of objects")
    return [dict(v) for v in value]


def _iteration(meta: Mapping[str, Any]) -> int:
    value = meta.get("Iteration")
    return max(value - 1, 0) if isinstance(value, int) and not isinstance(value, bool) else 0


def last_user_text(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return text_of(message.get("content"))
    return ""


@dataclass
class _Session:
    """One PicoClaw session's hooks and what spans its calls."""

    hooks: HookSession
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    turns: OrderedDict[str, None] = field(default_factory=OrderedDict)
    calls: int = 0
    call_id: str = ""
    notes: list[str] = field(default_factory=list)
    stop: str | None = None
    request: ModelRequest | None = None
    reply: str = ""

    def new_turn(self, turn: str) -> bool:
        if turn in self.turns:
            return False
        self.turns[turn] = None
        if len(self.turns) > 64:
            self.turns.popitem(last=False)
        return True

    def next_call(self) -> str:
        self.calls += 1
        self.call_id = f"picoclaw_call_{self.calls}"
        return self.call_id

    def take_notes(self) -> list[str]:
        notes, self.notes = self.notes, []
        return notes


class PicoClawBridge:
    """Answers PicoClaw's hook calls with a trusted project's hooks."""

    def __init__(self, project: Path, home: Path) -> None:
        self.project = project
        self.home = home
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._opening = asyncio.Lock()

    async def answer(self, call: Call) -> Any:
        """The result of a request, or None for a notification; raises `RpcFault`."""
        if call.method == "hook.hello":
            _check_modes(call.params.get("modes"))
            return hello_result()
        if call.method in NOTIFICATIONS:
            await self._observe(call.params)
            return None
        name = call.method.removeprefix("hook.")
        if name not in INTERCEPTORS or name == call.method:
            raise RpcFault(METHOD_NOT_FOUND, f"method not found: {call.method}", call.id)
        meta = _mapping(call.params, "meta")
        session = await self._session(meta, call.params)
        async with session.lock:
            return await getattr(self, f"_{name}")(session, call.params, meta)

    async def _session(self, meta: Mapping[str, Any], params: Mapping[str, Any]) -> _Session:
        key = str(meta.get("SessionKey") or DEFAULT_SESSION)
        async with self._opening:
            known = self._sessions.get(key)
            if known is not None:
                self._sessions.move_to_end(key)
                return known
            hooks = await HookSession.open(
                self.project,
                home=self.home,
                exclude_dialects={"picoclaw"},
                tool_map=PICOCLAW_TOOLS,
                audit_path=default_audit_path(),
                identity=SessionIdentity(session_id=key, channel=_channel(params)),
            )
            hooks.engine.audit.describe(host="picoclaw bridge")
            for line in hooks.diagnostics:
                sys.stderr.write(f"hookwright: {line}\n")
            session = _Session(hooks)
            await hooks.begin()
            session.notes.extend((await hooks.start("startup")).context)
            self._sessions[key] = session
            if len(self._sessions) > MAX_SESSIONS:
                _, oldest = self._sessions.popitem(last=False)
                await _close(oldest)
            return session

    async def aclose(self) -> None:
        """PicoClaw closed our stdin: every session ends (SessionEnd), processes stop."""
        while self._sessions:
            _, session = self._sessions.popitem(last=False)
            await _close(session)

    # Tools -----------------------------------------------------------------------------------

    async def _before_tool(self, s: _Session, params: Mapping[str, Any], meta: Any) -> Any:
        tool, args = _text(params, "tool"), _mapping(params, "arguments")
        s.hooks.identity.turn_id = str(meta.get("TurnID") or "") or None
        decision = await s.hooks.before_tool(tool, args, s.next_call())
        s.notes.extend(decision.context)
        if decision.stop_after is not None:
            s.stop = decision.stop_after
        if decision.end is not None:
            return answers.end_turn(decision.end)
        return answers.tool_call(decision.action, params, tool, args)

    async def _approve_tool(self, s: _Session, params: Mapping[str, Any], meta: Any) -> Any:
        tool, args = _text(params, "tool"), _mapping(params, "arguments")
        decision = await s.hooks.permission(tool, args, s.call_id or s.next_call(), prompt=True)
        if decision.end is not None:
            s.stop = decision.end.reason
        if decision.behavior == "deny" or decision.end is not None:
            reason = decision.reason or decision.message
            return {"approved": False, "reason": reason or "denied by a hook"}
        return answers.APPROVED

    async def _after_tool(self, s: _Session, params: Mapping[str, Any], meta: Any) -> Any:
        tool, args = _text(params, "tool"), _mapping(params, "arguments")
        wire = _mapping(params, "result")
        duration = params.get("duration")
        ms = duration / 1e6 if isinstance(duration, int | float) else 0.0
        result = ToolResult(content_for_llm(wire), wire.get("is_error") is True, wire or None)
        decision = await s.hooks.after_tool(
            tool, args, s.call_id or s.next_call(), result, duration_ms=ms
        )
        s.call_id = ""
        if decision.stop_after is not None:
            s.stop = decision.stop_after
        if decision.end is not None:
            return answers.end_turn(decision.end)
        replaced = answers.replaced_output(decision.response, wire)
        if replaced is None and decision.result is not result:
            replaced = answers.result_to_wire(decision.result)
        notes = [*s.take_notes(), *decision.context]
        return answers.tool_result(params, wire, replaced, notes)

    # Model calls -----------------------------------------------------------------------------

    async def _before_llm(self, s: _Session, params: Mapping[str, Any], meta: Any) -> Any:
        messages = _list(params, "messages")
        sent = ModelRequest(
            _text(params, "model"),
            messages,
            _list(params, "tools"),
            _mapping(params, "options"),
        )
        turn = str(meta.get("TurnID") or "")
        s.hooks.identity.turn_id = turn or None
        notes: list[str] = []
        if s.new_turn(turn):
            s.stop = None
            checkpoint = await s.hooks.prompt(last_user_text(messages))
            if checkpoint.end is not None:
                return answers.end_turn(checkpoint.end)
            notes.extend(checkpoint.context)
        if s.stop is not None:
            reason, s.stop = s.stop, None
            return {"action": "abort_turn", "reason": reason}
        decision = await s.hooks.model_request(sent, iteration=_iteration(meta))
        if decision.end is not None:
            return answers.end_turn(decision.end)
        s.request = decision.request
        notes = [*s.take_notes(), *notes, *decision.notes]
        rewritten = bool(decision.rewritten)
        return answers.model_request(params, sent, decision.request, rewritten, notes)

    async def _after_llm(self, s: _Session, params: Mapping[str, Any], meta: Any) -> Any:
        response = llm_response_from_wire(_mapping(params, "response"))
        request = s.request or ModelRequest(_text(params, "model"), [])
        decision = await s.hooks.model_response(request, response, iteration=_iteration(meta))
        if decision.end is not None:
            return answers.end_turn(decision.end)
        final = decision.response if decision.response is not None else response
        s.reply = str(final.get("content") or "")
        return answers.model_response(params, decision.response, decision.notes)

    # Observation -----------------------------------------------------------------------------

    async def _observe(self, params: Mapping[str, Any]) -> None:
        """The end of a turn fires Stop. PicoClaw has already finished the turn, so a Stop
        block cannot make it go on: it is reported on stderr."""
        kind = params.get("kind", params.get("Kind"))
        if kind not in ("agent.turn.end", LEGACY_TURN_END, "turn_end"):
            return
        meta = params.get("meta") or params.get("Meta") or {}
        scope = params.get("scope") or {}
        key = (meta.get("SessionKey") if isinstance(meta, Mapping) else None) or (
            scope.get("session_key") if isinstance(scope, Mapping) else None
        )
        session = self._sessions.get(str(key or DEFAULT_SESSION))
        if session is None:
            return
        async with session.lock:
            decision = await session.hooks.stop(session.reply)
        if decision.continue_with:
            sys.stderr.write(
                "hookwright: a Stop hook asked the turn to go on; PicoClaw's turn has "
                "already ended\n"
            )


#: PicoClaw's hello `modes` and the `intercept` entry that turns each on.
_MODES = {"tool": "before_tool", "approve": "approve_tool", "llm": "before_llm"}


def _check_modes(modes: Any) -> None:
    """One stderr line per kind of call PicoClaw will never send, so hooks on it never run."""
    if not isinstance(modes, list):
        return
    for mode, entry in _MODES.items():
        if mode not in modes:
            sys.stderr.write(
                f"hookwright: PicoClaw sends no {entry} calls to this process; add "
                f'"{entry}" to its intercept list for the hooks on them to run\n'
            )


def _channel(params: Mapping[str, Any]) -> str:
    context = params.get("context")
    inbound = context.get("inbound") if isinstance(context, Mapping) else None
    channel = inbound.get("channel") if isinstance(inbound, Mapping) else params.get("channel")
    return channel if isinstance(channel, str) and channel else "picoclaw"


async def _close(session: _Session) -> None:
    async with session.lock:
        await session.hooks.aclose("other")
