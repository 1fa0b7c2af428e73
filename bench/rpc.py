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
from hookwright.transports.process import run_process
from hookwright.transports.rpc import RpcProcess, io_loop

RESULTS = Path(__file__).resolve().parent / "results.json"
ROUNDS = 5
CALLS = 400
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


def best(samples: list[float]) -> float:
    return min(samples)


async def bare_echo() -> float:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", ECHO, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    line = (
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "x", "params": PARAMS}) + "\n"
    ).encode()
    timings = []
    try:
        for _ in range(ROUNDS):
            start = time.perf_counter_ns()
            for _ in range(CALLS):
                proc.stdin.write(line)
                await proc.stdin.drain()
                json.loads(await proc.stdout.readline())
            timings.append((time.perf_counter_ns() - start) / CALLS)
    finally:
        proc.stdin.close()
        await proc.wait()
    return best(timings)


async def rpc_calls() -> float:
    hook = RpcProcess("bench", [sys.executable, "-c", RPC_HOOK])
    timings = []
    try:
        await hook.start()
        for _ in range(ROUNDS):
            start = time.perf_counter_ns()
            for _ in range(CALLS):
                await hook.call("hook.before_tool", PARAMS, timeout=5)
            timings.append((time.perf_counter_ns() - start) / CALLS)
    finally:
        await hook.aclose()
    return best(timings)


async def engine_dispatch(tmp: Path) -> float:
    from hookwright.engine import HookEngine
    from hookwright.loading import LoadContext, load_into

    (tmp / ".picoclaw").mkdir(parents=True, exist_ok=True)
    config = {
        "hooks": {
            "processes": {
                "bench": {
                    "command": [sys.executable, "-c", RPC_HOOK],
                    "intercept": ["before_tool"],
                }
            }
        }
    }
    (tmp / ".picoclaw" / "config.json").write_text(json.dumps(config))
    engine = HookEngine(audit_path=None)
    load_into(engine, LoadContext(project_dir=tmp, home=tmp / "home"))
    inp = HookInput(
        Event.PreToolUse,
        session_id="s",
        payload={"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"},
    )
    timings = []
    try:
        await engine.dispatch(inp)
        for _ in range(ROUNDS):
            start = time.perf_counter_ns()
            for _ in range(CALLS):
                await engine.dispatch(inp)
            timings.append((time.perf_counter_ns() - start) / CALLS)
    finally:
        await engine.aclose()
    return best(timings)


async def one_shot() -> float:
    stdin = (json.dumps(PARAMS) + "\n").encode()
    timings = []
    for _ in range(2):
        start = time.perf_counter_ns()
        for _ in range(SPAWNS):
            await run_process(argv=[sys.executable, "-c", ONE_SHOT], stdin_data=stdin, timeout=30)
        timings.append((time.perf_counter_ns() - start) / SPAWNS)
    return best(timings)


def main() -> int:
    import tempfile

    floor = asyncio.run(bare_echo())
    rpc_on_io = asyncio.run_coroutine_threadsafe(rpc_calls(), io_loop()).result()
    rpc_cross = asyncio.run(rpc_calls())
    with tempfile.TemporaryDirectory() as tmp:
        dispatch = asyncio.run(engine_dispatch(Path(tmp)))
    spawn = asyncio.run(one_shot())
    rows = [
        ("bare pipe echo (floor)", floor),
        ("JSON-RPC hook call, on the I/O loop", rpc_on_io),
        ("JSON-RPC hook call, from another loop", rpc_cross),
        ("engine.dispatch to a PicoClaw process hook", dispatch),
        ("one-shot command hook (spawn per call)", spawn),
    ]
    table = Table(title="hook round trip (best of rounds)")
    for column in ("case", "µs/call", "ratio to floor"):
        table.add_column(column, justify="right")
    for name, ns in rows:
        table.add_row(name, f"{ns / 1000:,.1f}", f"{ns / floor:.2f}")
    Console().print(table)
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results.update(
        {
            "rpc_call_on_io_loop_vs_pipe_echo": rpc_on_io / floor,
            "rpc_call_cross_loop_vs_pipe_echo": rpc_cross / floor,
            "rpc_engine_dispatch_vs_pipe_echo": dispatch / floor,
            "one_shot_command_vs_pipe_echo": spawn / floor,
        }
    )
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
