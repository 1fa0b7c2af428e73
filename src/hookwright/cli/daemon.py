"""`hookwright daemon start|stop|status|serve`: the per-user process that answers Claude Code
hook events for any project (see docs/hosts.md)."""

from __future__ import annotations

import json
import sys
import time
from typing import Annotated, Any

import typer

from hookwright.bridges import claude_client
from hookwright.core.home import user_home

daemon_app = typer.Typer(
    help="The per-user daemon that answers Claude Code hook events.", no_args_is_help=True
)
START_WAIT = 30.0


def _ask(op: str) -> dict[str, Any] | None:
    """The daemon's status for `op`; None when no daemon answers."""
    path = claude_client.socket_path(user_home())
    try:
        answer = claude_client.exchange(path, {"op": op}, b"", 10.0)
        data = json.loads(answer["stdout"])
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _show(data: dict[str, Any]) -> None:
    projects = ", ".join(data.get("projects") or []) or "none"
    typer.echo(f"hookwright daemon running: pid {data.get('pid')}")
    typer.echo(f"  socket: {data.get('socket')}")
    typer.echo(f"  http: {data.get('url') or 'off (no http install)'}")
    typer.echo(f"  projects loaded: {projects}")
    typer.echo(
        f"  events answered: {data.get('unix_events', 0)} on the socket, "
        f"{data.get('http_events', 0)} over http ({data.get('http_connections', 0)} connections)"
    )
    limits = data.get("http_limits")
    if data.get("url") and isinstance(limits, dict):
        typer.echo(
            f"  http limits: {limits.get('connections')} connections open at most "
            f"({data.get('http_open', 0)} now, {data.get('http_refused', 0)} refused at once); "
            f"idle {limits.get('idle')} s, head {limits.get('head')} s, "
            f"body {limits.get('body')} s"
        )
    workers = data.get("workers") or []
    if workers:
        pids = ", ".join(str(pid) for pid in workers)
        typer.echo(f"  http workers: {len(workers)} beside the daemon (pids {pids})")
    typer.echo(f"  exits after {data.get('idle_timeout')} s without a request")


@daemon_app.command("status")
def status(
    as_json: Annotated[bool, typer.Option("--json", help="Print the status as JSON.")] = False,
) -> None:
    """Say whether the daemon runs, where it listens, which projects it has loaded and how
    many events it answered; exit 1 when it is not running."""
    data = _ask("status")
    if data is None:
        typer.echo("null" if as_json else "hookwright daemon not running")
        raise typer.Exit(code=1)
    if as_json:
        typer.echo(json.dumps(data))
    else:
        _show(data)


@daemon_app.command("start")
def start() -> None:
    """Start the daemon unless it runs (clients also start it on demand)."""
    data = _ask("status")
    if data is None:
        claude_client.start_daemon(user_home(), sys.executable)
        deadline = time.monotonic() + START_WAIT
        while data is None and time.monotonic() < deadline:
            time.sleep(0.05)
            data = _ask("status")
    if data is None:
        sys.stderr.write("hookwright: error: the daemon did not start (see daemon.log)\n")
        raise typer.Exit(code=1)
    _show(data)


@daemon_app.command("stop")
def stop() -> None:
    """Stop the daemon; it finishes the requests it is answering first."""
    data = _ask("stop")
    if data is None:
        typer.echo("hookwright daemon not running")
        return
    path = claude_client.socket_path(user_home())
    deadline = time.monotonic() + START_WAIT
    while path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    typer.echo(f"hookwright daemon stopped (pid {data.get('pid')})")


@daemon_app.command("serve")
def serve(
    idle: Annotated[
        float | None,
        typer.Option(
            "--idle",
            metavar="SECONDS",
            help="Exit after this long without a request (default 1800, or "
            "HOOKWRIGHT_DAEMON_IDLE).",
        ),
    ] = None,
) -> None:
    """Run the daemon in the foreground (what `start` and the clients run detached)."""
    from hookwright.bridges import daemon

    raise typer.Exit(code=daemon.serve(user_home(), idle))
