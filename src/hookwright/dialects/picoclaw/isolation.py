"""PicoClaw's isolation of hook processes (`pkg/isolation`, Linux backend): with `isolation.enabled`
in config.json a hook process runs inside bubblewrap (`bwrap`) and sees only

* the instance root (``$PICOCLAW_HOME``, else ``~/.picoclaw``), read-write;
* the system paths a program needs (``/usr``, ``/bin``, ``/lib``, ``/lib64`` and a few files
  of ``/etc``), read-only, where they exist;
* the configured `expose_paths` (``{source, target, mode: ro|rw}``; a rule replaces the one
  with the same target);
* its executable and that file's folder (read-only), its working directory (`dir`, or the
  current one for a relative command; read-write) and every absolute path among its arguments
  (a file read-only, a folder read-write, the parent folder of one that does not exist yet
  read-write);

with its own IPC namespace, a fresh ``/proc`` and ``/dev``, and ``HOME``, ``TMPDIR`` and
``XDG_{CONFIG,CACHE,STATE}_HOME`` pointing into ``<root>/runtime-user-env``. Like PicoClaw there
is no fallback: without `bwrap` (or off Linux) the process does not start, and the error says
how to install bubblewrap or turn isolation off.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from hookwright.core.home import user_home

INSTALL_HINT = (
    "apt install bubblewrap; dnf install bubblewrap; yum install bubblewrap; "
    "pacman -S bubblewrap; apk add bubblewrap"
)
SYSTEM_PATHS = (
    "/usr",
    "/bin",
    "/lib",
    "/lib64",
    "/etc/resolv.conf",
    "/etc/hosts",
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/group",
    "/etc/ssl",
    "/etc/pki",
    "/etc/ca-certificates",
    "/usr/share/ca-certificates",
    "/usr/local/share/ca-certificates",
    "/etc/alternatives",
    "/usr/share/zoneinfo",
    "/etc/localtime",
)
USER_ENV = {
    "HOME": "home",
    "TMPDIR": "tmp",
    "XDG_CONFIG_HOME": "config",
    "XDG_CACHE_HOME": "cache",
    "XDG_STATE_HOME": "state",
}
INSTANCE_DIRS = ("skills", "logs", "cache", "state", "workspace")


class IsolationError(RuntimeError):
    """The process cannot be started isolated (and is not started at all)."""


@dataclass(frozen=True, slots=True)
class Mount:
    source: str
    target: str
    mode: str  # "ro" or "rw"


@dataclass(frozen=True, slots=True)
class Isolation:
    """The merged `isolation` settings of the trusted config files."""

    enabled: bool = False
    expose_paths: tuple[Mount, ...] = ()
    #: The instance root; None: ``$PICOCLAW_HOME``, else ``~/.picoclaw`` of the user's home.
    root: Path | None = None
    #: Why the settings are unusable; an enabled isolation with a problem starts nothing.
    problem: str | None = None


def instance_root(home: Path) -> Path:
    """PicoClaw's `config.GetHome()` for the user whose home is `home`."""
    return Path(os.environ.get("PICOCLAW_HOME") or home / ".picoclaw")


def mount_plan(root: Path, exposed: Sequence[Mount]) -> list[Mount]:
    """The instance root and the system paths, then `exposed`, one rule per target (a later
    rule replaces an earlier one in place)."""
    rules = [Mount(str(root), str(root), "rw")]
    rules += [Mount(p, p, "ro") for p in SYSTEM_PATHS if os.path.exists(p)]
    plan: dict[str, Mount] = {}
    for rule in [*rules, *exposed]:
        plan[os.path.normpath(rule.target)] = rule
    return list(plan.values())


def _ensure(plan: list[Mount], source: str, mode: str) -> None:
    """Add `source` at the same place unless a rule already owns that target."""
    target = os.path.normpath(source)
    if all(os.path.normpath(rule.target) != target for rule in plan):
        plan.append(Mount(target, target, mode))


def _argument_mounts(plan: list[Mount], args: Sequence[str]) -> None:
    for arg in args:
        value = arg if os.path.isabs(arg) else arg.partition("=")[2] if "=" in arg[1:] else ""
        if not os.path.isabs(value):
            continue
        path = os.path.normpath(value)
        if os.path.exists(path):
            mode = "rw" if os.path.isdir(path) else "ro"
            _ensure(plan, path, mode)
            resolved = os.path.realpath(path)
            if resolved != path:
                _ensure(plan, resolved, mode)
        elif os.path.dirname(path) != path and os.path.exists(os.path.dirname(path)):
            _ensure(plan, os.path.dirname(path), "rw")


def _command_path(command: str, workdir: str | None) -> tuple[str, str]:
    """How PicoClaw runs `command`: (the path bwrap executes, the resolved file)."""
    if os.sep not in command:
        found = shutil.which(command)
        if found is None:
            raise IsolationError(f"cannot start {command!r}: not found on PATH")
        return found, os.path.normpath(found)
    if os.path.isabs(command):
        return command, os.path.normpath(command)
    resolved = os.path.normpath(os.path.join(workdir or os.getcwd(), command))
    return resolved, resolved


def sandbox(
    argv: Sequence[str],
    cwd: str | None,
    env: Mapping[str, str],
    isolation: Isolation,
) -> tuple[list[str], str | None, dict[str, str]]:
    """`argv` wrapped in bubblewrap as PicoClaw wraps it, with the working directory and the
    environment to start it with; raises IsolationError when it cannot be."""
    if isolation.problem:
        raise IsolationError(f"isolation settings are invalid: {isolation.problem}")
    if not sys.platform.startswith("linux"):
        raise IsolationError(f"hook process isolation is not supported on {sys.platform}")
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise IsolationError(
            "isolation requires bubblewrap (bwrap), which is not installed, and does not fall "
            f"back to running the hook unisolated; install it ({INSTALL_HINT}) or set "
            '"isolation": {"enabled": false} in config.json'
        )
    root = isolation.root or instance_root(user_home())
    for folder in (root, *(root / d for d in INSTANCE_DIRS)):
        folder.mkdir(parents=True, exist_ok=True)
    for sub in USER_ENV.values():
        (root / "runtime-user-env" / sub).mkdir(parents=True, exist_ok=True)
    workdir = os.path.abspath(cwd) if cwd else None
    relative = not os.path.isabs(argv[0]) and os.sep in argv[0]
    exec_dir = workdir or (os.getcwd() if relative else None)
    exec_path, resolved = _command_path(argv[0], exec_dir)
    plan = mount_plan(root, isolation.expose_paths)
    for path in dict.fromkeys([resolved, os.path.realpath(resolved)]):
        _ensure(plan, path, "ro")
        _ensure(plan, os.path.dirname(path), "ro")
    if exec_dir is not None:
        _ensure(plan, exec_dir, "rw")
        _ensure(plan, os.path.realpath(exec_dir), "rw")
    _argument_mounts(plan, argv[1:])
    args = [bwrap, "--die-with-parent", "--unshare-ipc", "--proc", "/proc", "--dev", "/dev"]
    for rule in plan:
        if not os.path.exists(rule.source):
            raise IsolationError(f"isolation mount source {rule.source} does not exist")
        args += ["--bind" if rule.mode == "rw" else "--ro-bind", rule.source, rule.target]
    if exec_dir is not None:
        args += ["--chdir", exec_dir]
    user_env = {key: str(root / "runtime-user-env" / sub) for key, sub in USER_ENV.items()}
    return [*args, "--", exec_path, *argv[1:]], None, {**env, **user_env}
