"""`hookwright` command line: hooks list / hooks test / schema."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

# typer bundles its own click; its usage errors are caught to print them as one line.
from typer._click import Command, Context
from typer._click import exceptions as click_errors
from typer.core import TyperGroup

from hookwright.cli import validate as validation
from hookwright.cli.audit_cmd import audit_app
from hookwright.cli.hooks_listing import hooks_listing
from hookwright.cli.hooks_test import HooksTest
from hookwright.cli.hooks_test import run as run_hooks_test
from hookwright.cli.project import (
    CliError,
    checked,
    error_line,
    load,
    say_err,
    trust_store,
    unreadable_files,
)
from hookwright.config.trust import TrustPolicy, TrustStore, folder_to_trust
from hookwright.core.events import UnknownEventError, resolve_event
from hookwright.core.home import user_home
from hookwright.core.words import counted
from hookwright.monitor import debug as debug_trace
from hookwright.transports.adoption import enable_subreaper

from . import hooktable

if TYPE_CHECKING:
    from rich.console import Console

    from hookwright.host.open import BoundHooks

#: Commands whose module loads the agent runtime (models, tools, the server): imported when
#: named or listed, so `hooks` and `schema` start without them.
_RUNTIME_COMMANDS = {
    "run": ("hookwright.cli.run", "run"),
    "serve": ("hookwright.cli.serve", "serve"),
    "chat": ("hookwright.cli.chat", "chat"),
    "sessions": ("hookwright.cli.sessions", "sessions"),
    "replay": ("hookwright.cli.replay", "replay_command"),
    "trust": ("hookwright.cli.trusting", "trust"),
    "untrust": ("hookwright.cli.trusting", "untrust"),
    "picoclaw-process": ("hookwright.cli.picoclaw", "picoclaw_process"),
}


def _runtime_command(name: str) -> Command:
    """The one runtime command `name`, its module imported now (`trust` does not load the
    chat's MCP client, nor `run` the server)."""
    from importlib import import_module

    module, function = _RUNTIME_COMMANDS[name]
    runtime = typer.Typer(pretty_exceptions_enable=False, rich_markup_mode=None)
    runtime.command(name)(getattr(import_module(module), function))
    # A callback keeps typer from collapsing a one-command app into that command.
    runtime.callback()(lambda: None)
    group = typer.main.get_command(runtime)
    assert isinstance(group, TyperGroup)
    return group.commands[name]


class _LazyRuntimeGroup(TyperGroup):
    def list_commands(self, ctx: Context) -> list[str]:
        return [
            *super().list_commands(ctx),
            *(n for n in _RUNTIME_COMMANDS if n not in self.commands),
        ]

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        if cmd_name in _RUNTIME_COMMANDS and cmd_name not in self.commands:
            self.commands[cmd_name] = _runtime_command(cmd_name)
        return super().get_command(ctx, cmd_name)


app = typer.Typer(
    name="hookwright",
    help="One lifecycle-hook engine for LLM agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    cls=_LazyRuntimeGroup,
)


def _print_version(wanted: bool) -> None:
    if wanted:
        from hookwright import __version__

        sys.stdout.write(f"hookwright {__version__}\n")
        raise typer.Exit()


hooks_app = typer.Typer(
    help="Inspect and exercise the hooks a project would run.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(hooks_app, name="hooks")
app.add_typer(audit_app, name="audit")


@app.callback()
def _global_options(
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
    debug: Annotated[
        bool,
        typer.Option(
            "--debug",
            help="Trace hook matching, spawning, calls, exit codes and outputs to stderr "
            "(also HOOKWRIGHT_DEBUG=1).",
            metavar="",
        ),
    ] = False,
) -> None:
    """One lifecycle-hook engine for LLM agents."""
    if debug:
        debug_trace.enable()


def _stdout_console() -> Console:
    """The terminal's width; for scripts, $COLUMNS when set, else wide enough that a line
    stays whole."""
    from rich.console import Console

    console = Console()
    if console.is_terminal:
        return console
    columns = os.environ.get("COLUMNS", "")
    return Console(width=int(columns) if columns.isdigit() and int(columns) > 0 else 1000)


ProjectOpt = Annotated[
    Path,
    typer.Option("--project", "-p", help="Project directory.", file_okay=False, metavar="DIR"),
]
ConfigOpt = Annotated[
    list[Path] | None,
    typer.Option("--config", "-c", help="Extra hook config file (repeatable).", metavar="FILE"),
]
SkillOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--skill",
        help="Only this skill's prompt hooks, of <project>/skills (repeatable; default: every "
        "skill there).",
        metavar="NAME",
    ),
]


ClaudeCodeVersionOpt = Annotated[
    str | None,
    typer.Option(
        "--claude-code-version",
        help="Load the hooks as this Claude Code version does (2.1.240, 2.1.332, ...): its "
        "events and onFailure. Default: claudeCodeVersion in .hookwright/settings.json, else "
        "the newest.",
        metavar="X.Y.Z",
    ),
]


