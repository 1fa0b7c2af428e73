"""Run one case in real Claude Code and in `hookwright run`, and observe what a hook author can.

Each run gets a fresh temporary HOME (whose `~/.claude.json` marks the project trusted) and a
fresh project holding the case's settings and files. Both agents talk to the same scripted
fake API. What is observed: every hook's raw stdin, working directory and order; every request
the agent loop sent to the model; the project's files afterwards.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.fake_api import FakeAnthropic, ToolUse, Turn
from conformance.hook_server import HookServer

HOOK_PROGRAM = Path(__file__).with_name("hook.py")
MCP_PROGRAM = Path(__file__).with_name("mcp_server.py")
#: The MCP server `mcp_tool` hooks call, as `~/.claude.json` names it for both agents.
MCP_SERVER = "conf"
MODEL = "claude-opus-5"
RUN_TIMEOUT = 180.0


@dataclass(frozen=True, slots=True)
class Action:
    """What a hook does: a command hook prints `stdout` and `stderr` and exits `exit`; an http
    hook's endpoint answers `stdout` with status `exit` (0: 200). Both after `delay` seconds."""

    stdout: str = ""
    stderr: str = ""
    exit: int = 0
    delay: float = 0.0

    @classmethod
    def json(cls, payload: Mapping[str, Any], exit: int = 0) -> Action:
        return cls(stdout=json.dumps(payload), exit=exit)


@dataclass(frozen=True, slots=True)
class Hook:
    event: str
    label: str
    action: Action = Action()
    matcher: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    """More fields of the hook entry (`if`, `statusMessage`, `timeout`, ...)."""
    command: str | None = None
    """A shell command to run instead of the logging hook program."""
    type: str = "command"
    """`command`; `http`: a POST to the hook server (`hook_server.py`); `mcp_tool`: a call of
    the `hook` tool of the case's MCP server (`mcp_server.py`)."""
    url: str | None = None
    """An http hook's URL instead of the hook server's."""


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    prompt: str
    turns: Sequence[Turn]
    hooks: Sequence[Hook] = ()
    files: Mapping[str, str] = field(default_factory=dict)
    permission_mode: str = "bypassPermissions"
    settings: Mapping[str, Any] = field(default_factory=dict)
    side_reply: str = "ok"
    compare: frozenset[str] = frozenset({"stdin", "order", "model", "files"})
    since: str | None = None
    """The first Claude Code version that has what the case tests (older ones skip it)."""
    claude_args: Sequence[str] = ()
    """More command-line arguments for Claude Code (e.g. a teammate's `--agent-name`)."""
    hookwright_args: Sequence[str] = ()
    """More command-line arguments for `hookwright run`, for the same (e.g. `--teammate`)."""
    resume: str | None = None
    """A second prompt, run after the first as a resumed session (`--resume <session id>`, the
    id read from the first hook input of the log) in the same HOME and project; the scripted
    turns go on where the first run left them."""
    fork: bool = False
    """The resumed run forks the session (`--fork-session`): a new session id."""
    follow_ups: Sequence[str] = ()
    """More prompts of the same session, each sent once the one before it was answered: Claude
    Code reads them as stream-json user messages (`--input-format stream-json`), hookwright as
    lines of `hookwright chat`."""


@dataclass(slots=True)
class Observation:
    agent: str
    hooks: list[dict[str, str]]
    requests: list[dict[str, Any]]
    files: dict[str, str]
    returncode: int
    stdout: str
    stderr: str
    root: Path
    project: Path
    home: Path


def settings_for(case: Case, hook_url: str = "") -> dict[str, Any]:
    hooks: dict[str, list[dict[str, Any]]] = {}
    for hook in case.hooks:
        handler: dict[str, Any]
        if hook.type == "http":
            handler = {"type": "http", "url": hook.url or f"{hook_url}/{hook.label}"}
        elif hook.type == "mcp_tool":
            arguments = {"label": hook.label, "event": "${hook_event_name}"}
            handler = {"type": "mcp_tool", "server": MCP_SERVER, "tool": "hook", "input": arguments}
        else:
            command = hook.command or f"python3 {HOOK_PROGRAM} {hook.label}"
            handler = {"type": "command", "command": command}
        entry: dict[str, Any] = {"hooks": [{**handler, **hook.extra}]}
        if hook.matcher is not None:
            entry = {"matcher": hook.matcher, **entry}
        hooks.setdefault(hook.event, []).append(entry)
    return {**case.settings, "hooks": hooks}


