"""Agent-level effect tests: the real reference agent (`open_session`, `Agent.run`) on a temporary
project with real hook configs and hook processes, and the scripted model, whose `calls` record
what each model request received (messages, tools, options)."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookwright.runtime.agent import Agent, TurnResult
from hookwright.runtime.models.base import Message, ModelResponse, TextCallback, ToolDefinition
from hookwright.runtime.models.scripted import ScriptedCall, ScriptedModel
from hookwright.runtime.opening import SessionOptions, SessionSetup, open_session
from hookwright.runtime.permissions import PermissionMode

#: Reads the hook's stdin as JSON into `data` and appends it to the log file named by argv[1].
SCRIPT_PRELUDE = """\
import json, os, sys
raw = sys.stdin.read()
data = json.loads(raw) if raw.strip() else None
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(data) + "\\n")
"""


def write_script(folder: Path, name: str, body: str) -> tuple[Path, Path]:
    """A Python hook script `<folder>/<name>.py` (the prelude, then `body`) and its input log."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / f"{name}.py"
    script.write_text(SCRIPT_PRELUDE + body)
    return script, folder / f"{name}.inputs.jsonl"


def reply(output: Any, exit_code: int = 0, stderr: str = "") -> str:
    """A script body that prints `output` (JSON unless a string) and exits with `exit_code`."""
    text = output if isinstance(output, str) else json.dumps(output)
    lines = [f"print({text!r})"] if text else []
    if stderr:
        lines.append(f"print({stderr!r}, file=sys.stderr)")
    lines.append(f"sys.exit({exit_code})")
    return "\n".join(lines) + "\n"


def specific(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}


class Project:
    """A project whose `.claude/settings.json` runs Python command hooks."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.hooks_dir = root / ".claude" / "hooks"
        self.settings: dict[str, Any] = {"hooks": {}}
        root.mkdir(parents=True, exist_ok=True)

    def on(
        self,
        event: str,
        body: str,
        *,
        matcher: str | None = None,
        flags: dict[str, bool] | None = None,
    ) -> Path:
        """Add a command hook running `body`; returns the file its stdin inputs are logged to."""
        name = f"{event}-{len(self.settings['hooks'].get(event, []))}"
        script, log = write_script(self.hooks_dir, name, body)
        handler: dict[str, Any] = {
            "type": "command",
            "command": f'"{sys.executable}" "{script}" "{log}"',
        }
        handler.update(flags or {})
        self.add(event, handler, matcher=matcher)
        return log

    def add(self, event: str, handler: dict[str, Any], *, matcher: str | None = None) -> None:
        """Add any hook entry (command, http, prompt)."""
        group: dict[str, Any] = {"hooks": [handler]}
        if matcher is not None:
            group["matcher"] = matcher
        self.settings["hooks"].setdefault(event, []).append(group)
        path = self.root / ".claude" / "settings.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.settings))

    def command(self, event: str, index: int = 0) -> str:
        """The command of the `index`th hook added on `event`, as Claude Code quotes it."""
        return str(self.settings["hooks"][event][index]["hooks"][0]["command"])


class RecordingModel(ScriptedModel):
    """The scripted model, also recording a model name the agent passes with a request (as a
    `model=` keyword or `options["model"]`): what a provider call would be made with."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.requested_models: list[str | None] = []

    async def complete(
        self,
        messages: list[Message],
        tools: list[ToolDefinition] | None = None,
        *,
        options: dict[str, Any] | None = None,
        on_text: TextCallback | None = None,
        **extra: Any,
    ) -> ModelResponse:
        model = extra.get("model") or (options or {}).get("model")
        self.requested_models.append(model if isinstance(model, str) else None)
        return await super().complete(messages, tools, options=options, on_text=on_text)


def model(turns: list[dict[str, Any]]) -> RecordingModel:
    recording = RecordingModel.from_turns(turns)
    assert isinstance(recording, RecordingModel)
    return recording


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def tool_messages(request: ScriptedCall) -> list[str]:
    """The tool results in one model request, in order."""
    return [str(m["content"]) for m in request.messages if m["role"] == "tool"]


def texts(request: ScriptedCall, role: str) -> list[str]:
    return [str(m["content"]) for m in request.messages if m["role"] == role]


def jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@dataclass
class Live:
    """One open session: the agent, its model and every agent event so far."""

    setup: SessionSetup
    model: RecordingModel
    events: list[dict[str, Any]] = field(default_factory=list)
    results: list[TurnResult] = field(default_factory=list)

    @property
    def agent(self) -> Agent:
        return self.setup.agent

    @property
    def calls(self) -> list[ScriptedCall]:
        return self.model.calls

    async def run(self, prompt: str = "Do the task.") -> TurnResult:
        result = await self.agent.run(prompt)
        self.results.append(result)
        return result

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]


@asynccontextmanager
async def session(
    project: Path,
    home: Path,
    turns: list[dict[str, Any]],
    *,
    permission_mode: PermissionMode = "bypassPermissions",
    **options: Any,
) -> AsyncIterator[Live]:
    """A trusted session on `project` with the scripted `turns`; closed (SessionEnd, every hook
    process stopped) on the way out."""
    recording = model(turns)
    events: list[dict[str, Any]] = []
    setup = await open_session(
        SessionOptions(
            project,
            home=home,
            model=recording,
            trust=True,
            permission_mode=permission_mode,
            on_event=events.append,
            **options,
        )
    )
    errors = [d for d in setup.diagnostics if d.startswith("error")]
    assert not errors, errors
    live = Live(setup, recording, events)
    try:
        await setup.agent.start()
        yield live
    finally:
        try:
            await setup.agent.close("other")
        finally:
            await setup.engine.aclose()


async def run_once(
    project: Path,
    home: Path,
    turns: list[dict[str, Any]],
    prompt: str = "Do the task.",
    *,
    then: Callable[[Live], Awaitable[object]] | None = None,
    **options: Any,
) -> Live:
    """Open a session, run one prompt (and `then`), close it; the record of it all."""
    async with session(project, home, turns, **options) as live:
        await live.run(prompt)
        if then is not None:
            await then(live)
    return live


async def two_turns_then_compact(live: Live, instructions: str = "") -> bool:
    """Run a second prompt so there is history to summarise, then compact it."""
    await live.run("And the second part.")
    live.agent.config.keep_recent = 2
    return await live.agent.compact("manual", instructions)
