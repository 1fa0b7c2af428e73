"""The daemon's loopback HTTP endpoint: its port and token, kept in a 0600 file
(``~/.hookwright/daemon.json``) so that the URL and header written into Claude Code's settings
stay valid across daemon restarts."""

from __future__ import annotations

import json
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path

from hookwright.config.private_files import write_private

HOST = "127.0.0.1"
#: The path Claude Code's http hooks post to; uninstall recognises its hooks by it.
HOOK_PATH = "/hookwright/claude-code/hook"


@dataclass(frozen=True, slots=True)
class Endpoint:
    port: int
    token: str

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}{HOOK_PATH}"


def endpoint_file(home: Path) -> Path:
    return home / ".hookwright" / "daemon.json"


def load_endpoint(home: Path) -> Endpoint | None:
    """The stored endpoint; None when there is none (or it cannot be read)."""
    try:
        data = json.loads(endpoint_file(home).read_text(encoding="utf-8"))
        port, token = data["port"], data["token"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(port, int) or not isinstance(token, str) or len(token) < 32:
        return None
    return Endpoint(port, token)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


def ensure_endpoint(home: Path) -> Endpoint:
    """The stored endpoint, or a new one (a free loopback port, a random token) stored 0600."""
    found = load_endpoint(home)
    if found is not None:
        return found
    endpoint = Endpoint(_free_port(), secrets.token_urlsafe(32))
    stored = json.dumps({"port": endpoint.port, "token": endpoint.token})
    write_private(endpoint_file(home), stored.encode("utf-8"))
    return endpoint
