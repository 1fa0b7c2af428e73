"""One chat request of `hookwright serve`: a fresh agent on the client's history, run once.

Nothing survives the request on the server side: the engine, the agent and its skill hooks are
built from the project on every request and closed at its end (also when the client goes away
and the run is cancelled). What the conversation needs next time travels back to the client in
`DoneFrame.messages`, persistent skill hook messages included.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookwright.core.systems import effect_words
from hookwright.core.words import listed
from hookwright.dialects.skills import available_skills
from hookwright.host.held_back import held_back_lines
from hookwright.runtime.agent import Agent, AgentEvent, AskUser
from hookwright.runtime.mcp.elicitation import AskElicitation
from hookwright.runtime.models import Model, ModelConfigError
from hookwright.runtime.opening import SessionOptions, SessionSetup, open_session
from hookwright.runtime.permissions import PermissionMode
from hookwright.server.protocol import (
    ChatRequest,
    DoneFrame,
    HookFrame,
    HookResultFrame,
    NoticeFrame,
    OutFrame,
    SkillPromptFrame,
    TextFrame,
    ToolCallFrame,
    ToolResultFrame,
)

__all__ = ["ModelSource", "RequestError", "ServerSettings", "frame_for_event", "run_chat"]

logger = logging.getLogger("hookwright.server")

ModelSource = str | Callable[[], Model] | None
"""A ``--model`` spec (a fresh model per request), a factory, or None for the default."""

MAX_FRAME_BYTES = 1024 * 1024
MAX_HISTORY = 500
MAX_QUEUED_FRAMES = 256
PERMISSION_TIMEOUT = 300.0
MAX_CONNECTIONS = 64
MAX_FRAMES_PER_SECOND = 50


@dataclass(slots=True)
class ServerSettings:
    project_dir: Path
    model: ModelSource = None
    skills: tuple[str, ...] = ()
    """Skills enabled for requests that do not name their own."""
    trust: bool = False
    permission_mode: PermissionMode = "default"
    planning: bool = False
    max_turns: int = 20
    home: Path | None = None
    max_frame_bytes: int = MAX_FRAME_BYTES
    max_history: int = MAX_HISTORY
    config_files: tuple[Path, ...] = field(default_factory=tuple)
    host: str = "127.0.0.1"
    """The ``--host`` the server binds; requests may name it in their Host header."""
    allow_origins: tuple[str, ...] = ()
    """Origins besides the page's own whose pages may open the WebSocket."""
    max_queued_frames: int = MAX_QUEUED_FRAMES
    """Frames waiting for a slow client before its connection is closed."""
    max_frames_per_second: int = MAX_FRAMES_PER_SECOND
    """Frames a client may send per second (in bursts of as many) before it is closed."""
    max_connections: int = MAX_CONNECTIONS
    """Open connections (page, files and WebSockets together); more are refused with 503."""
    permission_timeout: float = PERMISSION_TIMEOUT
    """Seconds a permission prompt waits for the page's answer before the call is denied (and an
    MCP elicitation prompt before the request is cancelled)."""


class RequestError(Exception):
    """The request is well-formed but cannot run (unknown skill, bad model); sent as an error."""


def _skills_for(settings: ServerSettings, request: ChatRequest) -> list[str]:
    wanted = list(settings.skills) if request.skills is None else request.skills
    known = available_skills(settings.project_dir)
    unknown = [name for name in wanted if name not in known]
    if unknown:
        available = ", ".join(known) if known else "none"
        raise RequestError(
            f"unknown {listed(unknown, 'skill', colon=':')}; skills in "
            f"{settings.project_dir / 'skills'}: {available}"
        )
    return wanted


def frame_for_event(
    event: AgentEvent, prompt_files: Mapping[str, str] | None = None
) -> OutFrame | None:
    """The frame a client gets for one agent event, or None for events it does not need;
    `prompt_files`: the file of each persistent skill hook by name, for its `HookFrame`.

    Events of subagents (they carry ``agent_id``) are left out: their text would interleave with
    the answer, and their outcome reaches the client as the Agent tool's result.
    """
    if event.get("agent_id"):
        return None
    kind = event["type"]
    if kind == "text_delta":
        return TextFrame(delta=event["text"])
    if kind == "tool_call":
        return ToolCallFrame(id=event["id"], name=event["name"], input=event["input"])
    if kind == "tool_result":
        return ToolResultFrame(
            id=event["id"],
            name=event["name"],
            content=event["content"],
            is_error=event["is_error"],
        )
    if kind == "hook":
        file = (prompt_files or {}).get(event["name"])
        return HookFrame(
            name=event["name"], role=event["role"], content=event["content"], file=file
        )
    if kind == "skill_prompt" and not event.get("persistent"):
        return SkillPromptFrame(
            **{k: event[k] for k in ("skill", "hook", "timing", "role", "content")},
            file=event.get("file"),
        )
    if kind == "hook_result":
        fields = {
            k: v for k, v in event.items() if k != "type" and k in HookResultFrame.model_fields
        }
        # as the terminal says it: `block (deny)`, `deny_tool (deny)`
        said = effect_words(
            event["effect"], event.get("dialect"), event.get("own_event"), event.get("own_word")
        )
        return HookResultFrame(**fields, effect_words=said)
    if kind == "notice":
        return NoticeFrame(text=event["text"])
    if kind == "permission" and event.get("behavior") == "deny":
        return NoticeFrame(text=f"{event['tool']}: {event['reason']}")
    if kind == "error":
        return NoticeFrame(text=f"model error {event['kind']}: {event['message']}")
    return None


