"""The Starlette app of `hookwright serve`: the chat WebSocket at ``/ws`` and the page at ``/``.

`hookwright.server.access` checks Host, Origin and the token before anything here runs; the page
itself is only served to a URL carrying the token. Each connection has one reader and one writer
task, so frames go out in order whoever produces them. At most one chat request runs per
connection; a frame that cannot be accepted gets an error frame and the connection stays open.
When the client disconnects, the request still running is cancelled. Frames wait for the writer
in a bounded queue: a client that does not read them fast enough is closed (code 1008) and its
request cancelled, so a stalled reader cannot make the server buffer without end. A client that
sends more than ``max_frames_per_second`` frames a second (in bursts of as many) is closed the
same way, so one flooding connection cannot keep the server busy for everyone else. Either close
waits at most ``CLOSE_TIMEOUT`` seconds; `hookwright.server.transport` cuts off a peer that is
still there after that.

A request that asks for permission prompts waits, at each call that needs approval, for the
client's answer; no answer within ``permission_timeout`` seconds denies the call, and a client
that goes away cancels the request (the call never runs). An MCP server's request for input that
no Elicitation hook answers is asked the same way: the answer is checked against the requested
schema here (an answer that does not fit is refused with an `ElicitationInvalidFrame` and never
reaches the server), and no answer in time cancels the request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from pathlib import Path
from typing import Any, Literal, cast

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import Message
from starlette.websockets import WebSocket

from hookwright.runtime.mcp.elicitation import (
    ElicitationReply,
    ElicitationRequest,
    content_problem,
)
from hookwright.server.access import TOKEN_PARAM, AccessGuard, AccessPolicy, new_token
from hookwright.server.protocol import (
    ChatRequest,
    ElicitationAnswer,
    ElicitationClosedFrame,
    ElicitationInvalidFrame,
    ElicitationRequestFrame,
    ErrorFrame,
    NoticeFrame,
    OutFrame,
    PermissionAnswer,
    PermissionClosedFrame,
    PermissionRequestFrame,
    ProtocolError,
    parse_request,
)
from hookwright.server.runner import RequestError, ServerSettings, run_chat

__all__ = ["CLOSE_TIMEOUT", "SLOW_CLIENT_CLOSE_CODE", "STATIC_DIR", "create_app"]

logger = logging.getLogger("hookwright.server")

STATIC_DIR = Path(__file__).parent / "static"
SLOW_CLIENT_CLOSE_CODE = 1008
CLOSE_TIMEOUT = 5.0
PAGE_HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
NO_TOKEN_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>hookwright</title></head>
<body><p>This page needs the access token. Open the URL that <code>hookwright serve</code>
printed when it started (it ends with <code>/?token=...</code>).</p></body></html>
"""


def create_app(settings: ServerSettings, *, token: str | None = None) -> Starlette:
    """The ASGI app for ``settings``; run it with uvicorn (``hookwright serve`` does).

    ``token`` is the access token the page URL and the WebSocket must carry; None draws a fresh
    random one (read it back from ``app.state.token``).
    """
    if settings.max_frame_bytes < 1 or settings.max_history < 0:
        raise ValueError("max_frame_bytes must be positive and max_history not negative")
    if settings.max_queued_frames < 1 or settings.max_frames_per_second < 1:
        raise ValueError("max_queued_frames and max_frames_per_second must be positive")
    if settings.permission_timeout <= 0:
        raise ValueError("permission_timeout must be positive")
    policy = AccessPolicy.create(
        new_token() if token is None else token, settings.host, settings.allow_origins
    )

    async def page(request: Request) -> Response:
        if not policy.token_matches(request.query_params.get(TOKEN_PARAM)):
            return HTMLResponse(NO_TOKEN_PAGE, status_code=403, headers=PAGE_HEADERS)
        return FileResponse(STATIC_DIR / "index.html", headers=PAGE_HEADERS)

    async def chat_socket(websocket: WebSocket) -> None:
        await websocket.accept()
        await _Connection(websocket, settings).serve()

    app = Starlette(
        routes=[
            Route("/", page),
            Route("/index.html", page),
            WebSocketRoute("/ws", chat_socket),
            Mount("/", StaticFiles(directory=STATIC_DIR), name="static"),
        ],
        middleware=[Middleware(AccessGuard, policy=policy)],
    )
    app.state.token = policy.token
    return app


