"""Hook round trip: a no-op JSON-RPC process hook vs a one-shot command hook of the same logic,
vs a bare pipe echo (the floor: one JSON line written to a child and one read back).

Every case runs with the benchmark and its children pinned to one CPU. Unpinned, the scheduler
places each child on the parent's CPU or on the other one, and that placement, not the code,
decides the round trip: on a 2-core VM the same echo takes about 26 µs when both ends share a
CPU and 60-85 µs when a wake-up has to cross to the other one, and it changes from one child
(and one run) to the next. Pinned, every case hands over the same way, so the ratios compare
the work each path does. The unpinned ratio is printed and recorded too, for reference.

Prints a table and merges `{"name": ratio}` into bench/results.json, ratio = time / the bare
pipe echo measured in this run. The same ratios in CPU time are written as `<name>_cpu`: the
benchmark's own CPU time plus that of the child answering the case (its on-CPU time from
`/proc/<pid>/schedstat`), per call, best round of each. Pinned to one CPU the two take turns,
so on a quiet machine this is about the wall time; on a busy one it leaves out the time spent
waiting for the CPU, which wall time counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from hookwright.core.events import Event, HookInput
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


def on_cpu_ns(pid: int) -> int:
    """The CPU time a (single-threaded) process has used, in ns."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])


async def interleaved(tmp: Path) -> tuple[dict[str, float], dict[str, float]]:
    """The floor, a raw JSON-RPC call and an engine dispatch, measured in interleaved rounds on
    one host loop (the loop the agent runs on), so a slow moment of the machine hits all three
    alike. Best round of each, in ns per call: wall time, and CPU time of this process and
    of the child answering."""
    from hookwright.config.trust import TrustPolicy
    from hookwright.dialects import LoadContext, discover
    from hookwright.engine.kernel import HookEngine
    from hookwright.engine.services import Services

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
    best_cpu = dict(best)
    try:
        await engine.dispatch(inp)
        (spec,) = engine.hooks(Event.PreToolUse)
        assert hook.pid is not None
        children = {"floor": echo.pid, "rpc": hook.pid, "dispatch": hook_pid(spec)}
        for _ in range(ROUNDS):
            for name, call in cases.items():
                child = children[name]
                cpu = time.process_time_ns() + on_cpu_ns(child)
                start = time.perf_counter_ns()
                for _ in range(CALLS):
                    await call()
                best[name] = min(best[name], (time.perf_counter_ns() - start) / CALLS)
                cpu = time.process_time_ns() + on_cpu_ns(child) - cpu
                best_cpu[name] = min(best_cpu[name], cpu / CALLS)
    finally:
        await hook.aclose()
        await engine.aclose()
        echo_in.close()
        await echo.wait()
    return best, best_cpu


def hook_pid(spec: Any) -> int:
    """The pid of the process behind a PicoClaw process hook's handler."""
    pid = spec.handler.transport.process.pid
    assert isinstance(pid, int), spec
    return pid


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


@contextlib.contextmanager
def pinned_to_one_cpu() -> Iterator[None]:
    """This process, and every child it starts meanwhile, on one CPU (the lowest it may use)."""
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(allowed)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, allowed)


def interleaved_in(tmp: Path) -> tuple[dict[str, float], dict[str, float]]:
    return asyncio.run(interleaved(tmp))


def main() -> int:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        unpinned, _ = interleaved_in(Path(tmp) / "unpinned")
        with pinned_to_one_cpu():
            best, cpu = interleaved_in(Path(tmp) / "pinned")
            hop = asyncio.run(cross_loop())
            spawn = asyncio.run(one_shot())
    floor = best["floor"]
    rows = [
        ("bare pipe echo (floor)", floor, floor),
        ("JSON-RPC hook call (host loop)", best["rpc"], floor),
        ("engine.dispatch to a PicoClaw process hook (host loop)", best["dispatch"], floor),
        ("JSON-RPC hook call from another thread's loop", hop, floor),
        ("one-shot command hook (spawn per call)", spawn, floor),
        ("unpinned: bare pipe echo (floor)", unpinned["floor"], unpinned["floor"]),
        ("unpinned: engine.dispatch, same hook", unpinned["dispatch"], unpinned["floor"]),
    ]
    table = Table(title="hook round trip (best of interleaved rounds)")
    for column in ("case", "µs/call", "ratio to floor"):
        table.add_column(column, justify="right")
    for name, ns, base in rows:
        table.add_row(name, f"{ns / 1000:,.1f}", f"{ns / base:.2f}")
    Console(width=120).print(table)
    print(
        "CPU µs/call (this process + the answering child), pinned: "
        + ", ".join(f"{name} {ns / 1000:,.1f}" for name, ns in cpu.items())
        + f"; ratios to the floor: JSON-RPC call {cpu['rpc'] / cpu['floor']:.2f}, "
        f"engine.dispatch {cpu['dispatch'] / cpu['floor']:.2f}"
    )
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results.update(
        {
            "rpc_call_vs_pipe_echo": best["rpc"] / floor,
            "rpc_engine_dispatch_vs_pipe_echo": best["dispatch"] / floor,
            "rpc_call_other_thread_vs_pipe_echo": hop / floor,
            "one_shot_command_vs_pipe_echo": spawn / floor,
            "rpc_engine_dispatch_vs_pipe_echo_unpinned": unpinned["dispatch"] / unpinned["floor"],
            "rpc_call_vs_pipe_echo_cpu": cpu["rpc"] / cpu["floor"],
            "rpc_engine_dispatch_vs_pipe_echo_cpu": cpu["dispatch"] / cpu["floor"],
        }
    )
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
