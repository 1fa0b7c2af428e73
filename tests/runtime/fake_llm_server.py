"""A scripted OpenAI + Anthropic HTTP server on 127.0.0.1 for tests that need a real endpoint.

Usage::

    with FakeLLMServer() as server:
        server.queue_openai(FakeReply("Hello", tool_calls=[FakeToolCall("Read", '{"p": 1}')]))
        server.queue_anthropic(FakeError(529))
        ...  # point OPENAI_BASE_URL at server.openai_base_url,
        ...  # ANTHROPIC_BASE_URL at server.anthropic_base_url
        assert server.requests[0].body["stream"] is True

Each API has its own FIFO queue; every request pops one entry. A request that finds its queue
empty gets a 500 whose message says so (and is recorded like any other). Streaming requests
(`"stream": true`) get SSE in each provider's wire format: text split over `text_chunks`
deltas, tool-call arguments over `FakeToolCall.chunks` deltas. `FakeError` answers with the
provider's JSON error body, or with `mid_stream=True` as an error event inside a 200 stream.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal

Api = Literal["openai", "anthropic"]

OPENAI_PATHS = ("/v1/chat/completions", "/chat/completions")
ANTHROPIC_PATHS = ("/v1/messages",)
#: Seconds between the serving loop's checks for `stop` (the standard library's 0.5 made each
#: test using the server wait a quarter of a second on average to end it).
POLL_INTERVAL = 0.05


@dataclass(frozen=True, slots=True)
class FakeToolCall:
    name: str
    arguments: str = "{}"
    """Raw argument text, sent verbatim (so invalid JSON is possible) in `chunks` pieces."""
    id: str | None = None
    chunks: int = 3


@dataclass(frozen=True, slots=True)
class FakeReply:
    content: str = ""
    tool_calls: Sequence[FakeToolCall] = ()
    finish_reason: str | None = None
    """In the provider's vocabulary; default stop/end_turn, or tool_calls/tool_use."""
    text_chunks: int = 3
    prompt_tokens: int = 11
    completion_tokens: int = 7
    model: str | None = None
    """Reported model; default: the one the request named."""
    interleave_tool_calls: bool = False
    """OpenAI only: alternate the argument pieces of parallel calls, as some servers do."""


@dataclass(frozen=True, slots=True)
class FakeError:
    status: int
    message: str = "fake error"
    type: str | None = None
    """Error `type` in the body; default: what the provider sends for `status`."""
    code: str | None = None
    """OpenAI only: the body's `code`."""
    headers: Mapping[str, str] = field(default_factory=dict)
    mid_stream: bool = False
    """Answer 200 and start streaming, then send the error as an SSE event."""


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    api: Api | None
    method: str
    path: str
    headers: dict[str, str]
    """Header names in lower case."""
    body: Any
    """The parsed JSON body; None when it was not JSON."""


Scripted = FakeReply | FakeError | str

_OPENAI_ERROR_TYPES = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}
_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


class FakeLLMServer:
    """Context manager running the server in a background thread; `stop` joins every thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queues: dict[Api, deque[Scripted]] = {"openai": deque(), "anthropic": deque()}
        self._requests: list[RecordedRequest] = []
        self._ids = itertools.count(1)
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> FakeLLMServer:
        if self._httpd is not None:
            raise RuntimeError("FakeLLMServer already started")
        self._httpd = _HTTPServer(("127.0.0.1", 0), _Handler, self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": POLL_INTERVAL},
            name="fake-llm-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join()
        self._httpd = None
        self._thread = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("FakeLLMServer is not running")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def openai_base_url(self) -> str:
        """For OPENAI_BASE_URL: the SDK appends `/chat/completions`."""
        return f"{self.base_url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """For ANTHROPIC_BASE_URL: the SDK appends `/v1/messages`."""
        return self.base_url

    def queue_openai(self, *replies: Scripted) -> None:
        """Queue answers for chat-completions requests; a plain str is a text reply."""
        with self._lock:
            self._queues["openai"].extend(replies)

    def queue_anthropic(self, *replies: Scripted) -> None:
        """Queue answers for messages requests; a plain str is a text reply."""
        with self._lock:
            self._queues["anthropic"].extend(replies)

    def pending(self, api: Api) -> int:
        """Queued answers not yet consumed."""
        with self._lock:
            return len(self._queues[api])

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in arrival order (a copy)."""
        with self._lock:
            return list(self._requests)

    def requests_for(self, api: Api) -> list[RecordedRequest]:
        return [r for r in self.requests if r.api == api]

    def _record(self, request: RecordedRequest) -> Scripted | None:
        with self._lock:
            self._requests.append(request)
            queue = self._queues[request.api] if request.api is not None else None
            return queue.popleft() if queue else None

    def _next_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}{next(self._ids)}"


