"""The processes the command client starts on Claude Code's behalf (the in-process fallback,
the daemon) import nothing from the project, and the runtime folder another user squats is
passed over for a private one under `~/.hookwright/run`, where client and daemon still meet.
Everything through the real client, run as Claude Code runs a command hook."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.bounds import eventually
from tests.hosts.conftest import alive, reap
from tests.hosts.project import hook_input, make_project

from cli_runner import run_cli
from hookwright.bridges import claude_client
from hookwright.config.trust import TrustStore

#: Names a hostile repository plants where `-m` or `PYTHONPATH` would import them first.
PLANTED = (
    "hookwright/__init__.py",
    "json.py",
    "typing.py",
    "sitecustomize.py",
    "usercustomize.py",
    "pathlib.py",
    "typer/__init__.py",
    "yaml/__init__.py",
)
PLANT = """\
import os, sys
with open(os.path.join({markers!r}, {name!r}), "w") as out:
    out.write(" ".join(sys.argv))
"""
RM = {
    "tool_name": "Bash",
    "tool_input": {"command": "rm -rf build", "description": "clean"},
    "tool_use_id": "toolu_01",
}
DENY = {
    "hookEventName": "PreToolUse",
    "permissionDecision": "deny",
    "permissionDecisionReason": "rm -rf is not allowed here",
}
NOBODY = 65534


def hookwright(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(list(args), dict(os.environ), timeout=60)


def client_command(*install_args: str, settings: Path) -> str:
    done = hookwright("install", "claude-code", *install_args)
    assert done.returncode == 0, done.stderr
    hooks = json.loads(settings.read_text())["hooks"]
    command: str = hooks["PreToolUse"][0]["hooks"][0]["command"]
    return command


def as_claude_code(
    command: str, stdin: bytes, cwd: Path, **env: str
) -> subprocess.CompletedProcess[bytes]:
    """A command hook as Claude Code runs it: `sh -c`, in the folder, its variables set."""
    full = {**os.environ, **env}
    full.pop("HOOKWRIGHT_HOOK_RUN", None)
    return subprocess.run(
        ["sh", "-c", command], input=stdin, capture_output=True, cwd=cwd, env=full, timeout=120
    )


def hostile_repository(root: Path, markers: Path) -> Path:
    """A repository with hook folders (so an untrusted SessionStart has a notice to give) and
    modules that write a marker when imported."""
    markers.mkdir()
    for name in PLANTED:
        module = root / name
        module.parent.mkdir(parents=True, exist_ok=True)
        module.write_text(PLANT.format(markers=str(markers), name=name.replace("/", "_")))
    (root / ".hookwright").mkdir()
    (root / ".hookwright" / "hooks.yaml").write_text("hooks: []\n")
    return root


def untrusted_notice(project: Path) -> dict[str, Any]:
    return {
        "systemMessage": f"hookwright: the hooks of {project} did not run: the folder is not "
        f"trusted (trust it with: hookwright trust {project})"
    }


def block_runtime_folder() -> Path:
    """Make the daemon unreachable for good: its runtime folder is a file."""
    blocked = claude_client.runtime_dir(Path.home())
    blocked.rmdir()
    blocked.write_text("not a folder")
    return blocked


@pytest.mark.parametrize("install", ["project", "user"])
def test_fallback_imports_nothing_from_a_hostile_repository(tmp_path: Path, install: str) -> None:
    repo = hostile_repository(tmp_path / "repo", tmp_path / "markers")
    if install == "project":
        command = client_command(
            "--project", str(repo), settings=repo / ".claude" / "settings.local.json"
        )
        project_dir = str(repo)
    else:
        command = client_command("--user", settings=Path.home() / ".claude" / "settings.json")
        project_dir = "."
    blocked = block_runtime_folder()
    stdin = hook_input(repo, "SessionStart", source="startup")
    done = as_claude_code(
        command, stdin, repo, CLAUDE_PROJECT_DIR=project_dir, PYTHONPATH=f".:{repo}"
    )
    assert sorted(os.listdir(tmp_path / "markers")) == []
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == untrusted_notice(repo)
    assert blocked.is_file()


def test_daemon_started_by_the_client_imports_nothing_from_the_repository(
    tmp_path: Path,
) -> None:
    repo = hostile_repository(tmp_path / "repo", tmp_path / "markers")
    command = client_command(
        "--project", str(repo), settings=repo / ".claude" / "settings.local.json"
    )
    stdin = hook_input(repo, "SessionStart", source="startup")
    done = as_claude_code(command, stdin, repo, CLAUDE_PROJECT_DIR=str(repo), PYTHONPATH=str(repo))
    assert sorted(os.listdir(tmp_path / "markers")) == []
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == untrusted_notice(repo)
    pid = int((claude_client.runtime_dir(Path.home()) / "daemon.pid").read_text())
    assert os.readlink(f"/proc/{pid}/cwd") == claude_client.NEUTRAL_CWD
    argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    assert argv[1] == b"-I" and argv[-3:] == [b"daemon", b"serve", b""]


def test_a_trusted_project_answers_through_the_isolated_fallback(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    TrustStore(Path.home()).trust(project)
    command = client_command(
        "--project", str(project), settings=project / ".claude" / "settings.local.json"
    )
    block_runtime_folder()
    done = as_claude_code(
        command, hook_input(project, "PreToolUse", **RM), project, CLAUDE_PROJECT_DIR="."
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"] == DENY


@pytest.fixture
def shared_tmp(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A temporary folder every user may write to (like /tmp), as `TMPDIR`, with
    `XDG_RUNTIME_DIR` unset: the runtime folder is `TMPDIR/hookwright-UID`."""
    folder = Path(tempfile.mkdtemp(prefix="hwt-", dir="/tmp"))
    folder.chmod(0o1777)
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    try:
        yield folder
    finally:
        try:
            reap(Path.home() / ".hookwright" / "run")
            reap(folder / f"hookwright-{os.getuid()}")
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def squat_as_nobody(path: Path) -> None:
    """Create `path` as another user (uid 65534); skip when this process cannot be one."""
    if os.geteuid() != 0:
        pytest.skip("acting as another user needs root")
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            os.mkdir(path, 0o755)
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        pytest.skip("cannot create a folder as uid 65534 here")


