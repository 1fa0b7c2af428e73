"""Starting a process at a chosen pid (``clone3`` with ``set_tid``), for the tests of what a
pid given to a later process must not be taken for: the process that had it before."""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import signal
import time

import pytest

from hookwright.transports.adoption import boot_ticks

#: ``clone3`` in the generic syscall table, which x86_64 shares.
_CLONE3 = 435


class _CloneArgs(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_uint64)
        for name in (
            *("flags", "pidfd", "child_tid", "parent_tid", "exit_signal", "stack"),
            *("stack_size", "tls", "set_tid", "set_tid_size", "cgroup"),
        )
    ]


def start_at(pid: int, argv: list[str], *, new_session: bool = False) -> int:
    """Start `argv` (an empty environment) as a child of this process with the pid `pid`,
    which must be free, and return once it runs `argv`; skips the test where the kernel or
    the privileges do not allow it.

    The process starts in a later clock tick than this call (the unit of a start time in
    /proc), so it is told from the process that had the pid before, as it is when the kernel
    gives a pid again: the counter has come round the whole range since."""
    if platform.machine() not in ("x86_64", "aarch64"):
        pytest.skip("raw clone3 call")
    called = boot_ticks()
    while boot_ticks() == called:
        time.sleep(0.001)
    libc = ctypes.CDLL(None, use_errno=True)
    wanted = (ctypes.c_int * 1)(pid)
    args = _CloneArgs(exit_signal=signal.SIGCHLD, set_tid=ctypes.addressof(wanted))
    args.set_tid_size = 1
    execed, execing = os.pipe2(os.O_CLOEXEC)
    got = int(libc.syscall(_CLONE3, ctypes.byref(args), ctypes.c_size_t(ctypes.sizeof(args))))
    if got == 0:
        try:
            if new_session:
                os.setsid()
            os.execve(argv[0], argv, {})
        finally:
            os._exit(127)
    os.close(execing)
    os.read(execed, 1)  # end of file once the child has exec'ed (or died)
    os.close(execed)
    if got < 0:
        code = ctypes.get_errno()
        if code in (errno.EPERM, errno.ENOSYS, errno.EINVAL):
            pytest.skip(f"a process cannot be started at a chosen pid here: {os.strerror(code)}")
        raise OSError(code, os.strerror(code))
    return got
