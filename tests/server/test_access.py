"""Who may talk to `hookwright serve`: Host, Origin and token checks, and the outbound bound.

Every check runs against a real uvicorn server on 127.0.0.1 with real clients: the `websockets`
client for handshakes (its ``sock`` argument lets a test send any Host name to the real port)
and `http.client` for plain requests with chosen headers.
"""

from __future__ import annotations

import asyncio
import http.client
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from hookwright.runtime.models import Message, ModelResponse, TextCallback, ToolDefinition
from hookwright.runtime.models.scripted import ScriptedModel
from hookwright.server.access import AccessPolicy, normalize_origin

from .conftest import LiveServer, ServerFactory
from .test_server import RECV_TIMEOUT, Client

CHAT = {"type": "chat", "history": [], "message": "hi"}


@contextmanager
def handshake(
    server: LiveServer,
    *,
    origin: str | None,
    host: str = "127.0.0.1",
    token: str | None = None,
    **options: Any,
) -> Iterator[ClientConnection]:
    """A WebSocket to the server's real port that names ``host`` in its Host header."""
    query = "" if token == "" else f"?token={server.token if token is None else token}"
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=RECV_TIMEOUT)
    try:
        with connect(
            f"ws://{host}:{server.port}/ws{query}",
            sock=sock,
            origin=None if origin is None else Origin(origin),
            open_timeout=RECV_TIMEOUT,
            proxy=None,
            **options,
        ) as connection:
            yield connection
    finally:
        sock.close()


def refused(server: LiveServer, **arguments: Any) -> tuple[int, str]:
    """Status and body of a refused handshake."""
    with pytest.raises(InvalidStatus) as raised, handshake(server, **arguments):
        pass
    response = raised.value.response
    return response.status_code, response.body.decode("utf-8") if response.body else ""


def get(server: LiveServer, target: str, host: str) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=RECV_TIMEOUT)
    try:
        connection.putrequest("GET", target, skip_host=True)
        connection.putheader("Host", host)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8")
    finally:
        connection.close()


def chat_works(connection: ClientConnection) -> str:
    ws = Client(connection)
    frames = ws.chat("hi", [])
    assert frames[-1]["type"] == "done", frames
    return str(frames[-1]["text"])


# Origin ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example",
        "https://127.0.0.1",
        "http://localhost:{port}",
        "http://127.0.0.1:{other}",
        "null",
        None,
    ],
)
def test_a_websocket_from_a_foreign_origin_is_refused_before_it_opens(
    serve: ServerFactory, origin: str | None
) -> None:
    model = ScriptedModel.from_turns([{"content": "never"}])
    server = serve(model=lambda: model, trust=True)
    if origin is not None:
        origin = origin.format(port=server.port, other=server.port + 1)
    status, body = refused(server, origin=origin)
    assert status == 403
    assert body == "WebSocket refused: the page's origin is not this server's (see --allow-origin)"
    assert model.calls == []


def test_the_page_origin_works_under_each_loopback_name(serve: ServerFactory) -> None:
    model = ScriptedModel.from_turns([{"content": "one"}, {"content": "two"}])
    server = serve(model=lambda: model)
    for index, name in enumerate(("localhost", "LOCALHOST")):
        origin = f"http://{name.lower()}:{server.port}"
        with handshake(server, origin=origin, host=name) as connection:
            assert chat_works(connection) == ("one", "two")[index]


def test_allow_origin_admits_another_page_and_still_needs_the_token(
    serve: ServerFactory,
) -> None:
    model = ScriptedModel.from_turns([{"content": "from the dev page"}])
    server = serve(model=lambda: model, allow_origins=("http://LOCALHOST:3000/",))
    assert refused(server, origin="http://localhost:3000", token="x" * 43)[0] == 403
    assert refused(server, origin="http://localhost:3001")[0] == 403
    with handshake(server, origin="http://localhost:3000") as connection:
        assert chat_works(connection) == "from the dev page"


# Host --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host", ["evil.example:{port}", "127.0.0.1:{other}", "127.0.0.1", "localhost.:{port}"]
)
def test_a_foreign_host_is_refused_on_the_page_and_its_files(
    serve: ServerFactory, host: str
) -> None:
    server = serve()
    host = host.format(port=server.port, other=server.port + 1)
    for target in (f"/?token={server.token}", "/app.js", "/nothing-here"):
        status, body = get(server, target, host)
        assert status == 421, target
        assert body.startswith("hookwright serve does not answer to this Host name")


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "LocalHost", "[::1]"])
def test_loopback_spellings_of_the_bound_host_are_accepted(serve: ServerFactory, name: str) -> None:
    server = serve()
    status, page = get(server, f"/?token={server.token}", f"{name}:{server.port}")
    assert status == 200
    assert 'src="app.js"' in page


