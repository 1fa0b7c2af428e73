"""Reading a process's state from /proc, for tests that check what a run left behind."""

from __future__ import annotations

from pathlib import Path


def running(pid: int) -> bool:
    """True while `pid` is alive and not a zombie (an unreaped corpse runs nothing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


def gone(pid: int) -> bool:
    """Dead and reaped: not even a zombie is left."""
    return not Path(f"/proc/{pid}").exists()
