"""A Python command hook: the same script run warm vs spawned, through `engine.dispatch`.

The hook is a Claude Code settings.json command hook (`python3 hook.py`, the interpreter named
by its path) on PreToolUse that reads its stdin and prints a JSON decision. Two engines load
the same settings: one with the default services (the warm runner forks the hook from a
pre-started interpreter), one with the warm runner off (`WarmPython(enabled=False)`: a fresh
interpreter per call, as before). Rounds of 10 calls alternate between them; the best round
of each counts. The script checks that the warm engine really forked every call after the
first. Merges `python_hook_warm_vs_spawn` into bench/results.json.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from hookwright.config.trust import TrustPolicy
from hookwright.core.events import Event, HookInput
from hookwright.dialects import LoadContext, discover
from hookwright.engine.kernel import HookEngine
from hookwright.engine.services import Services
from hookwright.transports.warm import WarmPython

RESULTS = Path(__file__).resolve().parent / "results.json"
ROUNDS = 5
CALLS = 10

HOOK = (
    "import json, sys\n"
    "data = json.load(sys.stdin)\n"
    "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
    "    'permissionDecision': 'allow'}}))\n"
)


def engine_for(project: Path, *, warm: bool) -> HookEngine:
    project.mkdir(parents=True)
    (project / "hook.py").write_text(HOOK)
    command = f'"{sys.executable}" "{project / "hook.py"}"'
    settings = {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]
        }
    }
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    engine = HookEngine(audit_path=None, services=Services(warm_python=WarmPython(enabled=warm)))
    loaded = discover(LoadContext(project_dir=project, home=project / "home"))
    for spec in loaded.bind(TrustPolicy(everything=True)).specs:
        engine.register(spec)
    return engine


async def best_ns(engines: dict[str, HookEngine], project: Path) -> dict[str, float]:
    inp = HookInput(
        Event.PreToolUse,
        session_id="s",
        payload={"tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": str(project)},
    )
    best = {name: float("inf") for name in engines}
    for _ in range(ROUNDS):
        for name, engine in engines.items():
            start = time.perf_counter_ns()
            for _ in range(CALLS):
                verdict = await engine.dispatch(inp)
                if verdict.results[0].exit_code != 0:
                    raise SystemExit(f"hook failed: {verdict.results[0]}")
            best[name] = min(best[name], (time.perf_counter_ns() - start) / CALLS)
    return best


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HOOKWRIGHT_AUDIT_LOG"] = str(Path(tmp) / "audit.jsonl")
        engines = {
            "warm": engine_for(Path(tmp) / "warm", warm=True),
            "spawn": engine_for(Path(tmp) / "spawn", warm=False),
        }
        try:
            best = asyncio.run(best_ns(engines, Path(tmp)))
            runner = engines["warm"].services.warm_python
            assert isinstance(runner, WarmPython)
            forked, declined = runner.forked, runner.declined
        finally:
            for engine in engines.values():
                engine.close()
    if forked < ROUNDS * CALLS - 1 or declined:
        raise SystemExit(f"the warm engine forked {forked} calls and spawned {declined}")
    table = Table(title="Python command hook, warm vs spawned (best of interleaved rounds)")
    for column in ("case", "ms/call", "ratio to spawn"):
        table.add_column(column, justify="right")
    for name, ns in best.items():
        table.add_row(name, f"{ns / 1e6:,.2f}", f"{ns / best['spawn']:.2f}")
    Console(width=120).print(table)
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results["python_hook_warm_vs_spawn"] = best["warm"] / best["spawn"]
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
