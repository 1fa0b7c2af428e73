"""`hookwright serve`: the stateless chat server (WebSocket ``/ws``) and its page (``/``)."""

from __future__ import annotations

import errno
import logging
import os
import socket
import sys
from pathlib import Path
from typing import Annotated, cast

import typer
import uvicorn

from hookwright.cli.run import MaxTurnsOpt, ModelOpt, PlanOpt, SkillOpt, TrustOpt
from hookwright.cli.serve_hooks import say_hooks_not_run
from hookwright.dialects.skills import SkillHookError, scan_hooks, unknown_skills
from hookwright.monitor import debug
from hookwright.runtime.models import ModelConfigError, make_model
from hookwright.runtime.permissions import MODES, PermissionMode
from hookwright.server import ServerSettings, create_app
from hookwright.server.access import is_loopback_host, new_token, normalize_origin
from hookwright.server.runner import (
    MAX_CONNECTIONS,
    MAX_FRAME_BYTES,
    MAX_FRAMES_PER_SECOND,
    MAX_HISTORY,
    PERMISSION_TIMEOUT,
)
from hookwright.server.transport import ServeConfig

ServeModeOpt = Annotated[
    str, typer.Option("--permission-mode", help=f"One of: {', '.join(MODES)}.", metavar="MODE")
]
ServeProjectOpt = Annotated[
    Path, typer.Option("--project", "-p", help="Project directory.", file_okay=False, metavar="DIR")
]
HostOpt = Annotated[
    str,
    typer.Option(
        "--host", help="Interface to listen on (a warning unless loopback).", metavar="HOST"
    ),
]
PortOpt = Annotated[
    int, typer.Option("--port", min=0, max=65535, help="TCP port (0: any).", metavar="PORT")
]
FrameOpt = Annotated[
    int,
    typer.Option(
        "--max-frame-bytes", min=1, help="Largest client frame accepted.", metavar="BYTES"
    ),
]
RateOpt = Annotated[
    int,
    typer.Option(
        "--max-frames-per-second",
        min=1,
        help="Frames a client may send per second (bursts of as many); a faster client is closed.",
        metavar="N",
    ),
]
ConnectionsOpt = Annotated[
    int,
    typer.Option(
        "--max-connections",
        min=1,
        help="Open connections (page and WebSockets together); more are refused with 503.",
        metavar="N",
    ),
]
HistoryOpt = Annotated[
    int,
    typer.Option("--max-history", min=0, help="Most history messages per request.", metavar="N"),
]
PermissionTimeoutOpt = Annotated[
    float,
    typer.Option(
        "--permission-timeout",
        min=0.001,
        help="Seconds a permission prompt in the page waits for an answer before the call "
        "is denied.",
        metavar="SECONDS",
    ),
]
AllowOriginOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-origin",
        help="Also accept WebSockets from pages of this origin, e.g. http://localhost:3000 "
        "(repeatable; they still need the token).",
        metavar="ORIGIN",
    ),
]


def _fail(message: str) -> typer.Exit:
    sys.stderr.write(f"hookwright: error: {' '.join(message.split())}\n")
    return typer.Exit(code=2)


def settings_from_options(
    *,
    project: Path,
    model: str | None,
    skill: list[str] | None,
    trust: bool,
    permission_mode: str,
    plan: bool = False,
    max_turns: int = 20,
    max_frame_bytes: int = MAX_FRAME_BYTES,
    max_history: int = MAX_HISTORY,
    host: str = "127.0.0.1",
    allow_origin: list[str] | None = None,
    permission_timeout: float = PERMISSION_TIMEOUT,
    max_frames_per_second: int = MAX_FRAMES_PER_SECOND,
    max_connections: int = MAX_CONNECTIONS,
) -> ServerSettings:
    """Check the options the way `hookwright run` does; raise `typer.Exit(2)` on bad ones."""
    project = project.resolve()
    if not project.is_dir():
        raise _fail(f"project directory {project} does not exist")
    if permission_mode not in MODES:
        raise _fail(f"unknown permission mode {permission_mode!r} (use one of: {', '.join(MODES)})")
    if model is not None:
        try:
            make_model(model, base_dir=project)
        except ModelConfigError as exc:
            raise _fail(str(exc)) from None
    skills = list(dict.fromkeys(skill or []))
    problem = unknown_skills(project, skills)
    if problem is not None:
        raise _fail(problem)
    origins: list[str] = []
    for origin in allow_origin or []:
        try:
            origins.append(normalize_origin(origin))
        except ValueError as exc:
            raise _fail(f"--allow-origin: {exc}") from None
    errors: list[SkillHookError] = []
    scan_hooks(skills, str(project / "skills"), errors=errors, quiet=True)
    for error in errors:
        sys.stderr.write(f"hookwright: warning: {error}\n")
    return ServerSettings(
        project_dir=project,
        model=model,
        skills=tuple(skills),
        trust=trust,
        permission_mode=cast(PermissionMode, permission_mode),
        planning=plan,
        max_turns=max_turns,
        max_frame_bytes=max_frame_bytes,
        max_history=max_history,
        host=host,
        allow_origins=tuple(dict.fromkeys(origins)),
        permission_timeout=permission_timeout,
        max_frames_per_second=max_frames_per_second,
        max_connections=max_connections,
    )


def page_url(host: str, port: int, token: str) -> str:
    """The URL to open; a wildcard bind is reached through loopback on this machine."""
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    authority = f"[{host}]" if ":" in host else host
    return f"http://{authority}:{port}/?token={token}"