def _fail(message: str) -> typer.Exit:
    return typer.Exit(code=error_line(message))


@hooks_app.command("list")
def hooks_list(
    project: ProjectOpt = Path("."),
    config: ConfigOpt = None,
    event: Annotated[str | None, typer.Option(help="Only this event.", metavar="EVENT")] = None,
    json_out: Annotated[
        bool,
        typer.Option(
            "--json", help="One JSON object: Claude Code's hooks listing shape.", metavar=""
        ),
    ] = False,
    skill: SkillOpt = None,
) -> None:
    """The resolved hooks, grouped by event in the order they run, with where each was
    declared.

    Hooks of a folder that is not trusted are listed from their config files, marked "not
    trusted: will not run"; none of their code is imported, called or started. Hooks their
    settings turn off, or that failed to load, are listed as "will not run: it failed to
    load, or a setting turns it off".
    Each hook says how it fails ("fails open", "fails closed") and what closed it: a rule of
    a failure policy file (file and rules[N]) or the hook's own field. Skill prompt hooks
    are listed under the event their timing fires on, for every skill of <project>/skills
    unless --skill names some."""
    try:
        # The listing ends with the untrusted hooks' count and how to trust the folder.
        engine, hooks = load(project, config, skills=skill or None, untrusted_said=not json_out)
        wanted = resolve_event(event) if event else None
    except (CliError, UnknownEventError) as exc:
        raise _fail(str(exc)) from None
    rows = hooktable.collect(engine, hooks.opened.not_run, wanted, hooks.opened.failure_policy)
    engine.close()
    _print_hooks(rows, hooks, project, json_out)
    unreadable = unreadable_files(hooks)
    if unreadable:
        error_line(
            f"{counted(len(unreadable), 'hook config file')} could not be read or parsed, so their "
            f"hooks are not listed: {', '.join(unreadable)}"
        )
        raise typer.Exit(code=1)


def _print_hooks(
    rows: list[hooktable.HookRow], hooks: BoundHooks, project: Path, json_out: bool
) -> None:
    if json_out:
        skipped = [
            (d.file, d.message)
            for d in hooks.loaded.diagnostics
            if d.severity == "error" and not d.path
        ]
        listing = hooks_listing(rows, list(dict.fromkeys(skipped)))
        sys.stdout.write(json.dumps(listing, ensure_ascii=False) + "\n")
        return
    console = _stdout_console()
    if not rows:
        console.print("no hooks configured" if not unreadable_files(hooks) else "no hooks loaded")
        return
    hooktable.print_rows(console, rows, project.resolve())
    if hooks.opened.untrusted:
        console.print(
            f"{counted(len(hooks.opened.untrusted), 'hook')} {hooktable.NOT_TRUSTED}: "
            + TrustStore(user_home()).how_to_trust(
                folder_to_trust((hook.trust_root for hook in hooks.opened.untrusted), project)
            )
        )


@hooks_app.command("test")
def hooks_test(
    event: Annotated[str, typer.Argument(metavar="EVENT", hidden=True)],
    input_file: Annotated[
        str | None,
        typer.Option("--input", "-i", help="Input JSON file, or - for stdin.", metavar="FILE"),
    ] = None,
    project: ProjectOpt = Path("."),
    config: ConfigOpt = None,
    explain: Annotated[
        bool, typer.Option("--explain", help="Say why each hook was selected or skipped.")
    ] = False,
    from_transcript: Annotated[
        Path | None,
        typer.Option(
            "--from-transcript",
            help="Replay a tool call recorded in this transcript: a file, or a session id "
            "as hookwright sessions lists it.",
            metavar="FILE|ID",
        ),
    ] = None,
    tool_use: Annotated[
        str | None,
        typer.Option(
            "--tool-use", help="The recorded call's id (default: the last).", metavar="ID"
        ),
    ] = None,
    claude_code_version: ClaudeCodeVersionOpt = None,
    skill: SkillOpt = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            "-m",
            help="The model prompt and agent hooks ask: scripted:PATH, openai:NAME or "
            "anthropic:NAME (as hookwright run takes it).",
            metavar="MODEL",
        ),
    ] = None,
) -> None:
    """Dispatch EVENT (a canonical name or a dialect alias) and print the merged verdict as
    one JSON object.

    This runs the project's hooks (imports its modules, calls its factories, starts its
    commands) whether or not the folder is trusted: point it only at hooks you mean to run."""
    args = HooksTest(
        event,
        input_file,
        project,
        config,
        explain,
        from_transcript,
        tool_use,
        claude_code_version,
        model=model,
        skills=skill or None,
    )
    code = run_hooks_test(args)
    if code:
        raise typer.Exit(code=code)