def prepare(case: Case, hook_url: str = "") -> tuple[Path, Path, Path]:
    root = Path(tempfile.mkdtemp(prefix="hw-conf-")).resolve()
    home, project = root / "home", root / "project"
    (home / ".claude").mkdir(parents=True)
    (project / ".claude").mkdir(parents=True)
    settings = settings_for(case, hook_url)
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    trusted = {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
    state: dict[str, Any] = {"hasCompletedOnboarding": True, "projects": {str(project): trusted}}
    if any(hook.type == "mcp_tool" for hook in case.hooks):
        state["mcpServers"] = {MCP_SERVER: mcp_server(root)}
    (home / ".claude.json").write_text(json.dumps(state))
    for name, text in case.files.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    actions = {hook.label: _action(hook.action) for hook in case.hooks}
    (root / "actions.json").write_text(json.dumps(actions))
    return root, home, project


def mcp_server(root: Path) -> dict[str, Any]:
    """The user-scope stdio MCP server of a run whose case has `mcp_tool` hooks."""
    env = {"HW_CONF_LOG": str(root / "hooks.jsonl"), "HW_CONF_ACTIONS": str(root / "actions.json")}
    return {"type": "stdio", "command": sys.executable, "args": [str(MCP_PROGRAM)], "env": env}


def _action(action: Action) -> dict[str, Any]:
    return {
        "stdout": action.stdout,
        "stderr": action.stderr,
        "exit": action.exit,
        "delay": action.delay,
    }


def base_env(root: Path, home: Path, fake: FakeAnthropic) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "ANTHROPIC_BASE_URL": fake.base_url,
        "ANTHROPIC_API_KEY": "sk-ant-conformance",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "IS_SANDBOX": "1",
        "HW_CONF_LOG": str(root / "hooks.jsonl"),
        "HW_CONF_ACTIONS": str(root / "actions.json"),
    }


def claude_command(claude: Path, case: Case, resume: str | None = None) -> list[str]:
    """`claude -p` on the case's prompt, or with `resume` on its second prompt; with
    follow-ups, every prompt is read from stdin as a stream-json user message."""
    prompt = case.prompt if resume is None else str(case.resume)
    command = [str(claude), "-p", prompt, "--output-format", "json", "--model", MODEL]
    if case.follow_ups:
        streamed = ["--input-format", "stream-json", "--output-format", "stream-json"]
        command = [str(claude), "-p", *streamed, "--verbose", "--model", MODEL]
    command += case.claude_args
    if resume is not None:
        command += ["--resume", resume, *(["--fork-session"] if case.fork else [])]
    if case.permission_mode == "bypassPermissions":
        return [*command, "--dangerously-skip-permissions"]
    return [*command, "--permission-mode", case.permission_mode]


def hookwright_command(
    case: Case, project: Path, version: str | None, resume: str | None = None
) -> list[str]:
    """`hookwright run` on the case, as Claude Code `version` (None: the default profile); with
    `resume`, on its second prompt in that session."""
    chosen = ["--claude-code-version", version] if version else []
    if resume is not None:
        chosen += ["--resume", resume, *(["--fork-session"] if case.fork else [])]
    prompt = [] if case.follow_ups else [case.prompt if resume is None else str(case.resume)]
    return [
        sys.executable,
        "-m",
        "hookwright",
        "chat" if case.follow_ups else "run",
        *prompt,
        "--project",
        str(project),
        "--trust",
        "--model",
        f"anthropic:{MODEL}",
        "--permission-mode",
        case.permission_mode,
        *chosen,
        *case.hookwright_args,
    ]


def run(
    agent: str,
    case: Case,
    fake: FakeAnthropic,
    claude: Path | None = None,
    hooks: HookServer | None = None,
    version: str | None = None,
) -> Observation:
    """One run of `case`: in Claude Code at `claude`, else in `hookwright run` as Claude Code
    `version`."""
    root, home, project = prepare(case, hooks.base_url if hooks else "")
    if hooks is not None:
        hooks.serve(root)
    script = fake.load(with_paths(case.turns, project), case.side_reply)
    env = base_env(root, home, fake)
    command = claude_command(claude, case) if claude else hookwright_command(case, project, version)
    prompts = [case.prompt, *case.follow_ups] if case.follow_ups else None
    done = run_agent(command, project, env, prompts, streamed=claude is not None)
    session = first_session_id(root)
    if case.resume is not None and session is not None:
        command = (
            claude_command(claude, case, session)
            if claude
            else hookwright_command(case, project, version, session)
        )
        done = run_agent(command, project, env)
    requests = [r.body for r in script.requests if r.loop]
    return observe(agent, done, requests, root, home, project)


