"""`hookwright run`, and the session options `chat` shares."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, cast

import typer
from rich.console import Console
from rich.prompt import Confirm

from hookwright.cli.elicit import TerminalElicitation
from hookwright.cli.summary import RunSummary
from hookwright.config.safeparse import MAX_TEXT_CHARS, ParseError, decode_utf8
from hookwright.core.words import counted
from hookwright.dialects.claude_profiles import named_profile
from hookwright.dialects.skills import skills_not_enabled, unknown_skills
from hookwright.host.held_back import SkipUntrusted, held_back_lines
from hookwright.host.not_run import NotRun
from hookwright.host.open import NOT_RUN_LOGGER
from hookwright.runtime.agent import AskUser, EventSink
from hookwright.runtime.mcp.elicitation import AskElicitation
from hookwright.runtime.models import ModelConfigError
from hookwright.runtime.opening import SessionOptions, SessionSetup, open_session
from hookwright.runtime.permissions import MODES, PermissionMode
from hookwright.runtime.teammate import Teammate, parse_teammate

from .render import JsonRenderer, RichRenderer

ProjectOpt = Annotated[
    Path, typer.Option("--project", "-p", help="Project directory.", metavar="DIR")
]
ModelOpt = Annotated[
    str | None,
    typer.Option(
        "--model", "-m", help="scripted:PATH, openai:NAME or anthropic:NAME.", metavar="MODEL"
    ),
]
ModeOpt = Annotated[
    str | None,
    typer.Option(
        "--permission-mode",
        help=f"One of: {', '.join(MODES)}. Default: the settings' permissions.defaultMode, "
        "else default.",
        metavar="MODE",
    ),
]
TeammateOpt = Annotated[
    str | None,
    typer.Option(
        "--teammate",
        help="Run as this agent team member: TeammateIdle hooks run when it would stop "
        "(needs CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1).",
        metavar="NAME@TEAM",
    ),
]
ClaudeCodeVersionOpt = Annotated[
    str | None,
    typer.Option(
        "--claude-code-version",
        help="The Claude Code version to behave as (2.1.240, 2.1.332, ...). Default: "
        "claudeCodeVersion in .hookwright/settings.json, else the newest.",
        metavar="X.Y.Z",
    ),
]
MaxTurnsOpt = Annotated[
    int, typer.Option("--max-turns", min=1, help="Agent rounds per prompt.", metavar="N")
]
JsonOpt = Annotated[
    bool, typer.Option("--json", help="Print a JSONL stream of events.", metavar="")
]
TrustOpt = Annotated[
    bool, typer.Option("--trust", help="Run this project's hooks this time.", metavar="")
]
ResumeOpt = Annotated[
    str | None,
    typer.Option(
        "--resume", help="Continue a session by id (see: hookwright sessions).", metavar="ID"
    ),
]
ForkOpt = Annotated[
    bool,
    typer.Option(
        "--fork-session",
        help="With --resume: go on in a new session holding a copy of its history.",
        metavar="",
    ),
]
ConfigOpt = Annotated[
    list[Path] | None,
    typer.Option("--config", "-c", help="Extra hook config file (repeatable).", metavar="FILE"),
]
McpConfigOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--mcp-config",
        help="MCP servers from a JSON file, as in Claude Code (repeatable).",
        metavar="FILE",
    ),
]
SkillOpt = Annotated[
    list[str] | None,
    typer.Option("--skill", help="Enable a skill from <project>/skills.", metavar="NAME"),
]
PlanOpt = Annotated[bool, typer.Option("--plan", help="Run a planning round first.", metavar="")]
SummaryOpt = Annotated[
    bool,
    typer.Option("--summary", help="End with a table: what each hook did in this run.", metavar=""),
]


def _fail(message: str) -> typer.Exit:
    sys.stderr.write(f"hookwright: error: {' '.join(message.split())}\n")
    return typer.Exit(code=2)


def permission_question(tool: str, question: str, tool_input: dict[str, Any]) -> str:
    return f"{tool} {json.dumps(tool_input)[:200]} — {question}. Allow?"


async def _ask_permission(tool: str, question: str, tool_input: dict[str, Any]) -> bool:
    text = permission_question(tool, question, tool_input)
    return await asyncio.to_thread(Confirm.ask, text, default=False)


async def _stdin_line() -> str | None:
    line = await asyncio.to_thread(sys.stdin.readline)
    return line or None


async def _ask_trust(folder: Path, count: int) -> bool:
    text = f"{folder} has {counted(count, 'hook')} of its own that run commands. Trust this folder?"
    return await asyncio.to_thread(Confirm.ask, text, default=False)


def check_mode(mode: str | None) -> PermissionMode | None:
    if mode is None:
        return None
    if mode not in MODES:
        raise _fail(f"unknown permission mode {mode!r} (use one of: {', '.join(MODES)})")
    return cast(PermissionMode, mode)


_NOT_RUN_HANDLER = "hookwright-cli-not-run"


class _SeverityFormatter(logging.Formatter):
    """`error: MESSAGE` or `warning: MESSAGE`, as the command line's diagnostics read."""

    def format(self, record: logging.LogRecord) -> str:
        word = "error" if record.levelno >= logging.ERROR else "warning"
        return f"{word}: {record.getMessage()}"


