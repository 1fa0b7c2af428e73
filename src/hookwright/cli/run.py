"""`hookwright run`, `hookwright chat` and `hookwright trust`."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any, cast

import typer
from rich.console import Console
from rich.prompt import Confirm

from hookwright.cli.summary import RunSummary
from hookwright.dialects.skills import unknown_skills
from hookwright.runtime.agent import EventSink
from hookwright.runtime.host import SessionSetup, open_session
from hookwright.runtime.models import ModelConfigError
from hookwright.runtime.permissions import MODES, PermissionMode
from hookwright.trust import TrustStore

from .render import JsonRenderer, RichRenderer

ProjectOpt = Annotated[Path, typer.Option("--project", "-p", help="Project directory.")]
ModelOpt = Annotated[
    str | None,
    typer.Option("--model", "-m", help="scripted:PATH, openai:NAME or anthropic:NAME."),
]
ModeOpt = Annotated[
    str | None,
    typer.Option(
        "--permission-mode",
        help=f"One of: {', '.join(MODES)}. Default: the settings' permissions.defaultMode, "
        "else default.",
    ),
]
MaxTurnsOpt = Annotated[int, typer.Option("--max-turns", min=1, help="Agent rounds per prompt.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print a JSONL stream of events.")]
TrustOpt = Annotated[bool, typer.Option("--trust", help="Run this project's hooks this time.")]
ResumeOpt = Annotated[str | None, typer.Option("--resume", help="Continue a session by id.")]
ConfigOpt = Annotated[
    list[Path] | None, typer.Option("--config", "-c", help="Extra hook config file (repeatable).")
]
McpConfigOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--mcp-config", help="MCP servers from a JSON file, as in Claude Code (repeatable)."
    ),
]
SkillOpt = Annotated[
    list[str] | None, typer.Option("--skill", help="Enable a skill from <project>/skills.")
]
PlanOpt = Annotated[bool, typer.Option("--plan", help="Run a planning round first.")]
SummaryOpt = Annotated[
    bool, typer.Option("--summary", help="End with a table: what each hook did in this run.")
]


def _fail(message: str) -> typer.Exit:
    sys.stderr.write(f"hookwright: error: {' '.join(message.split())}\n")
    return typer.Exit(code=2)


async def _ask_permission(tool: str, question: str, tool_input: dict[str, Any]) -> bool:
    text = f"{tool} {json.dumps(tool_input)[:200]} — {question}. Allow?"
    return await asyncio.to_thread(Confirm.ask, text, default=False)


async def _ask_trust(folder: Path, count: int) -> bool:
    text = f"{folder} has {count} hook(s) of its own that run commands. Trust this folder?"
    return await asyncio.to_thread(Confirm.ask, text, default=False)


def _check_mode(mode: str | None) -> PermissionMode | None:
    if mode is None:
        return None
    if mode not in MODES:
        raise _fail(f"unknown permission mode {mode!r} (use one of: {', '.join(MODES)})")
    return cast(PermissionMode, mode)


async def _open(
    *,
    project: Path,
    model: str | None,
    mode: PermissionMode | None,
    max_turns: int,
    json_out: bool,
    trust: bool,
    resume: str | None,
    config: list[Path] | None,
    mcp_config: list[Path] | None,
    skills: list[str] | None,
    plan: bool,
    interactive: bool,
) -> tuple[SessionSetup, EventSink]:
    if not project.is_dir():
        raise _fail(f"project directory {project} does not exist")
    for file in [*(config or []), *(mcp_config or [])]:
        if not file.is_file():
            raise _fail(f"config file {file} does not exist")
    problem = unknown_skills(project.resolve(), list(skills or []))
    if problem is not None:
        raise _fail(problem)
    sink: EventSink = JsonRenderer() if json_out else RichRenderer()
    try:
        setup = await open_session(
            project,
            model=model,
            permission_mode=mode,
            max_turns=max_turns,
            planning=plan,
            interactive=interactive,
            trust=trust,
            config_files=config or [],
            mcp_config_files=mcp_config or [],
            skills=skills or [],
            resume=resume,
            on_event=sink,
            ask_user=_ask_permission if interactive else None,
            ask_trust=_ask_trust if interactive else None,
        )
    except (ModelConfigError, ValueError) as exc:
        raise _fail(str(exc)) from None
    for line in setup.diagnostics:
        sys.stderr.write(line + "\n")
    # As Claude Code does: the settings' variables are the process's, so hooks see them too.
    os.environ.update(setup.agent.config.settings_env)
    return setup, sink


def run(
    prompt: Annotated[str, typer.Argument(help="The prompt (one shot).")],
    project: ProjectOpt = Path("."),
    model: ModelOpt = None,
    permission_mode: ModeOpt = None,
    max_turns: MaxTurnsOpt = 20,
    json_out: JsonOpt = False,
    trust: TrustOpt = False,
    resume: ResumeOpt = None,
    config: ConfigOpt = None,
    mcp_config: McpConfigOpt = None,
    skill: SkillOpt = None,
    plan: PlanOpt = False,
    summary: SummaryOpt = False,
) -> None:
    """Run the agent on one prompt and exit (status 1 when the turn failed, 2 for bad
    arguments or no model)."""
    mode = _check_mode(permission_mode)
    interactive = sys.stdin.isatty() and not json_out

    async def main() -> int:
        setup, _ = await _open(
            project=project,
            model=model,
            mode=mode,
            max_turns=max_turns,
            json_out=json_out,
            trust=trust,
            resume=resume,
            config=config,
            mcp_config=mcp_config,
            skills=skill,
            plan=plan,
            interactive=interactive,
        )
        agent = setup.agent
        collector = RunSummary(setup.engine.hooks()) if summary and not json_out else None
        if collector is not None:
            setup.engine.add_audit_callback(collector)
        try:
            await agent.start("resume" if resume else "startup")
            result = await agent.run(prompt)
        finally:
            await agent.close("other")
            await setup.engine.aclose()
        if collector is not None:
            collector.print(Console(highlight=False), agent.session_id)
        return 0 if result.status in ("completed", "max_turns", "stopped") else 1

    raise typer.Exit(code=asyncio.run(main()))


def chat(
    project: ProjectOpt = Path("."),
    model: ModelOpt = None,
    permission_mode: ModeOpt = None,
    max_turns: MaxTurnsOpt = 20,
    json_out: JsonOpt = False,
    trust: TrustOpt = False,
    resume: ResumeOpt = None,
    config: ConfigOpt = None,
    mcp_config: McpConfigOpt = None,
    skill: SkillOpt = None,
    plan: PlanOpt = False,
) -> None:
    """An interactive session: one prompt per line; /compact, /exit (or Ctrl-D)."""
    mode = _check_mode(permission_mode)
    interactive = sys.stdin.isatty() and not json_out
    console = Console(highlight=False)

    async def main() -> int:
        setup, _ = await _open(
            project=project,
            model=model,
            mode=mode,
            max_turns=max_turns,
            json_out=json_out,
            trust=trust,
            resume=resume,
            config=config,
            mcp_config=mcp_config,
            skills=skill,
            plan=plan,
            interactive=interactive,
        )
        agent = setup.agent
        reason = "prompt_input_exit"
        try:
            await agent.start("resume" if resume else "startup")
            while True:
                try:
                    line = (
                        await asyncio.to_thread(console.input, "[bold]› [/bold]")
                        if interactive
                        else await asyncio.to_thread(sys.stdin.readline)
                    )
                except (EOFError, KeyboardInterrupt):
                    break
                if not interactive and line == "":
                    break
                text = line.strip()
                if not text:
                    continue
                if text in ("/exit", "/quit"):
                    break
                if text.startswith("/compact"):
                    await agent.compact("manual", text[len("/compact") :].strip())
                    continue
                if text == "/clear":
                    reason = "clear"
                    break
                await agent.run(text)
        finally:
            await agent.close(reason)
            await setup.engine.aclose()
        return 0

    raise typer.Exit(code=asyncio.run(main()))


def trust(
    folder: Annotated[Path, typer.Argument(help="The folder whose own hooks may run.")],
) -> None:
    """Trust a folder: its project hooks run from now on."""
    if not folder.is_dir():
        raise _fail(f"folder {folder} does not exist")
    store = TrustStore(Path.home())
    try:
        store.trust(folder)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    Console().print(f"trusted {folder.resolve()} (recorded in {store.path})")
