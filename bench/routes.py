"""What one Claude Code event costs through each route `install claude-code` sets up, against
the guard a Claude Code user already has: a bash script calling jq, as a command hook.

One policy, the same everywhere: PreToolUse on Bash denies `rm -rf`. The baseline is that
policy as `guard.sh` (one `jq` to read the command, an `echo` of the deny); hookwright's is an
in-process Python hook of the project. Every command hook is run as Claude Code runs one:
`sh -c <command>` in the project, Claude Code's JSON on stdin, `CLAUDE_PROJECT_DIR` set. The
routes: the default install (the quick client relaying to the warm daemon over its socket),
the http hook (one POST on a kept-alive connection, reported), and the fallback when no daemon
can be reached (the runtime folder's socket path is over the kernel's limit, so the client
answers in-process). Cases take turns within each round; the best round of each counts.

A second part times a Python command hook (`python3 hook.py`) run through an interpreter shim
(this machine's `python3` when it is a pyenv or asdf shim, else a pyenv-style shim made for
the run) warm and spawned, through `engine.dispatch`.

Merges `install_default_vs_bash_guard`, `install_http_vs_bash_guard`,
`install_fallback_vs_bash_guard` and `warm_python_via_shim_vs_spawn` into bench/results.json.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from rich.console import Console
from rich.table import Table

from hookwright.config.trust import TrustPolicy, TrustStore
from hookwright.core.events import Event, HookInput
from hookwright.dialects import LoadContext, discover
from hookwright.engine.kernel import HookEngine
from hookwright.engine.services import Services
from hookwright.transports.warm import WarmPython
from hookwright.transports.warm_invocation import find_executable, shim_of

RESULTS = Path(__file__).resolve().parent / "results.json"
ROUNDS = 5
CALLS = 10
FALLBACK_CALLS = 3
DENIED = b"rm -rf is not allowed here"
GUARD_SH = """#!/usr/bin/env bash
command=$(jq -r '.tool_input.command // empty')
if [[ $command == *"rm -rf"* ]]; then
  echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",\
"permissionDecisionReason":"rm -rf is not allowed here"}}'
fi
"""
HOOKS_YAML = "hooks:\n  - name: guard\n    event: PreToolUse\n    call: guard:guard\n"
GUARD_PY = """from hookwright import deny


def guard(inp):
    if "rm -rf" in str((inp.tool_input or {}).get("command", "")):
        return deny("rm -rf is not allowed here")