def warn_if_exposed(host: str, project: Path) -> None:
    if is_loopback_host(host):
        return
    rule = "!" * 78
    sys.stderr.write(
        f"{rule}\n"
        f"hookwright: WARNING: --host {host} is not a loopback address. Anyone who can reach\n"
        f"this machine and learns the URL's token can run the agent and its tools (shell,\n"
        f"files) in {project}. The connection is plain HTTP: the token crosses the network\n"
        "in clear text. Use --host 127.0.0.1 unless you mean this.\n"
        f"{rule}\n"
    )


class RedactToken(logging.Filter):
    """Keep the token out of uvicorn's request lines (``GET /?token=...``)."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                arg.replace(self.token, "<token>") if isinstance(arg, str) else arg
                for arg in record.args
            )
        return True


class QuietLifecycle(logging.Filter):
    """Drops uvicorn's informational lifecycle lines ("Started server process", "Waiting for
    application startup.", "Application startup complete.", the shutdown lines): those its
    server and lifespan modules log below WARNING. Its warnings and errors pass, and so do the
    request lines of WebSockets, logged on the same logger by its protocol modules."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING:
            return True
        return not record.pathname.endswith(_LIFECYCLE_FILES)


#: The uvicorn modules that log its lifecycle (`QuietLifecycle`).
_LIFECYCLE_FILES = (os.path.join("uvicorn", "server.py"), os.path.join("lifespan", "on.py"))


def quiet_uvicorn(token: str) -> None:
    """uvicorn's log as `serve` shows it: request lines with the token redacted, warnings and
    errors; its lifecycle lines only under `hookwright --debug` (at start, hookwright says
    where the page listens itself)."""
    errors = logging.getLogger("uvicorn.error")
    if not debug.state.on:
        errors.addFilter(QuietLifecycle())
    for logger in (logging.getLogger("uvicorn.access"), errors):
        logger.addFilter(RedactToken(token))


#: The fix for each reason a socket cannot listen, by errno.
_LISTEN_FIXES = {
    errno.EADDRINUSE: "another program listens there: stop it, or choose another --port "
    "(--port 0 picks a free one)",
    errno.EACCES: "this user may not listen on that port: choose a --port of 1024 or above "
    "(--port 0 picks a free one)",
    errno.EADDRNOTAVAIL: "no interface of this machine has that address: choose another "
    "--host (127.0.0.1 is this machine only)",
}


def listening_socket(host: str, port: int) -> socket.socket:
    """The server's socket, bound here rather than by uvicorn: a busy port or an unknown host
    is one line naming the address and the fix, and exit 1 (uvicorn logs its own lines and
    exits 3), and uvicorn, given the socket, prints no URL of its own before hookwright's
    (which carries the token)."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        return socket.create_server((host, port), family=family)
    except socket.gaierror as exc:
        why, fix = exc.strerror or str(exc), "check the --host name (127.0.0.1 is this machine)"
    except OSError as exc:
        why = os.strerror(exc.errno) if exc.errno and exc.errno > 0 else exc.strerror or str(exc)
        fix = _LISTEN_FIXES.get(exc.errno or 0, "choose another --host or --port")
    authority = f"[{host}]" if ":" in host else host
    sys.stderr.write(f"hookwright: error: cannot listen on {authority}:{port}: {why}; {fix}\n")
    raise typer.Exit(code=1)


class _AnnouncingServer(uvicorn.Server):
    """Prints the page URL, with the bound port and the token, once the socket listens: the
    one start-up line (uvicorn's own lifecycle lines are `quiet_uvicorn`'s)."""

    def __init__(self, config: uvicorn.Config, project_dir: Path, token: str) -> None:
        super().__init__(config)
        self.project_dir = project_dir
        self.token = token

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.should_exit or not self.servers:
            return
        port = int(self.servers[0].sockets[0].getsockname()[1])
        url = page_url(self.config.host, port, self.token)
        sys.stderr.write(f"hookwright: serving {self.project_dir} until Ctrl-C; open {url}\n")


def serve(
    project: ServeProjectOpt = Path("."),
    host: HostOpt = "127.0.0.1",
    port: PortOpt = 8765,
    model: ModelOpt = None,
    skill: SkillOpt = None,
    trust: TrustOpt = False,
    permission_mode: ServeModeOpt = "default",
    plan: PlanOpt = False,
    max_turns: MaxTurnsOpt = 20,
    max_frame_bytes: FrameOpt = MAX_FRAME_BYTES,
    max_history: HistoryOpt = MAX_HISTORY,
    allow_origin: AllowOriginOpt = None,
    permission_timeout: PermissionTimeoutOpt = PERMISSION_TIMEOUT,
    max_frames_per_second: RateOpt = MAX_FRAMES_PER_SECOND,
    max_connections: ConnectionsOpt = MAX_CONNECTIONS,
) -> None:
    """Serve the agent over WebSocket (/ws) with a chat page (/); no state between requests.

    Open the printed URL: it carries a fresh access token, and the server only accepts
    WebSockets from its own page (or --allow-origin) that present it.
    """
    settings = settings_from_options(
        project=project,
        model=model,
        skill=skill,
        trust=trust,
        permission_mode=permission_mode,
        plan=plan,
        max_turns=max_turns,
        max_frame_bytes=max_frame_bytes,
        max_history=max_history,
        host=host,
        allow_origin=allow_origin,
        permission_timeout=permission_timeout,
        max_frames_per_second=max_frames_per_second,
        max_connections=max_connections,
    )
    warn_if_exposed(host, settings.project_dir)
    say_hooks_not_run(settings)
    listener = listening_socket(host, port)
    token = new_token()
    config = ServeConfig(create_app(settings, token=token), settings, port=port, log_level="info")
    quiet_uvicorn(token)
    with listener:
        _AnnouncingServer(config, settings.project_dir, token).run(sockets=[listener])
