"""`hookwright chat`: one prompt per line, slash commands for the session itself, and Ctrl-C
that interrupts the running turn (a second Ctrl-C, or one at the prompt twice, exits)."""

from __future__ import annotations

import asyncio
import re
import signal
import sys
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.text import Text

from hookwright.runtime.opening import SessionOptions, SessionSetup
from hookwright.runtime.skill_commands import find_skill

from . import hooktable
from .elicit import TerminalElicitation
from .lines import LineReader
from .run import (
    ClaudeCodeVersionOpt,
    CommandLineOptions,
    ConfigOpt,
    JsonOpt,
    MaxTurnsOpt,
    McpConfigOpt,
    ModelOpt,
    ModeOpt,
    PlanOpt,
    ProjectOpt,
    ResumeOpt,
    SkillOpt,
    TrustOpt,
    check_claude_code_version,
    check_mode,
    open_cli_session,
    permission_question,
)

HELP = (
    ("/help", "this list"),
    ("/hooks", "the hooks of this session, by event"),
    ("/compact [instructions]", "summarize the conversation so far"),
    ("/model [name]", "the model, or switch to another (a --model spec)"),
    ("/clear", "end this session and start a new one"),
    ("/exit, /quit", "end the session (also Ctrl-D)"),
)
#: A first word like ``/name`` is a command; ``/etc/passwd is odd`` is a prompt.
COMMAND = re.compile(r"/[A-Za-z][\w-]*")


@dataclass(slots=True)
class Interrupts:
    """Ctrl-C presses: the first during a turn cancels it; two in a row exit."""

    turn: asyncio.Task[object] | None = None
    pressed: int = 0
    exit_requested: asyncio.Event = field(default_factory=asyncio.Event)

    def press(self, console: Console) -> None:
        self.pressed += 1
        if self.pressed >= 2:
            self.exit_requested.set()
            if self.turn is not None:
                self.turn.cancel()
            return
        if self.turn is not None and not self.turn.done():
            self.turn.cancel()
        else:
            console.print(Text("\n(press Ctrl-C again to exit)", style="dim"))


class ChatSession:
    def __init__(self, options: CommandLineOptions, console: Console, reader: LineReader) -> None:
        self.options = options
        self.console = console
        self.reader = reader
        self.setup: SessionSetup | None = None
        self.interrupts = Interrupts()
        self._opened = False

    @property
    def agent_setup(self) -> SessionSetup:
        assert self.setup is not None
        return self.setup

    async def open(self, source: str, *, resume: str | None) -> None:
        self.setup = await open_cli_session(
            self.options,
            resume=resume,
            ask_trust=not self._opened,
            ask_user=self.ask_permission,
            ask_elicitation=TerminalElicitation(self.console, self.reader.readline),
        )
        self._opened = True
        # Ctrl-C while the SessionStart hooks run interrupts the start and ends the session,
        # as it ends `codex exec` (the Interrupt hooks run first).
        if await self._interruptible(self.setup.agent.start_interruptible(source)):
            self.interrupts.exit_requested.set()

    async def ask_permission(self, tool: str, question: str, tool_input: dict[str, Any]) -> bool:
        """The permission question, answered on the chat's own input so that Ctrl-C can
        interrupt it."""
        text = permission_question(tool, question, tool_input)
        self.console.print(Text(f"{text} [y/n] (n): ", style="bold"), end="")
        answer = await self.reader.readline()
        return (answer or "").strip().lower() in ("y", "yes")

    async def close(self, reason: str) -> None:
        if self.setup is not None:
            try:
                await self.setup.agent.close(reason)
            finally:
                await self.setup.engine.aclose()

    async def turn(self, text: str) -> None:
        await self._interruptible(self.agent_setup.agent.run_interruptible(text))

    async def _interruptible(self, work: Coroutine[Any, Any, object]) -> bool:
        """Run `work` as the task Ctrl-C cancels; True when Ctrl-C did."""
        task: asyncio.Task[object] = asyncio.ensure_future(work)
        self.interrupts.turn = task
        try:
            await task
        except asyncio.CancelledError:
            if not task.cancelled():
                raise
            return True
        finally:
            self.interrupts.turn = None
            # The press that ended this turn is spent: at the prompt, exiting takes two more.
            self.interrupts.pressed = 0
        return False

    def print_help(self) -> None:
        for name, what in HELP:
            self.console.print(Text.assemble((f"{name:<26}", "bold"), what))

    def print_hooks(self) -> None:
        setup = self.agent_setup
        rows = hooktable.collect(
            setup.engine, setup.not_run, None, setup.agent.config.failure_policy
        )
        if not rows:
            self.console.print("no hooks in this session")
            return
        hooktable.print_rows(self.console, rows, setup.agent.config.project_dir)

    async def command(self, text: str) -> bool:
        """Carry out a slash command; False when the session should end."""
        name, _, rest = text.partition(" ")
        actions: dict[str, Callable[[], Awaitable[None] | None]] = {
            "/help": self.print_help,
            "/hooks": self.print_hooks,
        }
        if name in ("/exit", "/quit"):
            return False
        if name == "/compact":
            await self.agent_setup.agent.compact("manual", rest.strip())
        elif name == "/model":
            await self.turn(text)
        elif name == "/clear":
            await self.close("clear")
            self.setup = None
            await self.open("clear", resume=None)
        elif name in actions:
            actions[name]()
        elif find_skill(self.agent_setup.agent, text) is not None:
            await self.turn(text)
        else:
            self.console.print(
                Text(f"unknown command {name} (not sent to the model; /help lists the commands)"),
                style="yellow",
            )
        return True


async def _loop(chat: ChatSession, reader: LineReader, interactive: bool) -> None:
    while not chat.interrupts.exit_requested.is_set():
        if interactive:
            chat.console.print(Text("› ", style="bold"), end="")
        read = asyncio.ensure_future(reader.readline())
        stop = asyncio.ensure_future(chat.interrupts.exit_requested.wait())
        await asyncio.wait({read, stop}, return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        if not read.done():
            read.cancel()
            return
        line = read.result()
        if line is None:
            return
        text = line.strip()
        if not text:
            continue
        chat.interrupts.pressed = 0
        if COMMAND.fullmatch(text.split(" ", 1)[0]):
            if not await chat.command(text):
                return
            continue
        await chat.turn(text)


async def run_chat(options: CommandLineOptions, resume: str | None) -> int:
    console = Console(highlight=False)
    reader = LineReader(sys.stdin.fileno())
    chat = ChatSession(options, console, reader)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, chat.interrupts.press, console)
    reason = "prompt_input_exit"
    try:
        await chat.open("resume" if resume else "startup", resume=resume)
        await _loop(chat, reader, options.session.interactive)
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        await chat.close(reason)
    return 0


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
    claude_code_version: ClaudeCodeVersionOpt = None,
) -> None:
    """An interactive session: one prompt per line; /help lists the commands. Ctrl-C
    interrupts the turn; Ctrl-C twice (or Ctrl-D) exits."""
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
        interactive=sys.stdin.isatty() and not json_out,
        claude_code_version=check_claude_code_version(claude_code_version),
    )
    options = CommandLineOptions(session, json_out=json_out)
    raise typer.Exit(code=asyncio.run(run_chat(options, resume)))