def mark_hooks(messages: list[dict[str, Any]], hooks: list[HookFrame]) -> list[dict[str, Any]]:
    """Copies of ``messages`` with ``_hook`` set on the persistent hook messages, and
    ``_hook_file`` to the file its prompt came from (where known), so a page that redraws
    its history shows the hook's file badge as it did live.

    Hooks were injected in the order they were yielded, so each one is matched to the next
    message after the previous match with the same role and content.
    """
    marked = [dict(message) for message in messages]
    start = 0
    for hook in hooks:
        for index in range(start, len(marked)):
            message = marked[index]
            if message.get("role") == hook.role and message.get("content") == hook.content:
                message["_hook"] = hook.name
                if hook.file:
                    message["_hook_file"] = hook.file
                start = index + 1
                break
    return marked


async def run_chat(
    settings: ServerSettings,
    request: ChatRequest,
    emit: Callable[[OutFrame], None],
    ask_user: AskUser | None = None,
    ask_elicitation: AskElicitation | None = None,
) -> DoneFrame:
    """Run ``request`` on a fresh agent, passing every frame to ``emit`` as it happens.

    When the request says the client answers permission prompts, a person is there: the
    session is interactive, ``ask_user`` asks them and ``ask_elicitation`` shows them an MCP
    server's request for input; otherwise calls that need approval are denied and elicitation
    requests no hook answers are cancelled, as in ``claude -p``. Raises `RequestError` before
    anything runs when the request names an unknown skill or the model cannot be built.
    Cancelling the calling task stops the run (the page closed or gone: the turn is interrupted,
    or the SessionStart hooks stopped, and the Interrupt hooks run); the agent and its hook
    engine are closed either way.
    """
    skills = _skills_for(settings, request)
    history = [message.to_message() for message in request.history]
    hooks: list[HookFrame] = []
    asking = ask_user if request.permission_prompts else None
    setup = await _open(
        settings,
        skills,
        history,
        on_event=_relay(request, emit, hooks),
        ask_user=asking,
        ask_elicitation=ask_elicitation if asking is not None else None,
    )
    agent: Agent = setup.agent
    _say_opening_notes(setup, emit)
    try:
        await agent.start_interruptible("resume" if history else "startup")
        result = await agent.run_interruptible(request.message)
    finally:
        try:
            await agent.close("other")
        finally:
            await setup.engine.aclose()
    new_messages = agent.messages[1 + len(history) :]
    return DoneFrame(
        status=result.status,
        text=result.final_text,
        reason=result.reason,
        messages=mark_hooks(new_messages, hooks),
    )


def _relay(
    request: ChatRequest, emit: Callable[[OutFrame], None], hooks: list[HookFrame]
) -> Callable[[AgentEvent], None]:
    """The agent's event callback: each event's frame to `emit` (skill prompts only when the
    request asked for them), the persistent hook messages also kept in `hooks`. A persistent
    hook's injection is said (`skill_prompt`, with its file) before its `hook` event, which
    gets the file from it."""
    prompt_files: dict[str, str] = {}

    def on_event(event: AgentEvent) -> None:
        if event["type"] == "skill_prompt" and event.get("persistent") and event.get("file"):
            prompt_files[event["hook"]] = event["file"]
        frame = frame_for_event(event, prompt_files)
        if frame is None or (isinstance(frame, SkillPromptFrame) and not request.skill_prompts):
            return
        if isinstance(frame, HookFrame):
            hooks.append(frame)
        emit(frame)

    return on_event


async def _open(
    settings: ServerSettings,
    skills: list[str],
    history: list[dict[str, Any]],
    *,
    on_event: Callable[[AgentEvent], None],
    ask_user: AskUser | None,
    ask_elicitation: AskElicitation | None,
) -> SessionSetup:
    """The project opened for one request (interactive when `ask_user` is given), on a model
    built for it; `RequestError` when the model cannot be built."""
    model = settings.model() if callable(settings.model) else settings.model
    try:
        return await open_session(
            SessionOptions(
                settings.project_dir,
                home=settings.home,
                model=model,
                permission_mode=settings.permission_mode,
                max_turns=settings.max_turns,
                planning=settings.planning,
                interactive=ask_user is not None,
                ask_user=ask_user,
                prompt_channel="page",
                ask_elicitation=ask_elicitation,
                trust=settings.trust,
                config_files=settings.config_files,
                skills=skills,
                history=history,
                on_event=on_event,
                # Compaction would rewrite history the client owns and sends back.
                compact_tokens=sys.maxsize,
            )
        )
    except (ModelConfigError, ValueError) as exc:
        raise RequestError(str(exc)) from None


def _say_opening_notes(setup: SessionSetup, emit: Callable[[OutFrame], None]) -> None:
    """What opening the project had to say, as notices (and the diagnostics in the log)."""
    for line in setup.diagnostics:
        if line not in setup.not_run_summary:  # said below, hook by hook
            logger.warning("%s", line)
            emit(NoticeFrame(text=line))
    for item in setup.not_run:  # logged on `hookwright.open` and audited when opened
        if item.reason != "untrusted":  # those are said once per folder, below
            emit(NoticeFrame(text=f"{item.severity}: {item}"))
    for line in held_back_lines(setup.not_run):
        emit(NoticeFrame(text=line))