def squat(path: Path, how: str, elsewhere: Path) -> str:
    """Squat `path` one way; the reason the client gives for passing it over."""
    if how == "other-user":
        squat_as_nobody(path)
        return f"is owned by uid {NOBODY}"
    if how == "symlink":
        elsewhere.mkdir()
        path.symlink_to(elsewhere)
        return "is a symbolic link"
    if how == "file":
        path.write_text("squatted")
        return "is not a directory"
    path.mkdir()
    path.chmod(0o777)
    return "is open to other users (mode 777)"


def fallback_socket(home: Path) -> Path:
    key = hashlib.sha256(str(home).encode()).hexdigest()[:12]
    return home / ".hookwright" / "run" / f"hookwright-{key}" / claude_client.SOCKET_NAME


@pytest.mark.parametrize("how", ["other-user", "symlink", "file", "open-mode"])
def test_squatted_temporary_folder_moves_the_daemon_under_home(
    tmp_path: Path, shared_tmp: Path, how: str
) -> None:
    squatted = shared_tmp / f"hookwright-{os.getuid()}"
    reason = squat(squatted, how, tmp_path / "elsewhere")
    project = make_project(tmp_path / "proj")
    TrustStore(Path.home()).trust(project)
    command = client_command(
        "--project", str(project), settings=project / ".claude" / "settings.local.json"
    )
    stdin = hook_input(project, "PreToolUse", **RM)
    first = as_claude_code(command, stdin, project, CLAUDE_PROJECT_DIR=str(project))
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["hookSpecificOutput"] == DENY
    fallback = claude_client.fallback_base(Path.home())
    assert first.stderr.decode() == f"hookwright: {squatted} {reason}; using {fallback} instead\n"
    sock = fallback_socket(Path.home())
    status = claude_client.exchange(sock, {"op": "status"}, b"", 30)
    pid = json.loads(status["stdout"])["pid"]
    assert alive(pid) and json.loads(status["stdout"])["socket"] == str(sock)
    assert fallback.stat().st_mode & 0o777 == 0o700
    again = as_claude_code(command, stdin, project, CLAUDE_PROJECT_DIR=str(project))
    assert json.loads(again.stdout)["hookSpecificOutput"] == DENY and again.stderr == b""
    if how == "symlink":
        assert os.listdir(tmp_path / "elsewhere") == []
    if how == "other-user":
        assert squatted.stat().st_uid == NOBODY and os.listdir(squatted) == []
    reap(fallback)
    assert eventually(lambda: not alive(pid))


def test_squatted_fallback_too_is_answered_in_process(tmp_path: Path, shared_tmp: Path) -> None:
    (shared_tmp / f"hookwright-{os.getuid()}").write_text("squatted")
    fallback = claude_client.fallback_base(Path.home())
    fallback.parent.mkdir()
    (tmp_path / "elsewhere").mkdir()
    fallback.symlink_to(tmp_path / "elsewhere")
    project = make_project(tmp_path / "proj")
    TrustStore(Path.home()).trust(project)
    command = client_command(
        "--project", str(project), settings=project / ".claude" / "settings.local.json"
    )
    done = as_claude_code(
        command, hook_input(project, "PreToolUse", **RM), project, CLAUDE_PROJECT_DIR="."
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"] == DENY
    assert os.listdir(tmp_path / "elsewhere") == []
