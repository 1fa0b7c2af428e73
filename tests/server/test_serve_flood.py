"""`hookwright serve` under floods, through the real command on 127.0.0.1.

Each test starts `python -m hookwright serve` with a scripted model (every chat turn answers
"Hello back."), attacks it with real sockets (the `websockets` client, or frames written by
hand), and checks what it cost the server (its descriptors and memory from /proc), that a
well-behaved client still gets its turn, and that the server's output holds no traceback.
"""

from __future__ import annotations

import json
import select
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from .serve_process import WAIT, ServeProcess, client_frame, raw_websocket, read_until_closed

CHAT = {"type": "chat", "history": [], "message": "hi"}
MEMORY_BOUND_MIB = 150
Start = Callable[..., ServeProcess]


@pytest.fixture
def start(tmp_path: Path, isolated_home: Path) -> Iterator[Start]:
    project = tmp_path / "project"
    project.mkdir()
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"content": "Hello back."}]))
    started: list[ServeProcess] = []

    def run(*options: str, turns: list[dict[str, Any]] | None = None) -> ServeProcess:
        if turns is not None:
            script.write_text(json.dumps(turns))
        server = ServeProcess(project, isolated_home, "--model", f"scripted:{script}", *options)
        started.append(server)
        return server

    yield run
    for server in started:
        if server.proc.poll() is None:
            server.stop()
        log = "".join(server.lines)
        assert "Traceback" not in log, log


def page(server: ServeProcess, **options: Any) -> ClientConnection:
    return connect(server.ws_url, origin=Origin(server.origin), open_timeout=WAIT, **options)


def turn(connection: ClientConnection) -> str:
    """One chat turn; the text of its done frame."""
    connection.send(json.dumps(CHAT))
    while True:
        frame = json.loads(connection.recv(timeout=WAIT))
        if frame["type"] in ("done", "error"):
            assert frame["type"] == "done", frame
            return str(frame["text"])


def fresh_turn(server: ServeProcess) -> str:
    """A turn on a new connection, retried while closed connections are still being released."""
    deadline = time.monotonic() + WAIT
    while True:
        try:
            with page(server, max_size=None) as connection:
                return turn(connection)
        except InvalidStatus:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def settles_at(server: ServeProcess, fds: int) -> bool:
    """Whether the server gets back to ``fds`` open descriptors within the wait."""
    deadline = time.monotonic() + WAIT
    while server.open_fds() > fds:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def close_frame(data: bytes) -> tuple[int, str]:
    """Code and reason of the server's close frame at the end of ``data``."""
    start = data.rfind(b"\x88")
    assert start >= 0, data[-200:]
    length = data[start + 1]
    payload = data[start + 2 : start + 2 + length]
    return struct.unpack("!H", payload[:2])[0], payload[2:].decode()


# Connections -------------------------------------------------------------------------------


def test_connections_over_the_cap_are_refused_at_once_and_open_ones_keep_working(
    start: Start,
) -> None:
    server = start("--max-connections", "8")
    with page(server) as first:
        held = [page(server) for _ in range(7)]
        refused = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(50)]
        try:
            for sock in refused:
                answer = read_until_closed(sock)
                assert answer.startswith(b"HTTP/1.1 503 Service Unavailable\r\n"), answer
                assert b"Connection: close" in answer
                assert answer.endswith(b"too many open connections; try again later\n")
            assert turn(first) == "Hello back."
            assert turn(held[-1]) == "Hello back."
        finally:
            for sock in refused:
                sock.close()
            for connection in held:
                connection.close()
    assert fresh_turn(server) == "Hello back."
    log = server.stop()
    assert "refused a connection: 8 busy connections were open (--max-connections)" in log
    assert log.count("refused a connection") < 50, "every refusal was logged"


