"""The `hookwright audit` command group: read, filter, summarise and export the audit trail,
and `audit verify` its hash chain."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from hookwright.cli import audit_log, audit_verify
from hookwright.cli.audit_query import FORMATS, BadTime, Query, parse_time
from hookwright.monitor.audit import default_audit_path

audit_app = typer.Typer(
    help="Print the audit trail: one line per hook run (what it did to which call) and per "
    "permission outcome (who allowed or denied it).",
    invoke_without_command=True,
    rich_markup_mode=None,
)

FileOption = Annotated[
    Path | None,
    typer.Option(
        "--file",
        help="Audit file (default: HOOKWRIGHT_AUDIT_LOG, else ~/.hookwright/audit.jsonl).",
        metavar="FILE",
    ),
]


def _time(option: str, value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return parse_time(value)
    except BadTime as exc:
        sys.stderr.write(f"hookwright: error: {option}: {exc}\n")
        raise typer.Exit(code=2) from None


@audit_app.callback()
def audit(
    ctx: typer.Context,
    session: Annotated[
        str | None,
        typer.Option("--session", "-s", help="Only this session (id or prefix).", metavar="ID"),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(help="Records from this time (2026-11-24, ...T10:00Z) or ago (2h, 7d)."),
    ] = None,
    until: Annotated[
        str | None, typer.Option(help="Records before this time (as --since).")
    ] = None,
    decision: Annotated[
        str | None, typer.Option(help="Only this decision or effect (deny, allow, ask, ...).")
    ] = None,
    project: Annotated[
        str | None, typer.Option(help="Only records of this project folder (or one under it).")
    ] = None,
    hook: Annotated[str | None, typer.Option(help="Only this hook (its name).")] = None,
    event: Annotated[str | None, typer.Option(help="Only this event (PreToolUse, ...).")] = None,
    tier: Annotated[str | None, typer.Option(help="Only hooks of this policy tier.")] = None,
    summary: Annotated[
        bool, typer.Option("--summary", help="Counts per day, hook and decision.")
    ] = False,
    fmt: Annotated[
        str, typer.Option("--format", help="text, jsonl or csv.", metavar="FORMAT")
    ] = "text",
    follow: Annotated[
        bool, typer.Option("--follow", "-f", help="Keep printing records as they are written.")
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="The same as --format jsonl.")] = False,
    file: FileOption = None,
    tests: Annotated[
        bool,
        typer.Option("--tests", help="Also the records `hooks test` wrote (marked test)."),
    ] = False,
) -> None:
    """Print the audit trail: one line per hook run (what it did to which call) and per
    permission outcome (who allowed or denied it)."""
    if ctx.invoked_subcommand is not None:
        return
    if fmt not in FORMATS:
        sys.stderr.write(f"hookwright: error: --format {fmt}: use one of {', '.join(FORMATS)}\n")
        raise typer.Exit(code=2)
    query = Query(
        session=session,
        since=_time("--since", since),
        until=_time("--until", until),
        decision=decision,
        project=project,
        hook=hook,
        event=event,
        tier=tier,
    )
    options = audit_log.Options(
        follow=follow, summary=summary, fmt="jsonl" if json_out else fmt, tests=tests
    )
    raise typer.Exit(code=audit_log.run(file or default_audit_path(), query, options))


@audit_app.command("verify")
def verify(file: FileOption = None) -> None:
    """Check the audit's hash chain: names the first record (FILE:LINE) where it breaks and
    exits 1."""
    raise typer.Exit(code=audit_verify.run(file or default_audit_path()))
