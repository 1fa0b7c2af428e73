"""`hookwright` command line: hooks list / hooks test / schema."""

from __future__ import annotations

import json
import os
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

# typer bundles its own click; its usage errors are caught to print them as one line.
from typer._click import exceptions as click_errors

from hookwright import __version__
from hookwright.engine import HookEngine
from hookwright.events import HookInput, UnknownEventError, resolve_event
from hookwright.loading import LoadContext, LoadResult, discover
from hookwright.safeparse import MAX_TEXT_CHARS, ParseError, decode_utf8, load_json_text, read_text
from hookwright.transports.adoption import enable_subreaper
from hookwright.trust import TrustPolicy, TrustStore

from . import hooktable

app = typer.Typer(
    name="hookwright",
    help="One lifecycle-hook engine for LLM agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
hooks_app = typer.Typer(
    help="Inspect and exercise the hooks a project would run.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(hooks_app, name="hooks")


def _stdout_console() -> Console:
    """The terminal's width; for scripts, $COLUMNS when set, else wide enough that a line
    stays whole."""
    console = Console()
    if console.is_terminal:
        return console
    columns = os.environ.get("COLUMNS", "")
    return Console(width=int(columns) if columns.isdigit() and int(columns) > 0 else 1000)


def _say_err(line: str) -> None:
    sys.stderr.write(line.rstrip("\n") + "\n")


ProjectOpt = Annotated[
    Path,
    typer.Option("--project", "-p", help="Project directory.", file_okay=False, metavar="DIR"),
]
ConfigOpt = Annotated[
    list[Path] | None,
    typer.Option("--config", "-c", help="Extra hook config file (repeatable).", metavar="FILE"),
]


class CliError(Exception):
    """A user error: printed as one line, exit code 2."""


def _fail(message: str) -> typer.Exit:
    _say_err(f"hookwright: error: {' '.join(message.split())}")
    return typer.Exit(code=2)


def _load(
    project: Path, configs: list[Path] | None, policy: TrustPolicy | None = None
) -> tuple[HookEngine, LoadResult]:
    """Discover the project's hooks and bind those `policy` trusts (default: the trust store)."""
    project = project.resolve()
    if not project.is_dir():
        raise CliError(f"project directory {project} does not exist")
    files = [Path(c) for c in configs or []]
    for file in files:
        if not file.is_file():
            raise CliError(f"config file {file} does not exist")
    try:
        policy = policy or TrustPolicy.load(Path.home())
    except ValueError as exc:
        raise CliError(str(exc)) from None
    discovery = discover(LoadContext(project_dir=project, home=Path.home(), config_files=files))
    result = discovery.bind(policy)
    engine = HookEngine()
    for spec in result.specs:
        engine.register(spec)
    for diagnostic in result.diagnostics:
        _say_err(str(diagnostic))
    return engine, result


@hooks_app.command("list")
def hooks_list(
    project: ProjectOpt = Path("."),
    config: ConfigOpt = None,
    event: Annotated[str | None, typer.Option(help="Only this event.", metavar="EVENT")] = None,
    json_out: Annotated[
        bool, typer.Option("--json", help="One JSON array of hooks.", metavar="")
    ] = False,
) -> None:
    """The resolved hooks, grouped by event in the order they run, with where each was
    declared.

    Hooks of a folder that is not trusted are listed from their config files, marked "not
    trusted: will not run"; none of their code is imported, called or started."""
    try:
        engine, result = _load(project, config)
        wanted = resolve_event(event) if event else None
    except (CliError, UnknownEventError) as exc:
        raise _fail(str(exc)) from None
    rows = hooktable.collect(engine, result.untrusted, wanted)
    engine.close()
    if json_out:
        sys.stdout.write(json.dumps(hooktable.as_json(rows), ensure_ascii=False) + "\n")
        return
    console = _stdout_console()
    if not rows:
        console.print("no hooks configured")
        return
    hooktable.print_rows(console, rows, project.resolve())
    if result.untrusted:
        console.print(
            f"{len(result.untrusted)} hook(s) {hooktable.NOT_TRUSTED}: "
            + TrustStore(Path.home()).how_to_trust(project.resolve())
        )


def _read_input(source: str | None) -> dict[str, Any]:
    if source is None:
        return {}
    name = "stdin" if source == "-" else source
    try:
        text = _read_stdin() if source == "-" else read_text(Path(source))
    except ParseError as exc:
        raise CliError(f"cannot read input {name}: {exc.reason}") from None
    if not text.strip():
        return {}
    try:
        data = load_json_text(text)
    except ParseError as exc:
        raise CliError(f"input {name}: {exc.reason}") from None
    if not isinstance(data, dict):
        raise CliError(f"input {name} must be a JSON object, got {type(data).__name__}")
    return data


def _read_stdin() -> str:
    data = sys.stdin.buffer.read(MAX_TEXT_CHARS + 1)
    if len(data) > MAX_TEXT_CHARS:
        raise ParseError(f"larger than {MAX_TEXT_CHARS:,} bytes")
    return decode_utf8(data)


@hooks_app.command("test")
def hooks_test(
    event: Annotated[str, typer.Argument(metavar="EVENT", hidden=True)],
    input_file: Annotated[
        str | None,
        typer.Option("--input", "-i", help="Input JSON file, or - for stdin.", metavar="FILE"),
    ] = None,
    project: ProjectOpt = Path("."),
    config: ConfigOpt = None,
) -> None:
    """Dispatch EVENT (a canonical name or a dialect alias) and print the merged verdict as
    one JSON object.

    This runs the project's hooks (imports its modules, calls its factories, starts its
    commands) whether or not the folder is trusted: point it only at hooks you mean to run."""
    try:
        canonical = resolve_event(event)
        data = _read_input(input_file)
        engine, _ = _load(project, config, TrustPolicy(everything=True))
    except (CliError, UnknownEventError) as exc:
        raise _fail(str(exc)) from None
    data.setdefault("session_id", f"test-{uuid.uuid4().hex[:8]}")
    data.setdefault("cwd", str(project.resolve()))
    inp = HookInput.from_wire(canonical, data)
    try:
        verdict = engine.dispatch_sync(inp)
    finally:
        engine.close()
    sys.stdout.write(json.dumps(verdict.to_json(), ensure_ascii=False) + "\n")


def _schemas() -> dict[str, Callable[[], dict[str, Any]]]:
    from hookwright.dialects import native, openharness

    return {"native": native.json_schema, "openharness": openharness.json_schema}


@app.command("schema")
def schema(
    dialect: Annotated[str, typer.Argument(metavar="DIALECT", hidden=True)] = "native",
) -> None:
    """Print the JSON Schema of a DIALECT's hook config: native (default) or openharness
    (one hook file)."""
    schemas = _schemas()
    if dialect not in schemas:
        raise _fail(f"unknown schema {dialect!r} (known: {', '.join(sorted(schemas))})")
    sys.stdout.write(json.dumps(schemas[dialect](), indent=2) + "\n")


def _register_runtime_commands() -> None:
    from hookwright.cli import chat as chat_commands
    from hookwright.cli import run as run_commands
    from hookwright.cli import serve as serve_commands
    from hookwright.cli import sessions as session_commands
    from hookwright.cli import trusting

    app.command("run")(run_commands.run)
    app.command("serve")(serve_commands.serve)
    app.command("chat")(chat_commands.chat)
    app.command("sessions")(session_commands.sessions)
    app.command("trust")(trusting.trust)
    app.command("untrust")(trusting.untrust)


_register_runtime_commands()


def _print_version(value: bool) -> None:
    if value:
        sys.stdout.write(f"hookwright {__version__}\n")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print the version and exit.",
            is_eager=True,
            callback=_print_version,
            metavar="",
        ),
    ] = False,
) -> None:
    """One lifecycle-hook engine for LLM agents."""


def _usage_error(exc: click_errors.UsageError) -> int:
    """A usage error as one line (click's and typer's own print a box or three lines)."""
    if isinstance(exc, click_errors.NoArgsIsHelpError) and exc.ctx is not None:
        sys.stdout.write(exc.ctx.get_help() + "\n")
        return 2
    where = exc.ctx.command_path if exc.ctx is not None else "hookwright"
    message = " ".join(exc.format_message().split())
    _say_err(f"hookwright: error: {message} (see: {where} --help)")
    return 2


def main() -> None:
    # hookwright's own process adopts what its hooks and tools detach (see transports.adoption).
    enable_subreaper()
    command = typer.main.get_command(app)
    try:
        code = command.main(prog_name="hookwright", standalone_mode=False)
    except click_errors.UsageError as exc:
        code = _usage_error(exc)
    except click_errors.ClickException as exc:
        _say_err(f"hookwright: error: {' '.join(exc.format_message().split())}")
        code = exc.exit_code
    except typer.Abort:
        _say_err("hookwright: interrupted")
        code = 130
    sys.exit(code if isinstance(code, int) else 0)
