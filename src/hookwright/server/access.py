"""Who may talk to `hookwright serve`: the Host, Origin and token checks in front of the app.

A chat connection runs the agent's tools in the project, so a browser page from another site
must not reach it. Three checks close the ways in:

- ``Host`` (every request): only the address the connection arrived on, the ``--host`` name, and
  for a loopback address its ``localhost``/``127.0.0.1``/``[::1]`` spellings, each with the
  served port. A DNS-rebinding page sends its own domain name and is refused (421).
- ``Origin`` (the WebSocket): the page's own origin (``http://`` plus the Host it used) or one of
  the ``--allow-origin`` origins. Browsers always send it, so a page on another site, or on
  another port of this machine, is refused before the socket opens (403).
- ``token`` (the WebSocket): the per-start secret that the printed URL carries (``/?token=...``);
  the page passes it on as ``/ws?token=...``. Refused (403) when missing or wrong.
"""

from __future__ import annotations

import ipaddress
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = [
    "AccessGuard",
    "AccessPolicy",
    "Refusal",
    "is_loopback_host",
    "new_token",
    "normalize_origin",
]

TOKEN_PARAM = "token"
MIN_TOKEN_LENGTH = 16
TOKEN_SHAPE = re.compile(rf"[A-Za-z0-9_-]{{{MIN_TOKEN_LENGTH},}}")
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})
_DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}


def new_token() -> str:
    """A fresh access token: 32 random bytes, URL-safe base64 (43 characters)."""
    return secrets.token_urlsafe(32)


def is_loopback_host(host: str) -> bool:
    """True for ``localhost`` and loopback IP literals (``127.0.0.0/8``, ``::1``)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _host_name(host: str) -> str:
    """``host`` as it appears in a URL authority: lower case, IPv6 literals in brackets."""
    bare = host.strip("[]").lower()
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        return bare
    return f"[{address.compressed}]" if address.version == 6 else address.compressed


def _split_authority(authority: str, scheme: str) -> tuple[str, int] | None:
    """``host[:port]`` as (URL host name, port with the scheme's default), None when malformed."""
    if not authority or any(c in authority for c in "/?#@ \t"):
        return None
    parsed = urlsplit(f"//{authority}")
    try:
        port = parsed.port
        name = parsed.hostname
    except ValueError:
        return None
    if not name:
        return None
    return _host_name(name), port if port is not None else _DEFAULT_PORTS[scheme]


def normalize_origin(origin: str) -> str:
    """``scheme://host[:port]`` in canonical form (default port dropped); ValueError if not one."""
    parsed = urlsplit(origin.strip())
    scheme = parsed.scheme.lower()
    if scheme not in ("http", "https") or parsed.path not in ("", "/"):
        raise ValueError(f"origin {origin!r} is not of the form http(s)://host[:port]")
    if parsed.query or parsed.fragment or "@" in parsed.netloc:
        raise ValueError(f"origin {origin!r} is not of the form http(s)://host[:port]")
    authority = _split_authority(parsed.netloc, scheme)
    if authority is None:
        raise ValueError(f"origin {origin!r} has no valid host[:port]")
    name, port = authority
    return f"{scheme}://{name}" if port == _DEFAULT_PORTS[scheme] else f"{scheme}://{name}:{port}"


@dataclass(frozen=True, slots=True)
class Refusal:
    status: int
    reason: str


WRONG_HOST = Refusal(
    421,
    "hookwright serve does not answer to this Host name; open the URL that hookwright serve "
    "printed",
)
WRONG_ORIGIN = Refusal(
    403,
    "WebSocket refused: the page's origin is not this server's (see --allow-origin)",
)
WRONG_TOKEN = Refusal(
    403,
    "WebSocket refused: missing or wrong token; open the URL that hookwright serve printed",
)


@dataclass(frozen=True, slots=True)
class AccessPolicy:
    """The checks for one server start; `AccessPolicy.create` validates its inputs."""

    token: str
    host: str
    allowed_origins: frozenset[str]

    @classmethod
    def create(cls, token: str, host: str, allow_origins: Iterable[str] = ()) -> AccessPolicy:
        if not TOKEN_SHAPE.fullmatch(token):
            raise ValueError(
                f"the access token must be at least {MIN_TOKEN_LENGTH} characters of A-Z, a-z, "
                "0-9, '-' and '_'"
            )
        origins = frozenset(normalize_origin(origin) for origin in allow_origins)
        return cls(token=token, host=_host_name(host), allowed_origins=origins)

    def token_matches(self, offered: str | None) -> bool:
        if offered is None:
            return False
        return secrets.compare_digest(offered.encode("utf-8"), self.token.encode("utf-8"))

    def host_refusal(self, scope: Scope) -> Refusal | None:
        """`WRONG_HOST` unless the Host header names this server at the port it serves."""
        server = scope.get("server")
        header = _header(scope, b"host")
        if server is None or header is None:
            return WRONG_HOST
        authority = _split_authority(header, scope.get("scheme", "http"))
        if authority is None:
            return WRONG_HOST
        name, port = authority
        local = _host_name(str(server[0]))
        names = {local, self.host}
        if is_loopback_host(local):
            names |= LOOPBACK_NAMES
        return None if name in names and port == server[1] else WRONG_HOST

    def websocket_refusal(self, scope: Scope) -> Refusal | None:
        """The first check a WebSocket handshake fails, or None when it may be accepted."""
        refusal = self.host_refusal(scope)
        if refusal is not None:
            return refusal
        if not self._origin_allowed(scope):
            return WRONG_ORIGIN
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        offered = query.get(TOKEN_PARAM, [])
        return None if len(offered) == 1 and self.token_matches(offered[0]) else WRONG_TOKEN

    def _origin_allowed(self, scope: Scope) -> bool:
        header = _header(scope, b"origin")
        if header is None:
            return False
        try:
            origin = normalize_origin(header)
        except ValueError:
            return False
        page_scheme = "https" if scope.get("scheme") == "wss" else "http"
        own = normalize_origin(f"{page_scheme}://{_header(scope, b'host')}")
        return origin == own or origin in self.allowed_origins


def _header(scope: Scope, name: bytes) -> str | None:
    values = [value for key, value in scope.get("headers", []) if key.lower() == name]
    return values[0].decode("latin-1") if len(values) == 1 else None


class AccessGuard:
    """ASGI middleware: the Host check on every request, and every check on WebSockets."""

    def __init__(self, app: ASGIApp, policy: AccessPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = self.policy.host_refusal(scope)
        elif scope["type"] == "websocket":
            refusal = self.policy.websocket_refusal(scope)
        else:
            refusal = None
        if refusal is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "http":
            await PlainTextResponse(refusal.reason, status_code=refusal.status)(
                scope, receive, send
            )
        else:
            await _deny_websocket(refusal, receive, send, scope)


async def _deny_websocket(refusal: Refusal, receive: Receive, send: Send, scope: Scope) -> None:
    """Answer the handshake with an HTTP error before the socket is accepted."""
    await receive()  # websocket.connect
    if "websocket.http.response" not in scope.get("extensions", {}):
        await send({"type": "websocket.close", "code": 1008, "reason": refusal.reason})
        return
    body = refusal.reason.encode("utf-8")
    await send(
        {
            "type": "websocket.http.response.start",
            "status": refusal.status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode("ascii")),
            ],
        }
    )
    await send({"type": "websocket.http.response.body", "body": body})