@hooks_app.command("validate")
def hooks_validate(
    project: ProjectOpt = Path("."),
    config: ConfigOpt = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    trust: Annotated[
        bool,
        typer.Option("--trust", help="Also load the code of hooks in a folder not trusted."),
    ] = False,
) -> None:
    """Check every hook config file of every dialect; exit 1 when any has an error.

    Files are read and validated without running anything; hooks of trusted folders (all with
    --trust) are also loaded as a session loads them (modules imported, factories called)."""
    try:
        folder, scope = checked(project, config)
        policy = TrustPolicy(everything=True) if trust else trust_store()
    except CliError as exc:
        raise _fail(str(exc)) from None
    report = validation.validate(folder, scope, policy)
    if json_out:
        sys.stdout.write(json.dumps(validation.to_json(report), ensure_ascii=False) + "\n")
    else:
        sys.stdout.write("\n".join(validation.to_lines(report)) + "\n")
    if not report.ok:
        raise typer.Exit(code=1)


def _schemas() -> dict[str, Callable[[], dict[str, Any]]]:
    from hookwright.dialects import native, openharness
    from hookwright.dialects.claude_code import config as claude_code
    from hookwright.dialects.codex import schema as codex
    from hookwright.dialects.gemini import schema as gemini
    from hookwright.dialects.picoclaw import config as picoclaw
    from hookwright.dialects.skills import schema as skills

    return {
        "native": native.json_schema,
        "claude-code": claude_code.json_schema,
        "picoclaw": picoclaw.json_schema,
        "openharness": openharness.json_schema,
        "skills": skills.json_schema,
        "codex": codex.json_schema,
        "gemini": gemini.json_schema,
    }


#: Other names of a schema: each dialect's id (the audit's `dialect`) and its system's name
#: as `hooks list` says it, lower-cased, with `_` and spaces as `-`.
_SCHEMA_NAMES = {
    "python": "native",
    "claude-code": "claude-code",
    "skill": "skills",
    "gemini-cli": "gemini",
    "codex-cli": "codex",
}


def _schema_name(asked: str) -> str:
    """The schema `asked` names: its own name, a dialect id or a system's name
    (``claude_code``, ``Claude Code``, ``Python``, ``skill``, ``Gemini CLI``)."""
    name = asked.strip().lower().replace("_", "-").replace(" ", "-")
    return _SCHEMA_NAMES.get(name, name)


@app.command("schema")
def schema(
    dialect: Annotated[str, typer.Argument(metavar="DIALECT", hidden=True)] = "native",
) -> None:
    """Print the JSON Schema of a DIALECT's hook config, for an editor: native (default,
    .hookwright/hooks.yaml), claude-code (a settings file's hooks), picoclaw (a config file's
    hooks and isolation), openharness (one hook file), skills (a skill's hooks.json), codex
    (.codex/hooks.json) or gemini (a .gemini/settings.json's hooks)."""
    schemas = _schemas()
    name = _schema_name(dialect)
    if name not in schemas:
        raise _fail(f"unknown schema {dialect!r} (known: {', '.join(sorted(schemas))})")
    sys.stdout.write(json.dumps(schemas[name](), indent=2) + "\n")


def _register_host_commands() -> None:
    from hookwright.cli import hosts

    hosts.register(app)


_register_host_commands()


def _usage_error(exc: click_errors.UsageError) -> int:
    """A usage error as one line (click's and typer's own print a box or three lines)."""
    if isinstance(exc, click_errors.NoArgsIsHelpError) and exc.ctx is not None:
        sys.stdout.write(exc.ctx.get_help() + "\n")
        return 2
    where = exc.ctx.command_path if exc.ctx is not None else "hookwright"
    message = " ".join(exc.format_message().split())
    said = _hooks_command_meant(exc)
    if said is not None:
        message = f"{message.rstrip('.')}; did you mean: hookwright hooks {said}?"
    say_err(f"hookwright: error: {message} (see: {where} --help)")
    return 2


#: The usage error of a command name its group does not have.
_NO_SUCH_COMMAND = re.compile(r"No such command '([\w-]+)'\.")


def _hooks_command_meant(exc: click_errors.UsageError) -> str | None:
    """`validate` when `hookwright validate` was typed for `hookwright hooks validate` (the
    `hooks` commands, named without their group)."""
    ctx = exc.ctx
    if ctx is None or ctx.parent is not None or not isinstance(ctx.command, TyperGroup):
        return None
    typed = _NO_SUCH_COMMAND.fullmatch(exc.format_message())
    hooks = ctx.command.get_command(ctx, "hooks")
    if typed is None or not isinstance(hooks, TyperGroup):
        return None
    return typed[1] if hooks.get_command(ctx, typed[1]) is not None else None


def main() -> None:
    # hookwright's own process adopts what its hooks and tools detach (see transports.adoption).
    enable_subreaper()
    command = typer.main.get_command(app)
    try:
        code = command.main(prog_name="hookwright", standalone_mode=False)
    except click_errors.UsageError as exc:
        code = _usage_error(exc)
    except click_errors.ClickException as exc:
        say_err(f"hookwright: error: {' '.join(exc.format_message().split())}")
        code = exc.exit_code
    except typer.Abort:
        say_err("hookwright: interrupted")
        code = 130
    sys.exit(code if isinstance(code, int) else 0)
