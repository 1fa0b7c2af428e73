"""Per-event cost of hookwright inside Claude Code, against the floor Claude Code imposes: a
`command` hook that runs `true`.

Each case is timed the way Claude Code runs it: a command hook is `sh -c <command>` with the
event JSON on stdin (`true`, and the installed thin client of `--mode command`); an http hook
is one POST of the event JSON (`--mode http`) on a kept-alive connection, as Claude Code's HTTP
client keeps it, and, for comparison, on a new connection per event. The event is a
UserPromptSubmit on a trusted project whose Python hook adds context, answered by a warm
daemon. Cases take turns within each round; the best round of each counts. Merges
`daemon_http_vs_true_command` and `daemon_client_vs_true_command` into bench/results.json.

Then the load cases of `bench.daemon_load` (the daemon against a bare HTTP server, many
clients and agents, CPU per event with a command hook), three runs, the worst of each ratio
merged into bench/results.json.

The daemon serves http as it does by default, from one process per core this process may run
on, at most four (`HOOKWRIGHT_DAEMON_WORKERS`; a value in the environment is kept), and every
CPU figure sums the daemon and its workers.
"""

from __future__ import annotations

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

from hookwright.bridges.daemon_pool import WORKERS_VARIABLE, default_workers, worker_count
from hookwright.config.trust import TrustStore

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.daemon_load import Floor, LoadRun, Target, load_run, worst

RESULTS = Path(__file__).resolve().parent / "results.json"
ROUNDS = 5
CALLS = 20
HOOKS_YAML = "hooks:\n  - name: rules\n    event: UserPromptSubmit\n    call: rules:rules\n"
RULES_PY = (
    "from hookwright import add_context\n\n\n"
    "def rules(inp):\n    return add_context('HOUSE-RULES: one line.')\n"
)
CONTEXT = b"HOUSE-RULES: one line."
LOAD_RUNS = 3
#: A Python command hook (Gemini CLI settings: the daemon leaves Claude Code's own hooks to
#: Claude Code), forked warm by the daemon per event; its reason reaches the answer.
COMMAND_HOOK = (
    "import json, sys\n"
    "json.load(sys.stdin)\n"
    "print(json.dumps({'decision': 'deny', 'reason': 'GUARD-RAN'}))\n"
)
GUARD_RAN = b"GUARD-RAN"


def processes() -> str:
    """How many processes the daemon serves http from: the environment's
    `HOOKWRIGHT_DAEMON_WORKERS`, else the daemon's default (one per core, at most four)."""
    return os.environ.get(WORKERS_VARIABLE) or str(default_workers())


def make_project(root: Path) -> Path:
    (root / ".hookwright").mkdir(parents=True)
    (root / ".hookwright" / "hooks.yaml").write_text(HOOKS_YAML)
    (root / ".hookwright" / "rules.py").write_text(RULES_PY)
    return root