def test_a_foreign_host_is_refused_on_the_websocket(serve: ServerFactory) -> None:
    model = ScriptedModel.from_turns([{"content": "never"}])
    server = serve(model=lambda: model)
    rebound = f"rebind.example:{server.port}"
    status, body = refused(server, origin=f"http://{rebound}", host="rebind.example")
    assert status == 421
    assert body.startswith("hookwright serve does not answer to this Host name")
    assert model.calls == []


# Token -------------------------------------------------------------------------------------


@pytest.mark.parametrize("token", ["", "wrong-token-of-forty-three-characters-xxxxx", "%ff"])
def test_a_websocket_without_the_right_token_is_refused(serve: ServerFactory, token: str) -> None:
    model = ScriptedModel.from_turns([{"content": "never"}])
    server = serve(model=lambda: model)
    status, body = refused(server, origin=server.origin, token=token)
    assert status == 403
    assert body.startswith("WebSocket refused: missing or wrong token")
    assert model.calls == []


def test_the_page_without_the_token_only_says_where_to_go(serve: ServerFactory) -> None:
    server = serve()
    for target in ("/", "/index.html", "/?token=nope", f"/index.html?token={server.token}x"):
        status, page = get(server, target, f"127.0.0.1:{server.port}")
        assert status == 403, target
        assert "Open the URL that <code>hookwright serve</code>" in page
        assert "app.js" not in page
    status, page = get(server, f"/index.html?token={server.token}", f"127.0.0.1:{server.port}")
    assert status == 200
    assert 'src="app.js"' in page


def test_a_token_for_tests_must_look_like_a_generated_one() -> None:
    with pytest.raises(ValueError, match="at least 16 characters"):
        AccessPolicy.create("short", "127.0.0.1")
    with pytest.raises(ValueError, match="at least 16 characters"):
        AccessPolicy.create("x" * 20 + "&admin=1", "127.0.0.1")


@pytest.mark.parametrize(
    ("origin", "normal"),
    [
        ("HTTP://LocalHost:80", "http://localhost"),
        ("https://example.com:443/", "https://example.com"),
        ("http://[::1]:8080", "http://[::1]:8080"),
        ("http://127.0.0.1:3000", "http://127.0.0.1:3000"),
    ],
)
def test_origins_are_compared_in_canonical_form(origin: str, normal: str) -> None:
    assert normalize_origin(origin) == normal


@pytest.mark.parametrize(
    "origin",
    ["ftp://example.com", "http://example.com/app", "http://user@example.com", "example.com"],
)
def test_an_origin_that_is_not_scheme_host_port_is_an_error(origin: str) -> None:
    with pytest.raises(ValueError, match="origin"):
        normalize_origin(origin)


# The outbound bound ------------------------------------------------------------------------

DELTA = "x" * 16 * 1024
FLOOD_DELTAS = 100_000


class FloodModel:
    """Streams 16 KiB deltas (1.6 GB in all) as fast as the loop lets it; records its end."""

    name = "flood"

    def __init__(self) -> None:
        self.sent = 0
        self.cancelled = threading.Event()

    async def complete(
        self,
        messages: list[Message],
        tools: list[ToolDefinition] | None = None,
        *,
        options: dict[str, Any] | None = None,
        on_text: TextCallback | None = None,
        model: str | None = None,
    ) -> ModelResponse:
        assert on_text is not None
        try:
            while self.sent < FLOOD_DELTAS:
                on_text(DELTA)
                self.sent += 1
                await asyncio.sleep(0)
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        raise AssertionError("the server took 1.6 GB of frames from a client that never reads")


def test_a_client_that_never_reads_is_closed_and_its_run_cancelled(serve: ServerFactory) -> None:
    model = FloodModel()
    server = serve(model=lambda: model, max_queued_frames=64)
    with handshake(server, origin=server.origin, compression=None, max_queue=1) as connection:
        connection.send('{"type": "chat", "history": [], "message": "flood me"}')
        assert model.cancelled.wait(timeout=RECV_TIMEOUT), "the run was not cancelled"
        # What was produced is bounded by the socket buffers plus the queue, not by the model.
        assert model.sent < 4096, model.sent
        received = 0
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                connection.recv(timeout=RECV_TIMEOUT)
                received += 1
    assert 0 < received <= model.sent
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1008
    assert closed.value.rcvd.reason == (
        "client too slow: 64 frames were waiting; the request was cancelled"
    )