class _FrameBudget:
    """A token bucket: ``rate`` frames a second, in bursts of at most ``rate``."""

    def __init__(self, rate: int) -> None:
        self._rate = rate
        self._tokens = float(rate)
        self._at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self._tokens = min(self._rate, self._tokens + (now - self._at) * self._rate)
        self._at = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True


class _Connection:
    def __init__(self, websocket: WebSocket, settings: ServerSettings) -> None:
        self._websocket = websocket
        self._settings = settings
        self._outbox: asyncio.Queue[OutFrame] = asyncio.Queue(settings.max_queued_frames)
        self._budget = _FrameBudget(settings.max_frames_per_second)
        self._closing = asyncio.Event()
        self._close_reason = ""
        self._run: asyncio.Task[None] | None = None
        self._prompts: dict[str, asyncio.Future[bool]] = {}
        self._elicitations: dict[
            str, tuple[ElicitationRequest, asyncio.Future[ElicitationReply]]
        ] = {}

    async def serve(self) -> None:
        tasks = [
            asyncio.create_task(self._read()),
            asyncio.create_task(self._write()),
            asyncio.create_task(self._closing.wait()),
        ]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            await self._cancel_run()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        if self._closing.is_set():
            await self._close_with_reason()

    async def _read(self) -> None:
        while True:
            message = await self._websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            if not self._budget.take():
                rate = self._settings.max_frames_per_second
                self._close(
                    f"client too fast: over {rate} frames a second; the request was cancelled"
                )
                return
            self._accept(message)

    def _close(self, reason: str) -> None:
        """Mark the connection for closing with ``reason`` (the first reason given wins)."""
        if not self._closing.is_set():
            self._close_reason = reason
            self._closing.set()

    def _send(self, frame: OutFrame) -> None:
        """Queue ``frame``; when the queue is full the connection is marked for closing."""
        if self._closing.is_set():
            return
        try:
            self._outbox.put_nowait(frame)
        except asyncio.QueueFull:
            limit = self._settings.max_queued_frames
            self._close(f"client too slow: {limit} frames were waiting; the request was cancelled")

    async def _write(self) -> None:
        while True:
            frame = await self._outbox.get()
            try:
                await self._websocket.send_text(frame.model_dump_json())
            except Exception:  # the client went away
                logger.debug("dropping %s frame: the socket is closed", frame.type)
                return

    async def _close_with_reason(self) -> None:
        """Close with the reason; it reaches the client after the frames its socket still holds,
        if the client reads them within `CLOSE_TIMEOUT` seconds."""
        logger.warning("closing a WebSocket client: %s", self._close_reason)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(
                self._websocket.close(SLOW_CLIENT_CLOSE_CODE, self._close_reason), CLOSE_TIMEOUT
            )

    def _accept(self, message: Message) -> None:
        try:
            request = parse_request(
                self._read_text(message), max_history=self._settings.max_history
            )
        except ProtocolError as exc:
            self._send(ErrorFrame(message=str(exc)))
            return
        if isinstance(request, PermissionAnswer):
            self._answer(request)
            return
        if isinstance(request, ElicitationAnswer):
            self._answer_elicitation(request)
            return
        if self._run is not None and not self._run.done():
            self._send(
                ErrorFrame(
                    message="a chat request is already running on this connection; "
                    "send the next one after its done frame"
                )
            )
            return
        self._run = asyncio.create_task(self._chat(request))

    def _read_text(self, message: Message) -> str:
        text = message.get("text")
        data: bytes = text.encode("utf-8") if text is not None else message.get("bytes") or b""
        limit = self._settings.max_frame_bytes
        if len(data) > limit:
            raise ProtocolError(f"frame of {len(data)} bytes is over the limit of {limit} bytes")
        if text is not None:
            return str(text)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise ProtocolError("a binary frame must be UTF-8 encoded JSON") from None

    def _answer(self, answer: PermissionAnswer) -> None:
        waiting = self._prompts.get(answer.id)
        if waiting is None or waiting.done():
            self._send(ErrorFrame(message=f"no permission prompt {answer.id!r} is waiting"))
            return
        waiting.set_result(answer.allow)

    async def _ask(self, tool: str, reason: str, tool_input: dict[str, Any]) -> bool:
        """Ask the page; no answer within the timeout denies the call."""
        prompt_id = f"perm-{uuid.uuid4().hex[:12]}"
        timeout = self._settings.permission_timeout
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._prompts[prompt_id] = answer
        self._send(
            PermissionRequestFrame(
                id=prompt_id, tool=tool, input=tool_input, reason=reason, timeout=timeout
            )
        )
        try:
            allowed = await asyncio.wait_for(answer, timeout)
        except TimeoutError:
            self._send(PermissionClosedFrame(id=prompt_id, allowed=False, by="timeout"))
            self._send(NoticeFrame(text=f"{tool}: no answer within {timeout:g} s; denied"))
            return False
        finally:
            del self._prompts[prompt_id]
        self._send(PermissionClosedFrame(id=prompt_id, allowed=allowed, by="user"))
        return allowed

    def _answer_elicitation(self, answer: ElicitationAnswer) -> None:
        waiting = self._elicitations.get(answer.id)
        if waiting is None or waiting[1].done():
            self._send(ErrorFrame(message=f"no elicitation prompt {answer.id!r} is waiting"))
            return
        request, reply = waiting
        given = ElicitationReply(answer.action, answer.content)
        problem = content_problem(request, given)
        if problem is not None:
            self._send(ElicitationInvalidFrame(id=answer.id, error=problem))
            return
        if given.action == "accept" and given.content is None and request.mode == "form":
            given = ElicitationReply("accept", {})
        reply.set_result(given)

    async def _ask_elicitation(self, request: ElicitationRequest) -> ElicitationReply:
        """Show the server's request in the page; no answer within the timeout cancels it."""
        prompt_id = f"elicit-{uuid.uuid4().hex[:12]}"
        timeout = self._settings.permission_timeout
        reply: asyncio.Future[ElicitationReply] = asyncio.get_running_loop().create_future()
        self._elicitations[prompt_id] = (request, reply)
        schema = dict(request.requested_schema) if request.requested_schema is not None else None
        self._send(
            ElicitationRequestFrame(
                id=prompt_id,
                server=request.server,
                message=request.message,
                mode="url" if request.mode == "url" else "form",
                url=request.url,
                elicitation_id=request.elicitation_id,
                requested_schema=schema,
                timeout=timeout,
            )
        )
        try:
            answer = await asyncio.wait_for(reply, timeout)
        except TimeoutError:
            self._send(ElicitationClosedFrame(id=prompt_id, action="cancel", by="timeout"))
            self._send(
                NoticeFrame(
                    text=f"MCP server {request.server}: no answer within {timeout:g} s; cancelled"
                )
            )
            return ElicitationReply("cancel")
        finally:
            del self._elicitations[prompt_id]
        # `_answer_elicitation` only lets through the protocol's actions.
        action = cast(Literal["accept", "decline", "cancel"], answer.action)
        self._send(ElicitationClosedFrame(id=prompt_id, action=action, by="user"))
        return answer

    async def _chat(self, request: ChatRequest) -> None:
        try:
            done = await run_chat(
                self._settings, request, self._send, self._ask, self._ask_elicitation
            )
        except RequestError as exc:
            self._send(ErrorFrame(message=str(exc)))
        except Exception as exc:
            logger.exception("chat request failed")
            self._send(ErrorFrame(message=f"internal error: {type(exc).__name__}: {exc}"))
        else:
            self._send(done)

    async def _cancel_run(self) -> None:
        run = self._run
        if run is None or run.done():
            return
        run.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await run