def event(project: Path, name: str, **fields: Any) -> bytes:
    data = {
        "session_id": "3f2a4c1e-5b6d-4e7f-8a9b-0c1d2e3f4a5b",
        "transcript_path": str(project / "t.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": name,
        **fields,
    }
    return json.dumps(data, separators=(",", ":")).encode() + b"\n"


def make_command_project(root: Path, home: Path) -> Path:
    root.mkdir(parents=True)
    (root / "hook.py").write_text(COMMAND_HOOK)
    command = f'"{sys.executable}" "{root / "hook.py"}"'
    hook = {"matcher": ".*", "hooks": [{"type": "command", "command": command, "name": "guard"}]}
    (root / ".gemini").mkdir()
    (root / ".gemini" / "settings.json").write_text(json.dumps({"hooks": {"BeforeTool": [hook]}}))
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    trusted = json.dumps({str(root): "TRUST_FOLDER"})
    (home / ".gemini" / "trustedFolders.json").write_text(trusted)
    return root


def install(project: Path, env: dict[str, str]) -> dict[str, Any]:
    command = [sys.executable, "-m", "hookwright", "install", "claude-code"]
    command += ["--project", str(project), "--mode", "http"]
    subprocess.run(command, env=env, check=True, capture_output=True, timeout=120)
    settings = json.loads((project / ".claude" / "settings.local.json").read_text())
    return {name: groups[0]["hooks"][0] for name, groups in settings["hooks"].items()}


def daemon_status(env: dict[str, str]) -> dict[str, Any]:
    command = [sys.executable, "-m", "hookwright", "daemon", "status", "--json"]
    done = subprocess.run(command, env=env, check=True, capture_output=True, timeout=120)
    status: dict[str, Any] = json.loads(done.stdout)
    return status


def serving_pids(env: dict[str, str], runtime: Path) -> tuple[int, ...]:
    """The daemon's pid and its http workers', once every worker the environment asks for
    listens."""
    pid = int(next(runtime.rglob("daemon.pid")).read_text())
    extra = worker_count(env) - 1
    deadline = time.monotonic() + 60
    while True:
        workers = daemon_status(env)["workers"]
        if len(workers) >= extra or time.monotonic() > deadline:
            return (pid, *workers)
        time.sleep(0.2)


def command_case(command: str, stdin: bytes, env: dict[str, str], cwd: Path) -> Callable[[], None]:
    def run() -> None:
        done = subprocess.run(
            ["sh", "-c", command], input=stdin, capture_output=True, env=env, cwd=cwd
        )
        if done.returncode != 0 or (command != "true" and CONTEXT not in done.stdout):
            raise SystemExit(f"{command} failed: {done.stderr.decode(errors='replace')}")

    return run


class HttpCase:
    def __init__(self, hook: dict[str, Any], body: bytes, keep_alive: bool) -> None:
        self.url = urlsplit(hook["url"])
        self.headers = {**hook["headers"], "Content-Type": "application/json"}
        self.body = body
        self.keep_alive = keep_alive
        self.conn: http.client.HTTPConnection | None = None

    def __call__(self) -> None:
        if self.conn is None or not self.keep_alive:
            self.close()
            self.conn = http.client.HTTPConnection(self.url.hostname or "", self.url.port)
        self.conn.request("POST", f"{self.url.path}?{self.url.query}", self.body, self.headers)
        response = self.conn.getresponse()
        if response.status != 200 or CONTEXT not in response.read():
            raise SystemExit(f"http hook failed: {response.status}")

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def best_ns(cases: dict[str, Callable[[], None]]) -> dict[str, float]:
    best = {name: float("inf") for name in cases}
    for _ in range(ROUNDS):
        for name, case in cases.items():
            start = time.perf_counter_ns()
            for _ in range(CALLS):
                case()
            best[name] = min(best[name], (time.perf_counter_ns() - start) / CALLS)
    return best


def load(tmp: Path, env: dict[str, str], hook: dict[str, Any], prompt: bytes) -> list[LoadRun]:
    """`LOAD_RUNS` runs of the load cases against the running daemon."""
    project = make_command_project(tmp / "commands", tmp / "home")
    TrustStore(tmp / "home").trust(project)
    tool = event(project, "PreToolUse", tool_name="Bash", tool_input={"command": "ls"})
    command = Target.of_hook(install(project, env)["PreToolUse"], tool, GUARD_RAN)
    inprocess = Target.of_hook(hook, prompt, CONTEXT)
    pids = serving_pids(env, tmp / "run")
    floor = Floor(b'{"hookSpecificOutput":{"additionalContext":"HOUSE-RULES: one line."}}')
    try:
        target = floor.target(prompt, CONTEXT)
        return [load_run(inprocess, command, pids, target, floor.pid) for _ in range(LOAD_RUNS)]
    finally:
        floor.close()


def measure(tmp: Path) -> tuple[dict[str, float], list[LoadRun]]:
    runtime = tmp / "run"
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "HOME": str(tmp / "home"), "XDG_RUNTIME_DIR": str(runtime)}
    env.pop("HOOKWRIGHT_HOOK_RUN", None)
    env[WORKERS_VARIABLE] = processes()
    project = make_project(tmp / "project")
    TrustStore(tmp / "home").trust(project)
    hooks = install(project, env)
    client = hooks["SessionStart"]["command"]
    command_case(client, event(project, "SessionStart", source="startup"), env, project)
    prompt = event(project, "UserPromptSubmit", prompt="hi")
    kept, fresh = (
        HttpCase(hooks["UserPromptSubmit"], prompt, True),
        HttpCase(hooks["UserPromptSubmit"], prompt, False),
    )
    cases: dict[str, Callable[[], None]] = {
        "command hook `true`": command_case("true", prompt, env, project),
        "http hook, kept-alive connection": kept,
        "http hook, new connection": fresh,
        "command hook, thin client": command_case(client, prompt, env, project),
    }
    try:
        cases["command hook, thin client"]()
        best = best_ns(cases)
        kept.close()
        loaded = load(tmp, env, hooks["UserPromptSubmit"], prompt)
        return best, loaded
    finally:
        kept.close()
        fresh.close()
        stop = [sys.executable, "-m", "hookwright", "daemon", "stop"]
        subprocess.run(stop, env=env, capture_output=True, timeout=120, check=False)


def show_load(runs: list[LoadRun]) -> None:
    table = Table(title=f"The daemon under load, {processes()} http process(es) (each run)")
    for column in ("run", "case", "daemon", "floor", "ratio"):
        table.add_column(column, justify="right")
    for number, run in enumerate(runs, 1):
        for clients in (1, 10, 100):
            daemon, bare = run.rates["daemon", clients], run.rates["floor", clients]
            name = f"closed loop, {clients} clients, events/s"
            table.add_row(
                str(number), name, f"{daemon:,.0f}", f"{bare:,.0f}", f"{daemon / bare:.2f}"
            )
            daemon, bare = run.served["daemon", clients], run.served["floor", clients]
            name = f"closed loop, {clients} clients, server CPU s per 1,000 events"
            table.add_row(
                str(number),
                name,
                f"{daemon * 1e3:.3f}",
                f"{bare * 1e3:.3f}",
                f"{daemon / bare:.2f}",
            )
        for agents in (1, 100):
            name = f"open loop, {agents} agents x 10/s, p99 ms"
            table.add_row(str(number), name, f"{run.p99s[agents] * 1e3:.2f}", "", "")
        for clients in (1, 100):
            name = f"command hook, {clients} clients, daemon CPU ms/event"
            table.add_row(str(number), name, f"{run.cpu[clients] * 1e3:.2f}", "", "")
        for ratio, value in run.ratios().items():
            table.add_row(str(number), ratio, "", "", f"{value:.2f}")
    Console(width=120).print(table)


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="hwb-"))
    try:
        best, runs = measure(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    floor = best["command hook `true`"]
    table = Table(title="Claude Code hook event answered by hookwright's daemon (best round)")
    for column in ("case", "ms/event", "ratio to `true`"):
        table.add_column(column, justify="right")
    for name, ns in best.items():
        table.add_row(name, f"{ns / 1e6:,.2f}", f"{ns / floor:.2f}")
    Console(width=120).print(table)
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results["daemon_http_vs_true_command"] = best["http hook, kept-alive connection"] / floor
    results["daemon_http_new_connection_vs_true_command"] = (
        best["http hook, new connection"] / floor
    )
    results["daemon_client_vs_true_command"] = best["command hook, thin client"] / floor
    show_load(runs)
    results.update(worst(runs))
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