def say_not_run_on_stderr() -> logging.Handler | None:
    """Show every hook that will not run (the `hookwright.open` lines of `report_not_run`:
    file, hook, reason, fix) as one line each on stderr, beside the diagnostics: `error:` for
    a hook that failed to load, `warning:` for one held back; once per process. The hooks an
    untrusted folder holds back are left out here, to be said once per folder
    (`held_back_lines`), with `--json` as in the terminal. Returns the handler it added (None
    when there is one already), for a caller that says them only for a while."""
    logger = logging.getLogger(NOT_RUN_LOGGER)
    if any(handler.get_name() == _NOT_RUN_HANDLER for handler in logger.handlers):
        return None
    handler = logging.StreamHandler(sys.stderr)
    handler.set_name(_NOT_RUN_HANDLER)
    handler.setFormatter(_SeverityFormatter())
    handler.addFilter(SkipUntrusted())
    logger.addHandler(handler)
    logger.propagate = False
    return handler


def say_opening_on_stderr(
    diagnostics: Sequence[str], not_run: Sequence[NotRun], said: Collection[str]
) -> None:
    """What opening the project said beside the `hookwright.open` lines (which say the lines
    of `said`): its other diagnostics, and one line per folder whose hooks its trust holds
    back (`held_back_lines`)."""
    for line in diagnostics:
        if line not in said:
            sys.stderr.write(line + "\n")
    for line in held_back_lines(not_run):
        sys.stderr.write(line + "\n")


def check_claude_code_version(given: str | None) -> str | None:
    """`given` when it names a Claude Code version; else a one-line error, exit 2."""
    if given is not None:
        try:
            named_profile(given)
        except ValueError as exc:
            raise _fail(f"--claude-code-version: {exc}") from None
    return given


def check_teammate(given: str | None) -> Teammate | None:
    """`given` (``NAME@TEAM``) as a teammate; else a one-line error, exit 2."""
    try:
        return parse_teammate(given) if given is not None else None
    except ValueError as exc:
        raise _fail(str(exc)) from None


@dataclass(frozen=True, slots=True)
class CommandLineOptions:
    """What the command line chose for the sessions it opens: the session's flags (the
    terminal's renderer and questions are added as each session opens) and JSON output."""

    session: SessionOptions
    json_out: bool


async def open_cli_session(
    options: CommandLineOptions,
    *,
    resume: str | None,
    fork_session: bool = False,
    ask_trust: bool = True,
    ask_user: AskUser = _ask_permission,
    ask_elicitation: AskElicitation | None = None,
) -> SessionSetup:
    """A session rendering to the terminal (or `--json`); configuration errors exit 2."""
    _check_files(options.session)
    sink: EventSink = JsonRenderer() if options.json_out else RichRenderer()
    interactive = options.session.interactive
    say_not_run_on_stderr()
    session = replace(
        options.session,
        resume=resume,
        fork_session=fork_session,
        on_event=sink,
        ask_user=ask_user if interactive else None,
        prompt_channel="terminal",
        ask_trust=_ask_trust if interactive and ask_trust else None,
        ask_elicitation=ask_elicitation or TerminalElicitation(Console(), _stdin_line),
    )
    try:
        setup = await open_session(session)
    except (ModelConfigError, ValueError) as exc:
        raise _fail(str(exc)) from None
    said = {*setup.not_run_summary, *setup.unread}  # said by `say_not_run_on_stderr`
    say_opening_on_stderr(setup.diagnostics, setup.not_run, said)
    off = skills_not_enabled(session.project_dir.resolve(), list(session.skills))
    if off is not None:
        sys.stderr.write(off + "\n")
    # As Claude Code does: the settings' variables are the process's, so hooks see them too.
    os.environ.update(setup.agent.config.settings_env)
    return setup