def run_agent(
    command: list[str],
    project: Path,
    env: dict[str, str],
    prompts: Sequence[str] | None = None,
    *,
    streamed: bool = False,
) -> subprocess.CompletedProcess[str]:
    """One headless agent run in `project`, its output captured; `prompts` are read from its
    stdin (`streamed`: as Claude Code's stream-json messages, each once the one before it was
    answered; else one a line)."""
    if prompts is not None and streamed:
        return _streamed(command, project, env, prompts)
    lines = None if prompts is None else "".join(f"{prompt}\n" for prompt in prompts)
    return subprocess.run(
        command,
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        stdin=subprocess.DEVNULL if lines is None else None,
        input=lines,
        # Without a terminal: Claude Code run from a terminal added what others wrote to it
        # to its `-p` prompt.
        start_new_session=True,
    )


def _streamed(
    command: list[str], project: Path, env: dict[str, str], prompts: Sequence[str]
) -> subprocess.CompletedProcess[str]:
    """Claude Code reading `prompts` as stream-json user messages, the next one sent when the
    result of the one before it arrived (sent at once, they would join the running turn)."""
    with subprocess.Popen(
        command,
        cwd=project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        timer = threading.Timer(RUN_TIMEOUT, process.kill)
        timer.start()
        seen: list[str] = []
        try:
            for prompt in prompts:
                message = {"type": "user", "message": {"role": "user", "content": prompt}}
                try:
                    process.stdin.write(json.dumps(message) + "\n")
                    process.stdin.flush()
                except OSError:  # it exited: what it printed says why
                    break
                for line in process.stdout:
                    seen.append(line)
                    if _is_result(line):
                        break
            with contextlib.suppress(OSError):
                process.stdin.close()
            seen.append(process.stdout.read())
            stderr = process.stderr.read() if process.stderr is not None else ""
            process.wait()
        finally:
            timer.cancel()
    return subprocess.CompletedProcess(command, process.returncode, "".join(seen), stderr)


def _is_result(line: str) -> bool:
    """Whether a stream-json output line is a turn's result."""
    try:
        message = json.loads(line)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("type") == "result"


def observe(
    agent: str,
    done: subprocess.CompletedProcess[str],
    requests: list[dict[str, Any]],
    root: Path,
    home: Path,
    project: Path,
) -> Observation:
    """What a hook author can see of a finished run: `requests` are the agent loop's."""
    return Observation(
        agent=agent,
        hooks=hook_records(root),
        requests=requests,
        files=project_files(project),
        returncode=done.returncode,
        stdout=done.stdout,
        stderr=done.stderr,
        root=root,
        project=project,
        home=home,
    )


def first_session_id(root: Path) -> str | None:
    """The session id in the first hook input the run logged (None: no hook ran)."""
    for record in hook_records(root):
        try:
            return str(json.loads(record["stdin"])["session_id"])
        except (ValueError, KeyError, TypeError):
            continue
    return None


def hook_records(root: Path) -> list[dict[str, str]]:
    """What the logging hook program (`hook.py`) wrote: one record per hook run, in order."""
    log = root / "hooks.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def project_files(project: Path) -> dict[str, str]:
    files: dict[str, str] = {}
    for path in sorted(project.rglob("*")):
        relative = path.relative_to(project)
        if relative.parts[0].startswith(".") or not path.is_file():
            continue
        files[str(relative)] = path.read_text(errors="replace")
    return files


def cleanup(observation: Observation) -> None:
    shutil.rmtree(observation.root, ignore_errors=True)


def with_paths(turns: Sequence[Turn], project: Path) -> list[Turn]:
    """Turns with `{project}` in tool inputs replaced by the run's project folder."""

    def fill(value: Any) -> Any:
        if isinstance(value, str):
            return value.replace("{project}", str(project))
        if isinstance(value, dict):
            return {key: fill(item) for key, item in value.items()}
        if isinstance(value, list):
            return [fill(item) for item in value]
        return value

    return [
        Turn(turn.text, [ToolUse(u.id, u.name, fill(u.input)) for u in turn.tools], turn.error)
        for turn in turns
    ]