"""
SHIM = """#!/usr/bin/env bash
set -e
exec "{root}/libexec/pyenv" exec "${{0##*/}}" "$@"
"""
FAKE_PYENV = """#!/usr/bin/env bash
shift 2
exec "{python}" "$@"
"""


def make_project(root: Path) -> Path:
    (root / ".hookwright").mkdir(parents=True)
    (root / ".hookwright" / "hooks.yaml").write_text(HOOKS_YAML)
    (root / ".hookwright" / "guard.py").write_text(GUARD_PY)
    guard = root / "guard.sh"
    guard.write_text(GUARD_SH)
    guard.chmod(0o755)
    return root


def pre_tool_use(project: Path) -> bytes:
    data = {
        "session_id": "3f2a4c1e-5b6d-4e7f-8a9b-0c1d2e3f4a5b",
        "transcript_path": str(project / "t.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf build", "description": "clean"},
        "tool_use_id": "toolu_01",
    }
    return json.dumps(data, separators=(",", ":")).encode() + b"\n"


def installed(project: Path, env: dict[str, str], *mode: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "hookwright", "install", "claude-code"]
    command += ["--project", str(project), *mode]
    subprocess.run(command, env=env, check=True, capture_output=True, timeout=120)
    settings = json.loads((project / ".claude" / "settings.local.json").read_text())
    return {name: groups[0]["hooks"][0] for name, groups in settings["hooks"].items()}


def command_case(
    command: str, stdin: bytes, env: dict[str, str], project: Path, answer: bytes
) -> Callable[[], None]:
    env = {**env, "CLAUDE_PROJECT_DIR": str(project)}

    def run() -> None:
        done = subprocess.run(
            ["sh", "-c", command], input=stdin, capture_output=True, env=env, cwd=project
        )
        if done.returncode != 0 or answer not in done.stdout:
            raise SystemExit(f"{command} failed: {done.stderr.decode(errors='replace')}")

    return run


class HttpCase:
    """One POST per event on a kept-alive connection, as Claude Code's http hooks send it."""

    def __init__(self, hook: dict[str, Any], body: bytes) -> None:
        self.url = urlsplit(hook["url"])
        self.headers = {**hook["headers"], "Content-Type": "application/json"}
        self.body = body
        self.conn: http.client.HTTPConnection | None = None

    def __call__(self) -> None:
        try:
            status, answer = self.post()
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
            self.close()  # the daemon closed the idle connection: open another, as clients do
            status, answer = self.post()
        if status != 200 or DENIED not in answer:
            raise SystemExit(f"http hook failed: {status}")

    def post(self) -> tuple[int, bytes]:
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.url.hostname or "", self.url.port)
        self.conn.request("POST", f"{self.url.path}?{self.url.query}", self.body, self.headers)
        response = self.conn.getresponse()
        return response.status, response.read()

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def best_ns(cases: dict[str, tuple[Callable[[], None], int]]) -> dict[str, float]:
    best = {name: float("inf") for name in cases}
    for _ in range(ROUNDS):
        for name, (case, calls) in cases.items():
            start = time.perf_counter_ns()
            for _ in range(calls):
                case()
            best[name] = min(best[name], (time.perf_counter_ns() - start) / calls)
    return best


def unreachable_runtime(tmp: Path) -> Path:
    """A private runtime folder whose socket path is longer than a Unix socket may be."""
    folder = tmp / ("r" * 100)
    folder.mkdir(mode=0o700)
    return folder


def measure_routes(tmp: Path) -> dict[str, float]:
    runtime = tmp / "run"
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "HOME": str(tmp / "home"), "XDG_RUNTIME_DIR": str(runtime)}
    env.pop("HOOKWRIGHT_HOOK_RUN", None)
    project = make_project(tmp / "project")
    TrustStore(tmp / "home").trust(project)
    stdin = pre_tool_use(project)
    http = HttpCase(installed(project, env, "--mode", "http")["PreToolUse"], stdin)
    default = installed(project, env)["PreToolUse"]["command"]
    no_daemon = {**env, "XDG_RUNTIME_DIR": str(unreachable_runtime(tmp))}
    cases: dict[str, tuple[Callable[[], None], int]] = {
        "command hook `true`": (command_case("true", stdin, env, project, b""), CALLS),
        "bash+jq guard": (command_case("./guard.sh", stdin, env, project, DENIED), CALLS),
        "install default (quick client)": (
            command_case(default, stdin, env, project, DENIED),
            CALLS,
        ),
        "install --mode http (kept alive)": (http, CALLS),
        "fallback, no daemon reachable": (
            command_case(default, stdin, no_daemon, project, DENIED),
            FALLBACK_CALLS,
        ),
    }
    try:
        cases["install default (quick client)"][0]()
        return best_ns(cases)
    finally:
        http.close()
        stop = [sys.executable, "-m", "hookwright", "daemon", "stop"]
        subprocess.run(stop, env=env, capture_output=True, timeout=120, check=False)


HOOK = (
    "import json, sys\n"
    "data = json.load(sys.stdin)\n"
    "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
    "    'permissionDecision': 'allow'}}))\n"
)