def test_connections_that_send_no_request_cannot_crowd_out_the_page(start: Start) -> None:
    server = start("--max-connections", "8")
    baseline = server.open_fds()
    idle = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(40)]
    try:
        for sock in idle[::2]:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0")
        assert fresh_turn(server) == "Hello back."
        answers = [read_until_closed(sock) for sock in idle]
    finally:
        for sock in idle:
            sock.close()
    statuses = [answer.split(b"\r\n", 1)[0] for answer in answers]
    assert set(statuses) == {b"HTTP/1.1 503 Service Unavailable", b"HTTP/1.1 408 Request Timeout"}
    # The page took the place of an idle connection; the last ones ran out of time.
    assert 0 < statuses.count(b"HTTP/1.1 408 Request Timeout") < 8
    assert settles_at(server, baseline)


def test_a_request_head_dripped_a_line_a_second_is_cut_off(start: Start) -> None:
    server = start()
    with socket.create_connection(("127.0.0.1", server.port), timeout=WAIT) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\n")
        for dripped in range(1, 40):
            answered, _, _ = select.select([sock], [], [], 1.0)
            if answered:
                break
            sock.sendall(f"X-Drip-{dripped}: x\r\n".encode())
        answer = read_until_closed(sock)
    assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), answer
    assert dripped < 39, "the server took 40 s of a request head"


def test_refused_handshakes_cost_nothing_and_log_no_errors(start: Start) -> None:
    server = start()
    baseline = server.open_fds()
    attempts = [
        (f"ws://127.0.0.1:{server.port}/ws", server.origin),
        (f"ws://127.0.0.1:{server.port}/ws?token={'x' * 43}", server.origin),
        (server.ws_url, "http://evil.example"),
    ]
    for index in range(150):
        url, origin = attempts[index % len(attempts)]
        with pytest.raises(InvalidStatus) as refused:
            connect(url, origin=Origin(origin), open_timeout=WAIT).close()
        assert refused.value.response.status_code == 403
    assert fresh_turn(server) == "Hello back."
    assert settles_at(server, baseline)
    log = server.stop()
    assert "ERROR" not in log, log


# Frames ------------------------------------------------------------------------------------


def test_bad_frames_at_a_normal_pace_get_errors_and_the_socket_stays_usable(
    start: Start,
) -> None:
    server = start()
    with page(server) as connection:
        for frame, error in [
            (b"\xff\xfe", "a binary frame must be UTF-8 encoded JSON"),
            ("{not json", "malformed JSON: "),
            ('{"type": "ping"}', "unknown frame type 'ping'; expected one of: "),
            (b'{"type": "subscribe"}', "unknown frame type 'subscribe'"),
        ]:
            connection.send(frame)
            reply = json.loads(connection.recv(timeout=WAIT))
            assert reply["type"] == "error"
            assert reply["message"].startswith(error), reply
        connection.send(json.dumps(CHAT).encode())
        frames = [json.loads(connection.recv(timeout=WAIT))]
        while frames[-1]["type"] != "done":
            frames.append(json.loads(connection.recv(timeout=WAIT)))
        assert frames[-1]["text"] == "Hello back."


def flood(server: ServeProcess, seconds: float, outcomes: list[str]) -> None:
    """Reconnect and send frames as fast as possible for ``seconds``; note each close reason
    (the loop's bound only keeps it finite: the server closes long before)."""
    frames: list[str | bytes] = ["{not json", b"\xff", '{"type": "ping"}', json.dumps(CHAT)]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        # No queue limit: the client keeps reading its socket, so it sees the close frame.
        with page(server, max_queue=None) as connection:
            try:
                for sent in range(1_000_000):
                    connection.send(frames[sent % len(frames)])
            except ConnectionClosed as closed:
                outcomes.append(closed.rcvd.reason if closed.rcvd else "no close frame")


