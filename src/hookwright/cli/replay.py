"""`hookwright replay`: what a hook set would have decided about recorded tool calls.

The hooks of a folder (the project, or a candidate folder given with `--policy`) run on every
recorded call of the sessions read (transcripts and audit files); no tool runs and nothing is
written (no audit record, no bytecode). Exit code 0 when no decision changed, 1 when one did,
2 on bad input."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hookwright.cli.audit_query import BadTime, parse_time
from hookwright.cli.project import CliError, bound, error_line, say_diagnostics, say_err
from hookwright.cli.replay_read import RecordedCall, Recording
from hookwright.cli.replay_run import ReplayReport, replay
from hookwright.config.trust import TrustPolicy, TrustStore
from hookwright.core.home import user_home
from hookwright.core.words import counted

if TYPE_CHECKING:
    from hookwright.engine.kernel import HookEngine
    from hookwright.host.open import BoundHooks


@dataclass(frozen=True, slots=True)
class CallFilter:
    """Which recorded calls are replayed; a None keeps every value."""

    since: float | None = None
    until: float | None = None
    session: str | None = None
    #: Keep calls of this project folder (or a folder under it).
    project: str | None = None

    def keeps(self, call: RecordedCall) -> bool:
        if self.session and not call.session_id.startswith(self.session):
            return False
        if self.since is not None or self.until is not None:
            if call.ts is None:
                return False
            if self.since is not None and call.ts < self.since:
                return False
            if self.until is not None and call.ts >= self.until:
                return False
        return self.project is None or _under(call.project, self.project)


def _under(folder: str | None, wanted: str) -> bool:
    if folder is None:
        return False
    wanted = wanted.rstrip("/") or "/"
    return folder == wanted or folder.startswith(wanted.rstrip("/") + "/")


def default_sources(project: Path, home: Path) -> list[Path]:
    """The project's transcripts, then the audit files (rotated ones first)."""
    from hookwright.cli.audit_log import rotated
    from hookwright.monitor.audit import default_audit_path
    from hookwright.runtime.transcript import transcript_path

    folder = transcript_path(home, project, "x").parent
    transcripts = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
    audit = default_audit_path()
    return [*transcripts, *rotated(audit), *([audit] if audit.is_file() else [])]


def _expanded(sources: list[Path]) -> list[Path]:
    """Each named file, and the `*.jsonl` files of each named folder."""
    files: list[Path] = []
    for source in sources:
        if source.is_dir():
            files.extend(sorted(source.glob("*.jsonl")))
        elif source.is_file():
            files.append(source)
        else:
            raise CliError(f"recorded file {source} does not exist")
    return files


def read_calls(
    files: list[Path], wanted: CallFilter, owner: str | None = None
) -> tuple[Iterator[RecordedCall], Recording]:
    """The calls of `files` that `wanted` keeps, read as they are consumed (raising
    `CliError` for a file that cannot be read). With `owner` (a project folder whose own
    transcripts are read), transcript calls belong to it wherever their shell had moved."""
    recording = Recording()
    return _kept(recording, files, wanted, owner), recording


def _kept(
    recording: Recording, files: list[Path], wanted: CallFilter, owner: str | None
) -> Iterator[RecordedCall]:
    try:
        for call in recording.calls(files):
            if owner is not None and call.transcript:
                call = replace(call, project=owner)
            if wanted.keeps(call):
                yield call
    except OSError as exc:
        name = exc.filename or "?"
        raise CliError(f"cannot read recorded file {name}: {exc.strerror or exc}") from None


def replay_engine(folder: Path, trust: bool) -> tuple[HookEngine, BoundHooks]:
    """An engine with `folder`'s hooks, writing no audit. Hooks of a folder not trusted are
    an error (without `trust`): a replay without them would report their decisions as gone."""
    from hookwright.engine.kernel import HookEngine

    policy = TrustPolicy(everything=True) if trust else None
    hooks = bound(folder, None, policy)
    if hooks.opened.untrusted:
        count = len(hooks.opened.untrusted)
        how = TrustStore(user_home()).how_to_trust(folder.resolve())
        raise CliError(
            f"{counted(count, 'hook')} of {folder.resolve()} "
            f"{'is' if count == 1 else 'are'} not trusted and would not run; {how}"
        )
    say_diagnostics(hooks)
    engine = HookEngine(audit_path=None)
    hooks.register(engine)
    return engine, hooks


#: Control characters (C0, DEL, C1) of recorded text, shown as `?`: a recorded command must
#: not move the cursor or recolour the terminal it is printed to.
_CONTROLS = {code: "?" for code in (*range(0x20), *range(0x7F, 0xA0))}


