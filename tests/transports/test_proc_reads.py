"""/proc read without a buffered file object (`adoption.read_small`): the whole file, however
many reads it takes, and what the readers built on it make of a real process."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hookwright.transports import adoption

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def test_a_file_longer_than_one_read_is_read_whole() -> None:
    """The initial environment of a process with 200 KB of it: many reads, all kept."""
    big = {f"HOOKWRIGHT_BIG{n}": str(n) * 50_000 for n in range(4)}
    big["PATH"] = os.environ.get("PATH", "/usr/bin")
    child = subprocess.Popen(["sleep", "30"], env=big)
    try:
        expected = b"".join(f"{name}={value}\0".encode() for name, value in big.items())
        assert _environ_once_exec_is_done(child.pid) == expected
        assert adoption.carries(child.pid, b"\0HOOKWRIGHT_BIG3=333")
    finally:
        child.kill()
        child.wait()


def _environ_once_exec_is_done(pid: int) -> bytes:
    """The environment as soon as the kernel has placed it. `Popen` returns when the child's
    descriptors close on exec, which is before exec has set the new image's environment up:
    in that window ``/proc/<pid>/environ`` reads empty."""
    deadline = time.monotonic() + 30
    while not (read := adoption.read_small(f"/proc/{pid}/environ")):
        assert time.monotonic() < deadline, "the child never showed its environment"
        time.sleep(0.001)
    return read


def test_what_is_read_of_a_process_is_what_it_is() -> None:
    """Its stat line (pid, parent, group) and its parent's list of children."""
    child = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        proc = adoption.read_proc(child.pid)
        assert proc is not None
        assert (proc.pid, proc.ppid, proc.group, proc.session, proc.zombie) == (
            child.pid,
            os.getpid(),
            child.pid,
            child.pid,
            False,
        )
        if adoption.lists_children():
            assert child.pid in adoption.child_pids(os.getpid())
    finally:
        child.kill()
        child.wait()
    assert adoption.read_proc(child.pid) is None


def test_a_missing_file_raises_and_an_empty_one_is_empty(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        adoption.read_small(str(tmp_path / "absent"))
    (tmp_path / "empty").write_bytes(b"")
    assert adoption.read_small(str(tmp_path / "empty")) == b""
