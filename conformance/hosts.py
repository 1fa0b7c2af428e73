"""`make conformance-hosts`: real Claude Code governed by a project's non-Claude-Code hooks
after `hookwright install claude-code`, in each mode (`command`: the daemon's thin client;
`http`: http hooks to the daemon).

The project (tests/hosts/project.py) has an OpenHarness YAML hook that blocks `rm -rf` and a
Python hook that adds context to each prompt. The scripted model asks for `rm -rf build`; the
check is that the folder survives, the model got the OpenHarness reason as the tool result and
the Python hook's context with the prompt, and that uninstall leaves the settings as they were.
Prints SKIP and exits 0 when Claude Code is unavailable."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.hosts.project import make_project

from conformance.__main__ import Unavailable, claude_binary
from conformance.fake_api import FakeAnthropic, ToolUse, Turn
from conformance.harness import MODEL

RUN_TIMEOUT = 180


MODES = ("command", "http")


def runtime(home: Path) -> str:
    """The daemon's runtime folder for this run: inside the run's folder, removed with it."""
    folder = home.parent / "run"
    folder.mkdir(mode=0o700, exist_ok=True)
    return str(folder)


def hookwright(home: Path, *args: str, check: bool = True) -> str:
    env = {**os.environ, "HOME": str(home), "XDG_RUNTIME_DIR": runtime(home)}
    command = [sys.executable, "-m", "hookwright", *args]
    done = subprocess.run(command, env=env, check=check, timeout=60, capture_output=True)
    return done.stdout.decode()


def daemon_problems(home: Path, mode: str) -> list[str]:
    """The events must have gone through the daemon, over http in http mode."""
    status = json.loads(hookwright(home, "daemon", "status", "--json", check=False) or "null")
    if not isinstance(status, dict):
        return ["no daemon answered the hooks"]
    front = "http_events" if mode == "http" else "unix_events"
    if status.get(front, 0) < 2:
        return [f"the daemon answered {status.get(front, 0)} event(s) through {front}"]
    return []


def prepare(root: Path, mode: str) -> tuple[Path, Path]:
    home, project = root / "home", make_project(root / "project")
    (home / ".claude").mkdir(parents=True)
    trusted = {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
    state = {"hasCompletedOnboarding": True, "projects": {str(project): trusted}}
    (home / ".claude.json").write_text(json.dumps(state))
    (project / "build").mkdir()
    (project / "build" / "keep.txt").write_text("kept")
    hookwright(home, "trust", str(project))
    hookwright(home, "install", "claude-code", "--project", str(project), "--mode", mode)
    return home, project


def run_claude(claude: Path, fake: FakeAnthropic, home: Path, project: Path) -> list[Any]:
    rm = ToolUse("toolu_rm", "Bash", {"command": "rm -rf build", "description": "clean"})
    script = fake.load([Turn(tools=[rm]), Turn("done")])
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_RUNTIME_DIR": runtime(home),
        "LANG": "C.UTF-8",
        "ANTHROPIC_BASE_URL": fake.base_url,
        "ANTHROPIC_API_KEY": "sk-ant-conformance",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "IS_SANDBOX": "1",
    }
    command = [str(claude), "-p", "clean up", "--model", MODEL, "--dangerously-skip-permissions"]
    subprocess.run(
        command, cwd=project, env=env, capture_output=True, timeout=RUN_TIMEOUT, check=False
    )
    return [r.body for r in script.requests if r.loop]


def problems(requests: list[Any], project: Path) -> list[str]:
    found = []
    if not (project / "build" / "keep.txt").exists():
        found.append("rm -rf ran: build/ is gone")
    text = json.dumps(requests)
    if "rm -rf is not allowed here" not in text:
        found.append("the model never saw the OpenHarness reason")
    if "HOUSE-RULES: answer in one line." not in text:
        found.append("the model never saw the Python hook's context")
    return found


def run_mode(claude: Path, root: Path, mode: str) -> list[str]:
    """Install in `mode`, run Claude Code, uninstall; what went wrong. The daemon the hooks
    started is stopped."""
    home, project = prepare(root, mode)
    try:
        shared = (project / ".claude" / "settings.json").read_bytes()
        with FakeAnthropic() as fake:
            found = problems(run_claude(claude, fake, home, project), project)
        found += daemon_problems(home, mode)
        hookwright(home, "uninstall", "claude-code", "--project", str(project))
        if (project / ".claude" / "settings.local.json").exists():
            found.append("uninstall left settings.local.json behind")
        if (project / ".claude" / "settings.json").read_bytes() != shared:
            found.append("the project's settings.json changed")
        return found
    finally:
        hookwright(home, "daemon", "stop", check=False)


def main() -> int:
    failed = False
    try:
        with claude_binary(os.environ.get("HOOKWRIGHT_CONFORMANCE_CLAUDE")) as claude:
            for mode in MODES:
                root = Path(tempfile.mkdtemp(prefix="hw-hosts-")).resolve()
                try:
                    found = run_mode(claude, root, mode)
                finally:
                    shutil.rmtree(root, ignore_errors=True)
                for line in found:
                    print(f"FAIL hosts ({mode}): {line}")
                failed = failed or bool(found)
                if not found:
                    print(
                        f"PASS hosts ({mode}): real Claude Code governed by OpenHarness and "
                        "Python hooks"
                    )
    except Unavailable as exc:
        print(f"SKIP hosts: {exc}")
        return 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
