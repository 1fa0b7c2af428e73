"""The debug trace: `hookwright --debug` or ``HOOKWRIGHT_DEBUG=1``.

Like `claude --debug`, it writes to stderr what the engine does with each event: which hooks
were selected or skipped and why, each process spawned (command, working directory, stdin),
its exit code and output, each hook process call and answer, and each hook's result. Off by
default; when off, the engine pays one attribute read per dispatch.

Every secret registered in the process (`hookwright.core.redaction`: OpenHarness ``${secrets.NAME}``
values, `AuditLog.add_secret`) is written as ``***``, in command lines, stdin, output and
results alike, before a value is cut to its `LIMIT` (so no part of a secret shows either).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

from hookwright.core.redaction import known, redact

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ENV = "HOOKWRIGHT_DEBUG"
#: Longest text of one traced value (a stdin, an output, a payload).
LIMIT = 600


def _from_env() -> bool:
    return os.environ.get(ENV, "").strip().lower() not in ("", "0", "false", "no", "off")


class _State:
    """Whether the trace is on; read once per dispatch, so a slotted instance attribute."""

    __slots__ = ("on",)

    def __init__(self) -> None:
        self.on = _from_env()


state = _State()
_lock = threading.Lock()


def enable(on: bool = True) -> None:
    """Turn the trace on (the CLI's `--debug`) or off."""
    state.on = on


def short(value: Any, limit: int = LIMIT) -> str:
    """One line of at most `limit` characters, secrets redacted: strings as they are (less the
    one newline that ends a printed line, which would show as a literal ``\\n``), anything
    else as JSON."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if isinstance(value, str):
        text = value.removesuffix("\n").removesuffix("\r")
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
    text = redact(text, known()).replace("\r", "\\r").replace("\n", "\\n")
    return text if len(text) <= limit else text[:limit] + f"…[{len(text) - limit} more]"


def trace(topic: str, message: str) -> None:
    """Write one trace line to stderr, secrets redacted; never raises."""
    if not state.on:
        return
    now = time.time()
    stamp = time.strftime("%H:%M:%S", time.localtime(now)) + f".{int(now * 1000) % 1000:03d}"
    line = f"[hookwright debug {stamp}] {topic}: {redact(message, known())}\n"
    try:
        with _lock:
            sys.stderr.write(line)
            sys.stderr.flush()
    except (OSError, ValueError):
        pass
