"""The Starlette app of `hookwright serve`: the chat WebSocket at ``/ws`` and the page at ``/``.

Each connection has one reader (this module's `_Connection.serve`) and one writer task, so
frames go out in order whoever produces them. At most one chat request runs per connection; a
frame that cannot be accepted gets an error frame and the connection stays open. When the client
disconnects, the request still running is cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path

from starlette.applications import Starlette
from starlette.routing import Mount, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import Message
from starlette.websockets import WebSocket

from hookwright.server.protocol import (
    ChatRequest,
    ErrorFrame,
    OutFrame,
    ProtocolError,
    parse_request,
)
from hookwright.server.runner import RequestError, ServerSettings, run_chat

__all__ = ["STATIC_DIR", "create_app"]

logger = logging.getLogger("hookwright.server")

STATIC_DIR = Path(__file__).parent / "static"


def create_app(settings: ServerSettings) -> Starlette:
    """The ASGI app for ``settings``; run it with uvicorn (``hookwright serve`` does)."""
    if settings.max_frame_bytes < 1 or settings.max_history < 0:
        raise ValueError("max_frame_bytes must be positive and max_history not negative")

    async def chat_socket(websocket: WebSocket) -> None:
        await websocket.accept()
        await _Connection(websocket, settings).serve()

    return Starlette(
        routes=[
            WebSocketRoute("/ws", chat_socket),
            Mount("/", StaticFiles(directory=STATIC_DIR, html=True), name="page"),
        ]
    )


class _Connection:
    def __init__(self, websocket: WebSocket, settings: ServerSettings) -> None:
        self._websocket = websocket
        self._settings = settings
        self._outbox: asyncio.Queue[OutFrame] = asyncio.Queue()
        self._run: asyncio.Task[None] | None = None

    async def serve(self) -> None:
        writer = asyncio.create_task(self._write())
        try:
            while True:
                message = await self._websocket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                self._accept(message)
        finally:
            await self._cancel_run()
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer

    def _send(self, frame: OutFrame) -> None:
        self._outbox.put_nowait(frame)

    async def _write(self) -> None:
        while True:
            frame = await self._outbox.get()
            try:
                await self._websocket.send_text(frame.model_dump_json())
            except Exception:  # the client went away; the reader sees the disconnect
                logger.debug("dropping %s frame: the socket is closed", frame.type)
                return

    def _accept(self, message: Message) -> None:
        try:
            request = parse_request(
                self._read_text(message), max_history=self._settings.max_history
            )
        except ProtocolError as exc:
            self._send(ErrorFrame(message=str(exc)))
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

    async def _chat(self, request: ChatRequest) -> None:
        try:
            done = await run_chat(self._settings, request, self._send)
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