def _check_files(options: SessionOptions) -> None:
    """The project folder, the config files and the skills named on the command line exist;
    else a one-line error, exit 2."""
    if not options.project_dir.is_dir():
        raise _fail(f"project directory {options.project_dir} does not exist")
    for file in [*options.config_files, *options.mcp_config_files]:
        if not file.is_file():
            raise _fail(f"config file {file} does not exist")
    problem = unknown_skills(options.project_dir.resolve(), list(options.skills))
    if problem is not None:
        raise _fail(problem)


def _prompt_from_stdin() -> str:
    data = sys.stdin.buffer.read(MAX_TEXT_CHARS + 1)
    if len(data) > MAX_TEXT_CHARS:
        raise _fail(f"the prompt on stdin is larger than {MAX_TEXT_CHARS:,} bytes")
    try:
        text = decode_utf8(data)
    except ParseError as exc:
        raise _fail(f"cannot read the prompt from stdin: {exc.reason}") from None
    if not text.strip():
        raise _fail("no prompt on stdin (run - reads the prompt from standard input)")
    return text.rstrip("\n")


def run(
    prompt: Annotated[str, typer.Argument(metavar="PROMPT", hidden=True)],
    project: ProjectOpt = Path("."),
    model: ModelOpt = None,
    permission_mode: ModeOpt = None,
    max_turns: MaxTurnsOpt = 20,
    json_out: JsonOpt = False,
    trust: TrustOpt = False,
    resume: ResumeOpt = None,
    fork_session: ForkOpt = False,
    config: ConfigOpt = None,
    mcp_config: McpConfigOpt = None,
    skill: SkillOpt = None,
    plan: PlanOpt = False,
    summary: SummaryOpt = False,
    claude_code_version: ClaudeCodeVersionOpt = None,
    teammate: TeammateOpt = None,
) -> None:
    """Run the agent on PROMPT (- reads it from stdin) and exit (status 1 when the turn
    failed, 2 for bad arguments or no model)."""
    from_stdin = prompt == "-"
    if from_stdin:
        prompt = _prompt_from_stdin()
    session = SessionOptions(
        project,
        model=model,
        permission_mode=check_mode(permission_mode),
        max_turns=max_turns,
        trust=trust,
        config_files=config or (),
        mcp_config_files=mcp_config or (),
        skills=skill or (),
        planning=plan,
        interactive=sys.stdin.isatty() and not json_out and not from_stdin,
        claude_code_version=check_claude_code_version(claude_code_version),
        teammate=check_teammate(teammate),
    )
    options = CommandLineOptions(session, json_out=json_out)

    async def main() -> int:
        setup = await open_cli_session(options, resume=resume, fork_session=fork_session)
        agent = setup.agent
        collector = (
            RunSummary(setup.engine.hooks(), project.resolve())
            if summary and not json_out
            else None
        )
        if collector is not None:
            setup.engine.add_audit_callback(collector)
            collector.watch(setup.engine)
        try:
            await agent.start_interruptible(_start_source(resume, fork_session))
            result = await agent.run_interruptible(prompt)
        finally:
            await agent.close("other")
            await setup.engine.aclose()
        if collector is not None:
            collector.print(Console(highlight=False), agent.session_id)
        return 0 if result.status in ("completed", "max_turns", "stopped") else 1

    raise typer.Exit(code=asyncio.run(main()))


def _start_source(resume: str | None, fork_session: bool) -> str:
    """SessionStart's `source`: `fork` for a forked resume (measured in Claude Code 2.1.240
    and 2.1.332), `resume`, else `startup`."""
    if not resume:
        return "startup"
    return "fork" if fork_session else "resume"