class _HTTPServer(ThreadingHTTPServer):
    # Non-daemon handler threads are joined by server_close, so stop() leaves nothing running.
    daemon_threads = False
    block_on_close = True

    def __init__(
        self, address: tuple[str, int], handler: type[_Handler], fake: FakeLLMServer
    ) -> None:
        super().__init__(address, handler)
        self.fake = fake


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    timeout = 10

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        api: Api | None = (
            "openai" if path in OPENAI_PATHS else "anthropic" if path in ANTHROPIC_PATHS else None
        )
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {name.lower(): value for name, value in self.headers.items()}
        fake = self.server.fake
        scripted = fake._record(RecordedRequest(api, "POST", path, headers, body))
        if api is None:
            self._json(404, {"error": {"type": "not_found_error", "message": f"no route {path}"}})
            return
        if scripted is None:
            count = len(fake.requests_for(api))
            self._error(api, FakeError(500, f"FakeLLMServer: no queued {api} reply (#{count})"))
            return
        if isinstance(scripted, str):
            scripted = FakeReply(scripted)
        request = body if isinstance(body, dict) else {}
        try:
            if isinstance(scripted, FakeError):
                self._error(api, scripted, stream=bool(request.get("stream")))
            elif api == "openai":
                self._openai(scripted, request)
            else:
                self._anthropic(scripted, request)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self) -> None:
        self.do_POST()

    # -- OpenAI -----------------------------------------------------------------------------

    def _openai(self, reply: FakeReply, request: dict[str, Any]) -> None:
        model = reply.model or str(request.get("model", "fake-model"))
        completion_id = self.server.fake._next_id("chatcmpl-fake")
        calls = [
            (call, call.id or self.server.fake._next_id("call_fake_")) for call in reply.tool_calls
        ]
        finish = reply.finish_reason or ("tool_calls" if calls else "stop")
        usage = {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        }
        if not request.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
            if calls:
                message["tool_calls"] = [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments},
                    }
                    for call, call_id in calls
                ]
            self._json(
                200,
                {
                    "id": completion_id,
                    "object": "chat.completion",
                    "created": 0,
                    "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": usage,
                },
            )
            return

        def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
            return _openai_chunk(completion_id, model, delta, finish_reason)

        self._start_sse()
        self._data(chunk({"role": "assistant", "content": ""}))
        for piece in split(reply.content, reply.text_chunks):
            self._data(chunk({"content": piece}))
        for index, (call, call_id) in enumerate(calls):
            opening = {"name": call.name, "arguments": ""}
            part = {"index": index, "id": call_id, "type": "function", "function": opening}
            self._data(chunk({"tool_calls": [part]}))
        for index, piece in _argument_pieces(calls, reply.interleave_tool_calls):
            part = {"index": index, "function": {"arguments": piece}}
            self._data(chunk({"tool_calls": [part]}))
        self._data(chunk({}, finish))
        stream_options = request.get("stream_options")
        if isinstance(stream_options, dict) and stream_options.get("include_usage"):
            self._data({**chunk({}), "choices": [], "usage": usage})
        self._write(b"data: [DONE]\n\n")

    # -- Anthropic --------------------------------------------------------------------------

    def _anthropic(self, reply: FakeReply, request: dict[str, Any]) -> None:
        fake = self.server.fake
        model = reply.model or str(request.get("model", "fake-model"))
        message_id = fake._next_id("msg_fake_")
        calls = [(call, call.id or fake._next_id("toolu_fake_")) for call in reply.tool_calls]
        stop_reason = reply.finish_reason or ("tool_use" if calls else "end_turn")
        if not request.get("stream"):
            content: list[dict[str, Any]] = []
            if reply.content:
                content.append({"type": "text", "text": reply.content})
            for call, call_id in calls:
                content.append(
                    {"type": "tool_use", "id": call_id, "name": call.name, "input": _object(call)}
                )
            self._json(
                200,
                {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": content,
                    "stop_reason": stop_reason,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": reply.prompt_tokens,
                        "output_tokens": reply.completion_tokens,
                    },
                },
            )
            return
        self._start_sse()
        self._anthropic_start(message_id, model, reply.prompt_tokens)
        index = 0
        if reply.content:
            block: dict[str, Any] = {"type": "text", "text": ""}
            self._event("content_block_start", {"index": index, "content_block": block})
            for piece in split(reply.content, reply.text_chunks):
                delta: dict[str, Any] = {"type": "text_delta", "text": piece}
                self._event("content_block_delta", {"index": index, "delta": delta})
            self._event("content_block_stop", {"index": index})
            index += 1
        for call, call_id in calls:
            block = {"type": "tool_use", "id": call_id, "name": call.name, "input": {}}
            self._event("content_block_start", {"index": index, "content_block": block})
            for piece in split(call.arguments, call.chunks):
                delta = {"type": "input_json_delta", "partial_json": piece}
                self._event("content_block_delta", {"index": index, "delta": delta})
            self._event("content_block_stop", {"index": index})
            index += 1
        delta = {"stop_reason": stop_reason, "stop_sequence": None}
        usage = {"output_tokens": reply.completion_tokens}
        self._event("message_delta", {"delta": delta, "usage": usage})
        self._event("message_stop", {})

    def _anthropic_start(self, message_id: str, model: str, input_tokens: int) -> None:
        message: dict[str, Any] = {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": 1},
        }
        self._event("message_start", {"message": message})
        self._event("ping", {})

    # -- errors -----------------------------------------------------------------------------

    def _error(self, api: Api, error: FakeError, *, stream: bool = False) -> None:
        if api == "openai":
            default_type, default_code = _OPENAI_ERROR_TYPES.get(error.status, ("api_error", None))
            openai_body = {
                "message": error.message,
                "type": error.type or default_type,
                "param": None,
                "code": error.code or default_code,
            }
            if error.mid_stream and stream:
                self._start_sse(error.headers)
                delta = {"role": "assistant", "content": "partial "}
                self._data(_openai_chunk("chatcmpl-fake", "fake-model", delta, None))
                self._data({"error": openai_body})
                return
            self._json(error.status, {"error": openai_body}, error.headers)
            return
        anthropic_body = {
            "type": "error",
            "error": {
                "type": error.type or _ANTHROPIC_ERROR_TYPES.get(error.status, "api_error"),
                "message": error.message,
            },
        }
        if error.mid_stream and stream:
            self._start_sse(error.headers)
            self._anthropic_start(self.server.fake._next_id("msg_fake_"), "fake-model", 0)
            self._event("error", anthropic_body)
            return
        self._json(error.status, anthropic_body, error.headers)

    # -- wire -------------------------------------------------------------------------------

    def _json(self, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self._write(data)

    def _start_sse(self, headers: Mapping[str, str] | None = None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()

    def _data(self, payload: dict[str, Any]) -> None:
        self._write(f"data: {json.dumps(payload)}\n\n".encode())

    def _event(self, name: str, payload: dict[str, Any]) -> None:
        body = json.dumps({"type": name, **payload})
        self._write(f"event: {name}\ndata: {body}\n\n".encode())

    def _write(self, data: bytes) -> None:
        self.wfile.write(data)
        self.wfile.flush()


def split(text: str, pieces: int) -> list[str]:
    """`text` in up to `pieces` consecutive, non-empty parts of near-equal length."""
    if not text:
        return []
    pieces = max(1, min(pieces, len(text)))
    size, extra = divmod(len(text), pieces)
    out: list[str] = []
    start = 0
    for index in range(pieces):
        end = start + size + (1 if index < extra else 0)
        out.append(text[start:end])
        start = end
    return out


def _argument_pieces(
    calls: Sequence[tuple[FakeToolCall, str]], interleave: bool
) -> Iterator[tuple[int, str]]:
    per_call = [split(call.arguments, call.chunks) for call, _ in calls]
    if not interleave:
        for index, pieces in enumerate(per_call):
            for piece in pieces:
                yield index, piece
        return
    for round_pieces in itertools.zip_longest(*per_call):
        for index, piece in enumerate(round_pieces):
            if piece is not None:
                yield index, piece


def _openai_chunk(
    completion_id: str, model: str, delta: dict[str, Any], finish_reason: str | None
) -> dict[str, Any]:
    return {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def _object(call: FakeToolCall) -> Any:
    try:
        return json.loads(call.arguments)
    except ValueError:
        return {}
