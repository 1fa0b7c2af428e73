"""`python -m hookwright serve` as a real subprocess on 127.0.0.1, for the attack tests.

A thread collects stderr (where the URL and the server's own log lines go); `stop` ends the
process and returns that output. `rss_mib` and `open_fds` read the process's memory and
descriptors from /proc, so a test can see what a flood cost the server.
"""

from __future__ import annotations

import base64
import os
import re
import socket
import struct
import subprocess
import sys
import threading
from pathlib import Path

WAIT = 60.0


class ServeProcess:
    def __init__(self, project: Path, home: Path, *options: str) -> None:
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("OPENAI_", "ANTHROPIC_", "HOOKWRIGHT_"))
        }
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "hookwright",
                "serve",
                "-p",
                str(project),
                "--port",
                "0",
                *options,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**env, "HOME": str(home)},
        )
        self.lines: list[str] = []
        self.port = 0
        self.token = ""
        self._ready = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if not self._ready.wait(WAIT) or not self.port:
            self.stop()
            raise RuntimeError("hookwright serve did not start:\n" + "".join(self.lines))

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)
            if match := re.search(r"open http://127\.0\.0\.1:(\d+)/\?token=([\w-]+)$", line):
                self.port, self.token = int(match.group(1)), match.group(2)
                self._ready.set()
        self._ready.set()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws?token={self.token}"

    def rss_mib(self) -> float:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        match = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
        assert match, status
        return int(match.group(1)) / 1024

    def open_fds(self) -> int:
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def stop(self) -> str:
        """SIGTERM, then the output; the server must be gone within the wait."""
        self.proc.terminate()
        try:
            self.proc.wait(timeout=WAIT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self._reader.join(timeout=WAIT)
        return "".join(self.lines)


def client_frame(opcode: int, payload: bytes, *, length: int | None = None) -> bytes:
    """A masked client frame; ``length`` claims a payload size other than the one sent."""
    size = len(payload) if length is None else length
    head = bytes([0x80 | opcode])
    if size < 126:
        head += bytes([0x80 | size])
    elif size < 1 << 16:
        head += bytes([0x80 | 126]) + struct.pack("!H", size)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", size)
    mask = os.urandom(4)
    body = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
    return head + mask + body


def raw_websocket(server: ServeProcess, *, receive_buffer: int | None = None) -> socket.socket:
    """A WebSocket opened by hand (the handshake read byte by byte, nothing read after it)."""
    sock = socket.socket()
    if receive_buffer is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(WAIT)
    sock.connect(("127.0.0.1", server.port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /ws?token={server.token} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: {server.origin}\r\n\r\n"
        ).encode()
    )
    answer = b""
    while b"\r\n\r\n" not in answer:
        byte = sock.recv(1)
        assert byte, answer
        answer += byte
    assert answer.startswith(b"HTTP/1.1 101 "), answer
    return sock


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes (or resets) the connection."""
    sock.settimeout(WAIT)
    received = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return received
        if not chunk:
            return received
        received += chunk
