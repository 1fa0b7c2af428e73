"""A hostile MCP server over stdio for the tests, speaking JSON-RPC by hand.

``python hostile_mcp_server.py MODE`` offers one tool, ``dump``, and misbehaves as MODE says:

- ``huge``: answers the call with 100 MiB of text on one line (written in 1 MiB pieces, so the
  server itself stays small);
- ``large``: answers with 1 MiB of text (one message well under the transport's limit);
- ``endless``: starts the answer and never ends the line;
- ``silent``: never answers the call;
- ``stubborn``: never answers the call, and neither the end of its input (on which it writes
  ``input ended`` to stderr) nor SIGTERM ends it (nor its child, which inherits the ignored
  SIGTERM): only SIGKILL does;
- ``mute-handshake``: never answers ``initialize``;
- ``exit``: exits in the middle of the call (``exit-held``: while the child it started still
  holds its stdout open);
- ``garbage``: writes 20,000 lines that are not JSON-RPC (and one 50 MiB one) before each
  answer, then answers ``ok``;
- ``stderr``: writes 100 MiB to stderr, then answers ``ok``;
- ``well``: answers ``ok`` (the control).

Its pid, and the pid of a child it starts (a ``sleep``, which shares its stdout in every mode
but ``exit``), go to the file named by ``HOSTILE_PIDS``, so a test can check that nothing is left
running.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

MODE = sys.argv[1] if __name__ == "__main__" else ""
MIB = 1024 * 1024
INPUT_ENDED = "input ended"
TOOL = {"name": "dump", "description": "Dump everything.", "inputSchema": {"type": "object"}}


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def stream_text(request_id: Any, megabytes: int | None) -> None:
    """A result whose one text block is ``megabytes`` MiB of "A" (None: without end)."""
    out = sys.stdout
    out.write(f'{{"jsonrpc":"2.0","id":{json.dumps(request_id)},"result":{{"content":[')
    out.write('{"type":"text","text":"')
    piece = "A" * MIB
    written = 0
    while megabytes is None or written < megabytes:
        out.write(piece)
        written += 1
    out.write('"}],"isError":false}}\n')
    out.flush()


def answer_call(request_id: Any) -> None:
    if MODE == "huge":
        stream_text(request_id, 100)
    elif MODE == "large":
        stream_text(request_id, 1)
    elif MODE == "endless":
        stream_text(request_id, None)
    elif MODE in ("silent", "stubborn"):
        return
    elif MODE in ("exit", "exit-held"):
        os._exit(3)
    else:
        if MODE == "garbage":
            for number in range(20_000):
                sys.stdout.write(f"garbage line {number} <html>not json</html>\n")
            sys.stdout.write("G" * 50 * MIB + "\n")
        elif MODE == "stderr":
            for _ in range(100):
                sys.stderr.write("E" * MIB)
            sys.stderr.flush()
        send({"jsonrpc": "2.0", "id": request_id, "result": {"content": [ok()]}})


def ok() -> dict[str, str]:
    return {"type": "text", "text": "ok"}


def handle(message: dict[str, Any]) -> None:
    method, request_id = message.get("method"), message.get("id")
    if method == "initialize":
        if MODE == "mute-handshake":
            return
        version = message["params"]["protocolVersion"]
        info = {"name": "hostile", "version": "1"}
        result = {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
        send({"jsonrpc": "2.0", "id": request_id, "result": result})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": [TOOL]}})
    elif method == "tools/call":
        answer_call(request_id)
    elif request_id is not None:
        error = {"code": -32601, "message": f"no method {method}"}
        send({"jsonrpc": "2.0", "id": request_id, "error": error})


def main() -> None:
    if MODE == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    grandchild = subprocess.Popen(
        ["sleep", "600"], stdout=subprocess.DEVNULL if MODE == "exit" else None
    )
    pids = os.environ.get("HOSTILE_PIDS")
    if pids:
        with open(pids, "a", encoding="utf-8") as sink:
            sink.write(f"{os.getpid()}\n{grandchild.pid}\n")
    for line in sys.stdin:
        handle(json.loads(line))
    if MODE == "stubborn":
        sys.stderr.write(f"{INPUT_ENDED}\n")
        sys.stderr.flush()
        while True:
            time.sleep(60)


if __name__ == "__main__":
    main()