def test_a_frame_flood_closes_the_flooder_and_a_page_still_gets_its_turns(start: Start) -> None:
    server = start()
    before = server.rss_mib()
    outcomes: list[str] = []
    flooders = [threading.Thread(target=flood, args=(server, 4.0, outcomes)) for _ in range(3)]
    for thread in flooders:
        thread.start()
    try:
        with page(server) as connection:
            answers = [turn(connection) for _ in range(5)]
    finally:
        for thread in flooders:
            thread.join(timeout=WAIT)
    assert answers == ["Hello back."] * 5
    assert len(outcomes) >= 3
    assert set(outcomes) == {"client too fast: over 50 frames a second; the request was cancelled"}
    assert server.rss_mib() - before < MEMORY_BOUND_MIB


def test_frames_far_over_the_limit_are_refused_unread(start: Start) -> None:
    server = start("--max-frame-bytes", "65536")
    before = server.rss_mib()
    sock = raw_websocket(server)
    try:
        # The head claims 100 MiB; the server refuses it from the head, before any payload.
        sock.sendall(client_frame(1, b"x" * 65536, length=100 * 1024 * 1024))
        code, reason = close_frame(read_until_closed(sock))
    finally:
        sock.close()
    assert code == 1009
    assert "exceeds limit" in reason
    # A compressed frame that inflates to 50 MiB is stopped while inflating.
    with (
        page(server, compression="deflate", max_size=None) as bomb,
        pytest.raises(ConnectionClosed) as closed,
    ):
        bomb.send("x" * (50 * 1024 * 1024))
        bomb.recv(timeout=WAIT)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    # Just over the app's limit: an error frame, and the connection goes on.
    with page(server, max_size=None) as connection:
        connection.send("x" * (65536 + 10))
        reply = json.loads(connection.recv(timeout=WAIT))
        assert reply == {
            "type": "error",
            "message": "frame of 65546 bytes is over the limit of 65536 bytes",
        }
        assert turn(connection) == "Hello back."
    assert server.rss_mib() - before < MEMORY_BOUND_MIB


# Clients that do not read ------------------------------------------------------------------


def test_a_ping_flood_from_a_client_that_never_reads_is_dropped(start: Start) -> None:
    server = start()
    before = server.rss_mib()
    baseline = server.open_fds()
    sock = raw_websocket(server, receive_buffer=4096)
    pings = client_frame(9, b"p" * 125) * 1000
    sock.setblocking(False)
    sent, pending, dropped = 0, b"", False
    deadline = time.monotonic() + WAIT
    try:
        while time.monotonic() < deadline and not dropped:
            pending = pending or pings
            try:
                count = sock.send(pending)
            except BlockingIOError:
                time.sleep(0.005)
                continue
            except OSError:
                dropped = True
                continue
            pending, sent = pending[count:], sent + count
    finally:
        sock.close()
    assert dropped, f"{sent} bytes of pings were taken"
    assert server.rss_mib() - before < MEMORY_BOUND_MIB
    assert settles_at(server, baseline)
    log = server.stop()
    assert "dropped a connection: " in log and "bytes were waiting unread" in log


def test_a_client_that_never_reads_its_answer_is_closed_and_released(
    start: Start, tmp_path: Path
) -> None:
    notes = tmp_path / "project" / "notes.txt"
    notes.write_text(("y" * 100 + "\n") * 200)
    reads = [{"name": "Read", "arguments": {"file_path": str(notes)}} for _ in range(300)]
    server = start(
        "--permission-mode", "bypassPermissions", turns=[{"tool_calls": reads}, {"content": "ok"}]
    )
    baseline = server.open_fds()
    sock = raw_websocket(server, receive_buffer=4096)
    try:
        sock.sendall(client_frame(1, json.dumps(CHAT).encode()))
        assert settles_at(server, baseline), "the connection of a client that never reads stays"
    finally:
        sock.close()
    assert fresh_turn(server) == "ok"
    log = server.stop()
    assert "client too slow: 256 frames were waiting; the request was cancelled" in log
