"""Hook round trip: a no-op JSON-RPC process hook vs a one-shot command hook of the same logic,
vs a bare pipe echo (the floor: one JSON line written to a child and one read back).

Prints a table and merges `{"name": ratio}` into bench/results.json, ratio = time / the bare
pipe echo measured in this run.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from hookwright.events import Event, HookInput
from hookwright.transports.ioloop import IoLoop
from hookwright.transports.process import run_process
from hookwright.transports.rpc import RpcProcess

RESULTS = Path(__file__).resolve().parent / "results.json"
ROUNDS = 12
CALLS = 200
SPAWNS = 30

ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()\n"
RPC_HOOK = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    m = json.loads(line)\n"
    "    if 'id' in m:\n"
    "        r = {'ok': True} if m['method'] == 'hook.hello' else {'action': 'continue'}\n"
    "        sys.stdout.write(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': r}) + '\\n')\n"
    "        sys.stdout.flush()\n"
)
ONE_SHOT = "import json, sys\njson.load(sys.stdin)\nprint(json.dumps({'action': 'continue'}))\n"
PARAMS: dict[str, Any] = {
    "meta": {"AgentID": "main", "TurnID": "t", "Iteration": 0},
    "tool": "Bash",
    "arguments": {"command": "ls"},
}


async def interleaved(tmp: Path) -> dict[str, float]:
    """The floor, a raw JSON-RPC call and an engine dispatch, measured in interleaved rounds on
    one host loop (the loop the agent runs on), so a slow moment of the machine hits all three
    alike. Best round of each, in ns per call."""
    from hookwright.engine import HookEngine
    from hookwright.loading import LoadContext, discover
    from hookwright.services import Services
    from hookwright.trust import TrustPolicy

    io = IoLoop(asyncio.get_running_loop())
    echo = await asyncio.create_subprocess_exec(
        sys.executable, "-c", ECHO, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert echo.stdin is not None and echo.stdout is not None
    echo_in, echo_out = echo.stdin, echo.stdout
    line = (
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "x", "params": PARAMS}) + "\n"
    ).encode()

    async def floor() -> None:
        echo_in.write(line)
        await echo_in.drain()
        json.loads(await echo_out.readline())

    hook = RpcProcess("bench", [sys.executable, "-c", RPC_HOOK], io=io)
    await hook.start()
    (tmp / ".picoclaw").mkdir(parents=True, exist_ok=True)
    config = {
        "hooks": {
            "processes": {
                "bench": {"command": [sys.executable, "-c", RPC_HOOK], "intercept": ["before_tool"]}
            }
        }
    }
    (tmp / ".picoclaw" / "config.json").write_text(json.dumps(config))
    engine = HookEngine(audit_path=None, services=Services(io=io))
    loaded = discover(LoadContext(project_dir=tmp, home=tmp / "home"))
    for spec in loaded.bind(TrustPolicy(everything=True)).specs:
        engine.register(spec)
    inp = HookInput(
        Event.PreToolUse,
        session_id="s",
        payload={"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"},
    )
    cases: dict[str, Any] = {
        "floor": floor,
        "rpc": lambda: hook.call("hook.before_tool", PARAMS, timeout=5),
        "dispatch": lambda: engine.dispatch(inp),
    }
    best = {name: float("inf") for name in cases}
    try:
        await engine.dispatch(inp)
        for _ in range(ROUNDS):
            for name, call in cases.items():
                start = time.perf_counter_ns()
                for _ in range(CALLS):
                    await call()
                best[name] = min(best[name], (time.perf_counter_ns() - start) / CALLS)
    finally:
        await hook.aclose()
        await engine.aclose()
        echo_in.close()
        await echo.wait()
    return best


async def cross_loop() -> float:
    """A call from a loop other than the one the process does its I/O on (thread hop: the
    process gets a private I/O loop of its own)."""
    hook = RpcProcess("bench", [sys.executable, "-c", RPC_HOOK])
    timings = []
    try:
        await hook.start()
        for _ in range(3):
            start = time.perf_counter_ns()
            for _ in range(CALLS):
                await hook.call("hook.before_tool", PARAMS, timeout=5)
            timings.append((time.perf_counter_ns() - start) / CALLS)
    finally:
        await hook.aclose()
    return min(timings)


async def one_shot() -> float:
    stdin = (json.dumps(PARAMS) + "\n").encode()
    timings = []
    for _ in range(2):
        start = time.perf_counter_ns()
        for _ in range(SPAWNS):
            await run_process(argv=[sys.executable, "-c", ONE_SHOT], stdin_data=stdin, timeout=30)
        timings.append((time.perf_counter_ns() - start) / SPAWNS)
    return min(timings)


def main() -> int:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        best = asyncio.run(interleaved(Path(tmp)))
    hop = asyncio.run(cross_loop())
    spawn = asyncio.run(one_shot())
    floor = best["floor"]
    rows = [
        ("bare pipe echo (floor)", floor),
        ("JSON-RPC hook call (host loop)", best["rpc"]),
        ("engine.dispatch to a PicoClaw process hook (host loop)", best["dispatch"]),
        ("JSON-RPC hook call from another thread's loop", hop),
        ("one-shot command hook (spawn per call)", spawn),
    ]
    table = Table(title="hook round trip (best of interleaved rounds)")
    for column in ("case", "µs/call", "ratio to floor"):
        table.add_column(column, justify="right")
    for name, ns in rows:
        table.add_row(name, f"{ns / 1000:,.1f}", f"{ns / floor:.2f}")
    Console(width=120).print(table)
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results.update(
        {
            "rpc_call_vs_pipe_echo": best["rpc"] / floor,
            "rpc_engine_dispatch_vs_pipe_echo": best["dispatch"] / floor,
            "rpc_call_other_thread_vs_pipe_echo": hop / floor,
            "one_shot_command_vs_pipe_echo": spawn / floor,
        }
    )
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