def shim_folder(tmp: Path) -> tuple[str, str]:
    """A PATH whose `python3` is a shim, and where the shim comes from."""
    found = find_executable("python3", os.environ)
    if found is not None and shim_of(found) is not None:
        return os.environ["PATH"], found
    root = tmp / "pyenv"
    (root / "shims").mkdir(parents=True)
    (root / "libexec").mkdir()
    (root / "libexec" / "pyenv").write_text(FAKE_PYENV.format(python=sys.executable))
    (root / "shims" / "python3").write_text(SHIM.format(root=root))
    for script in (root / "libexec" / "pyenv", root / "shims" / "python3"):
        script.chmod(0o755)
    return f"{root / 'shims'}:{os.environ.get('PATH', '/usr/bin:/bin')}", "a pyenv-style shim"


def shim_engine(project: Path, *, warm: bool) -> HookEngine:
    project.mkdir(parents=True)
    (project / "hook.py").write_text(HOOK)
    hook = {"type": "command", "command": "python3 hook.py"}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    engine = HookEngine(audit_path=None, services=Services(warm_python=WarmPython(enabled=warm)))
    loaded = discover(LoadContext(project_dir=project, home=project / "home"))
    for spec in loaded.bind(TrustPolicy(everything=True)).specs:
        engine.register(spec)
    return engine


async def shim_rounds(engines: dict[str, tuple[HookEngine, Path]]) -> dict[str, float]:
    best = {name: float("inf") for name in engines}
    for _ in range(ROUNDS):
        for name, (engine, project) in engines.items():
            payload = {"tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": str(project)}
            inp = HookInput(Event.PreToolUse, session_id="s", payload=payload)
            start = time.perf_counter_ns()
            for _ in range(CALLS):
                verdict = await engine.dispatch(inp)
                if verdict.results[0].exit_code != 0:
                    raise SystemExit(f"hook failed: {verdict.results[0]}")
            best[name] = min(best[name], (time.perf_counter_ns() - start) / CALLS)
    return best


def measure_shim(tmp: Path) -> tuple[dict[str, float], str]:
    path, source = shim_folder(tmp)
    saved = os.environ["PATH"]
    os.environ["PATH"] = path
    engines = {
        "warm, through the shim": (shim_engine(tmp / "warm", warm=True), tmp / "warm"),
        "spawned, through the shim": (shim_engine(tmp / "spawn", warm=False), tmp / "spawn"),
    }
    try:
        best = asyncio.run(shim_rounds(engines))
        runner = engines["warm, through the shim"][0].services.warm_python
        assert isinstance(runner, WarmPython)
        if runner.forked < ROUNDS * CALLS - 1 or runner.declined:
            raise SystemExit(f"warm through the shim: {runner.forked} forked, {runner.declined}")
    finally:
        os.environ["PATH"] = saved
        for engine, _project in engines.values():
            engine.close()
    return best, source


def table(title: str, best: dict[str, float], floor: str) -> None:
    shown = Table(title=title)
    for column in ("case", "ms/event", f"ratio to {floor}"):
        shown.add_column(column, justify="right")
    for name, ns in best.items():
        shown.add_row(name, f"{ns / 1e6:,.2f}", f"{ns / best[floor]:.2f}")
    Console(width=120).print(shown)


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="hwr-"))
    try:
        os.environ["HOOKWRIGHT_AUDIT_LOG"] = str(tmp / "audit.jsonl")
        routes = measure_routes(tmp)
        shim, source = measure_shim(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    table("One PreToolUse per route (best round)", routes, "bash+jq guard")
    table(f"Python hook through {source} (best round)", shim, "spawned, through the shim")
    guard = routes["bash+jq guard"]
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results["install_default_vs_bash_guard"] = routes["install default (quick client)"] / guard
    results["install_http_vs_bash_guard"] = routes["install --mode http (kept alive)"] / guard
    results["install_fallback_vs_bash_guard"] = routes["fallback, no daemon reachable"] / guard
    results["true_command_vs_bash_guard"] = routes["command hook `true`"] / guard
    results["warm_python_via_shim_vs_spawn"] = (
        shim["warm, through the shim"] / shim["spawned, through the shim"]
    )
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
