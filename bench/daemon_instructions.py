"""Instructions per event of the daemon's http front and of the bench's floor, counted by
callgrind: what a shared machine's load does not move, where the events per second and even
the CPU time per event do.

    python bench/daemon_instructions.py [events] [clients]

Each server runs alone under ``valgrind --tool=callgrind --separate-threads=yes``: the daemon's
front answering the UserPromptSubmit of `bench.daemon` (one in-process Python hook adding
context, the user's audit on) as each of its http processes does (`HttpFront` over
`WarmProjects`), the front alone (the same `HttpFront` answering a fixed reply, no project),
then the floor of `bench.daemon_load` (a bare asyncio server answering a fixed body). This
process sends `WARMUP` events from `clients` kept-alive connections (closed loop), zeroes the
counters, sends `events` more and has the counters dumped: instructions per event,
by thread (the event loop's, and the daemon's audit writer), are printed.

Under callgrind a server is some fifty times slower than at full speed, so the audit writer,
which wakes every 50 ms, writes smaller batches than at full speed, and its per-batch work
weighs more on each record; the event loop's figure does not depend on the speed.
"""

from __future__ import annotations

import asyncio
import json
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.daemon import CONTEXT, event, make_project
from bench.daemon_load import FLOOR_SERVER, Target
from hookwright.bridges import daemon_http
from hookwright.bridges.endpoint import HOOK_PATH, Endpoint
from hookwright.bridges.projects import Reply, WarmProjects
from hookwright.config.trust import TrustStore

EVENTS = 2_000
CLIENTS = 10
WARMUP = 400
TOKEN = "bench-token-" + "x" * 32
FLOOR_BODY = b'{"hookSpecificOutput":{"additionalContext":"HOUSE-RULES: one line."}}'


async def serve(home: Path, fixed: bool) -> None:
    """The daemon's http front over its projects on a free port (printed), until SIGTERM;
    with `fixed`, the front alone, answering `FLOOR_BODY` to every event."""
    warm = WarmProjects(home)
    counts = {"http_events": 0, "http_connections": 0, "http_refused": 0}
    reply = Reply(0, FLOOR_BODY)

    async def answer(body: bytes, project: Path | None, env_project: str | None) -> Reply:
        counts["http_events"] += 1  # as a worker's answer counts it
        if fixed:
            return reply
        return await warm.answer(body, project, env_project)

    probe = socket.create_server(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    endpoint = Endpoint(port, TOKEN)
    front = daemon_http.HttpFront.listen(endpoint, answer, daemon_http.DEFAULT_LIMITS, counts)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    print(port, flush=True)
    try:
        await stop.wait()
    finally:
        front.close()
        await warm.aclose()


def send(target: Target, events: int, clients: int) -> None:
    """`events` requests over `clients` kept-alive connections, each sending its next when
    its answer came (plain blocking sockets and one selector: the load costs little)."""
    selector = selectors.DefaultSelector()
    conns = [socket.create_connection((target.host, target.port)) for _ in range(clients)]
    buffers = {conn: b"" for conn in conns}
    sent = answered = 0
    for conn in conns[:events]:
        selector.register(conn, selectors.EVENT_READ, conn)
        conn.sendall(target.request)
        sent += 1
    while answered < events:
        for key, _ in selector.select():
            conn = key.data
            buffers[conn] += conn.recv(65536)
            while b"\r\n\r\n" in buffers[conn]:
                head, _, rest = buffers[conn].partition(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
                if len(rest) < length:
                    break
                if not head.startswith(b"HTTP/1.1 200") or target.expect not in rest[:length]:
                    raise SystemExit(f"unexpected answer: {head[:40]!r}")
                buffers[conn] = rest[length:]
                answered += 1
                if sent < events:
                    conn.sendall(target.request)
                    sent += 1
    selector.close()
    for conn in conns:
        conn.close()


def summary(path: Path) -> int:
    """The instructions a callgrind dump counted."""
    for line in path.read_text().splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    return 0


def started(
    command: list[str], out: Path, env: dict[str, str]
) -> tuple[subprocess.Popen[bytes], int]:
    """`command` under callgrind, one profile per thread, and the port it printed."""
    valgrind = ["valgrind", "--tool=callgrind", "--separate-threads=yes"]
    proc = subprocess.Popen(
        [*valgrind, f"--callgrind-out-file={out}", *command],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.strip().isdigit():
        proc.kill()
        proc.wait()
        raise SystemExit(f"{command[-1]} did not start under callgrind")
    return proc, int(line)


def per_event(
    proc: subprocess.Popen[bytes], out: Path, target: Target, events: int, clients: int
) -> list[int]:
    """Instructions per event of each thread of `proc` over `events` events after `WARMUP`."""
    control = ["callgrind_control"]
    send(target, WARMUP, clients)
    subprocess.run([*control, "-z", str(proc.pid)], check=True, capture_output=True)
    send(target, events, clients)
    subprocess.run([*control, "-d", str(proc.pid)], check=True, capture_output=True)
    deadline = time.monotonic() + 60
    while not list(out.parent.glob(f"{out.name}.1-*")) and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1)  # every thread's file written
    dumps = sorted(out.parent.glob(f"{out.name}.1-*"))
    return [summary(dump) // events for dump in dumps if summary(dump)]


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def measure(tmp: Path, events: int, clients: int) -> dict[str, list[int]]:
    home, project = tmp / "home", make_project(tmp / "project")
    TrustStore(home).trust(project)
    env = {**os.environ, "HOME": str(home)}
    env.pop("HOOKWRIGHT_HOOK_RUN", None)
    body = event(project, "UserPromptSubmit", prompt="hi")
    found: dict[str, list[int]] = {}
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    path = f"{HOOK_PATH}?project={project}"
    for name in ("daemon", "front"):
        command = [sys.executable, __file__, f"--{name}", str(home)]
        proc, port = started(command, tmp / name, env)
        try:
            target = Target.of("127.0.0.1", port, path, headers, body, CONTEXT)
            found[name] = per_event(proc, tmp / name, target, events, clients)
        finally:
            stop(proc)
    floor = [sys.executable, "-c", FLOOR_SERVER, FLOOR_BODY.decode()]
    proc, port = started(floor, tmp / "floor", env)
    try:
        headers = {"Content-Type": "application/json"}
        target = Target.of("127.0.0.1", port, "/", headers, body, CONTEXT)
        found["floor"] = per_event(proc, tmp / "floor", target, events, clients)
    finally:
        stop(proc)
    return found


def main() -> int:
    if sys.argv[1:2] in (["--daemon"], ["--front"]):
        asyncio.run(serve(Path(sys.argv[2]), fixed=sys.argv[1] == "--front"))
        return 0
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise SystemExit("needs valgrind and callgrind_control")
    events = int(sys.argv[1]) if len(sys.argv) > 1 else EVENTS
    clients = int(sys.argv[2]) if len(sys.argv) > 2 else CLIENTS
    tmp = Path(tempfile.mkdtemp(prefix="hwi-"))
    try:
        found = measure(tmp, events, clients)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for server, threads in found.items():
        shown = ", ".join(f"thread {n}: {count:,}" for n, count in enumerate(threads, 1))
        print(f"{server:6} {sum(threads):>9,} instructions per event ({shown})")
    print(json.dumps({"events": events, "clients": clients, **found}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