def _print_text(report: ReplayReport, skipped: int) -> None:
    out = sys.stdout
    for call in report.changed:
        hooks = ", ".join(call.hooks) or "no hook"
        line = (
            f"{call.session_id[:12]}  {call.event} {call.tool_name} {call.summary}  "
            f"{call.old} → {call.new}  ({hooks})"
        )
        out.write(line.translate(_CONTROLS) + "\n")
    if report.per_hook:
        out.write("per hook:\n")
        width = max(len(name) for name, _ in report.per_hook)
        for name, count in report.per_hook:
            out.write(f"  {name:<{width}}  {count} changed\n")
    out.write(
        f"{len(report.changed)} of {counted(report.replayed, 'recorded call')} in "
        f"{counted(report.sessions, 'session')} would be decided differently"
        + (f"; {counted(skipped, 'recorded line')} skipped" if skipped else "")
        + "\n"
    )


def _filter(
    since: str | None, until: str | None, session: str | None, project_filter: str | None
) -> CallFilter:
    try:
        return CallFilter(
            since=parse_time(since) if since else None,
            until=parse_time(until) if until else None,
            session=session,
            project=str(Path(project_filter).resolve()) if project_filter else None,
        )
    except BadTime as exc:
        raise CliError(f"--since/--until: {exc}") from None


def run_replay(
    project: Path,
    policy: Path | None,
    sources: list[Path],
    wanted: CallFilter,
    *,
    trust: bool,
    json_out: bool,
) -> int:
    """Run the command; returns its exit code."""
    sys.dont_write_bytecode = True  # hook modules are imported: no bytecode into the folder
    try:
        folder = (policy or project).resolve()
        if not folder.is_dir():
            raise CliError(f"hook folder {folder} does not exist")
        if sources:
            calls, recording = read_calls(_expanded(sources), wanted)
        else:
            owner = str(project.resolve())
            if wanted.project is None:
                wanted = replace(wanted, project=owner)
            named = default_sources(project.resolve(), user_home())
            calls, recording = read_calls(named, wanted, owner)
        engine, _ = replay_engine(folder, trust)
    except CliError as exc:
        return error_line(str(exc))
    try:
        report = replay(engine, calls)
    except CliError as exc:
        return error_line(str(exc))
    finally:
        engine.close()
    for line in recording.warnings.lines:
        say_err(line)
    if (more := recording.warnings.summary()) is not None:
        say_err(more)
    if json_out:
        document = {
            "hooks_folder": str(folder),
            **report.to_json(),
            "skipped_lines": recording.warnings.count,
        }
        sys.stdout.write(json.dumps(document, ensure_ascii=False) + "\n")
    else:
        _print_text(report, recording.warnings.count)
    return 1 if report.changed else 0


DirOpt = Annotated[Path, typer.Option("--project", "-p", help="Project directory.", metavar="DIR")]


def replay_command(
    sources: Annotated[
        list[Path] | None,
        typer.Argument(metavar="SOURCES", hidden=True, show_default=False),
    ] = None,
    project: DirOpt = Path("."),
    policy: Annotated[
        Path | None,
        typer.Option(
            "--policy",
            help="Run the hooks of this candidate folder instead of the project's.",
            metavar="DIR",
        ),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(help="Only calls at or after this time (2026-11-24, 2h, 7d).", metavar="T"),
    ] = None,
    until: Annotated[
        str | None, typer.Option(help="Only calls before this time.", metavar="T")
    ] = None,
    session: Annotated[
        str | None, typer.Option(help="Only this session (an id or its start).", metavar="ID")
    ] = None,
    project_filter: Annotated[
        str | None,
        typer.Option(
            "--project-filter",
            help="Only calls recorded in this project folder or under it (default with no "
            "SOURCES: the project).",
            metavar="P",
        ),
    ] = None,
    json_out: Annotated[
        bool, typer.Option("--json", help="One JSON document (for CI).", metavar="")
    ] = False,
    trust: Annotated[
        bool, typer.Option("--trust", help="Run the hooks even if their folder is not trusted.")
    ] = False,
) -> None:
    """Replay recorded tool calls through a folder's hooks and print which decisions would
    change: each call with its old and new decision and the hook, then counts per hook.

    SOURCES are transcript or audit files, or folders of *.jsonl files; by default the
    project's transcripts and the audit files. No tool runs and hookwright writes nothing (no
    audit record, nothing into the project), but the hooks themselves do run (that is the
    point): modules are imported, commands start, HTTP hooks are called; hooks of a folder
    not trusted are refused unless --trust. Exit code 0: no decision changed; 1: some
    changed; 2: bad input."""
    try:
        wanted = _filter(since, until, session, project_filter)
    except CliError as exc:
        raise typer.Exit(code=error_line(str(exc))) from None
    code = run_replay(project, policy, list(sources or []), wanted, trust=trust, json_out=json_out)
    if code:
        raise typer.Exit(code=code)
