"""`make conformance-hosts`: real Claude Code governed by a project's non-Claude-Code hooks
after `hookwright install claude-code`, in each mode (`command`: the daemon's thin client;
`http`: http hooks to the daemon).

The project (tests/hosts/project.py) has an OpenHarness YAML hook that blocks `rm -rf` and a
Python hook that adds context to each prompt. The scripted model asks for `rm -rf build`; the
check is that the folder survives, the model got the OpenHarness reason as the tool result and
the Python hook's context with the prompt, and that uninstall leaves the settings as they were.
Then two failure scenarios, run in the interactive terminal (what a user sees by default; `-p`
prints no hook message without `--verbose`):

* untrusted: the project is installed but not trusted, under a user failure policy that fails
  every hook closed: `rm -rf build` must be blocked, and the screen must say the folder is not
  trusted and how to trust it.
* killed daemon (http mode, Claude Code 2.1.295+, installed with `onFailure: block`): the
  model asks, in one turn, for a command that kills the daemon and then `rm -rf build`. The
  refused connection of the `rm`'s PreToolUse hook must block it, and the screen must say so
  (`PreToolUse:Bash hook error: failed; blocking because onFailure is "block"`, with
  `connect ECONNREFUSED`). Claude Code 2.1.332 then ends the turn: the PostToolBatch hook's
  failure "stopped Claude", so the model is not asked again (a script that puts the `rm` in
  a later turn never reaches it, and the session waits at its prompt).

`--claude-version` picks the Claude Code installed from npm into a temporary folder
(`--claude PATH` uses one already installed). Prints SKIP and exits 0 when Claude Code is
unavailable."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.hosts.project import make_project

from conformance.__main__ import claude_code
from conformance.fake_api import FakeAnthropic, ToolUse, Turn
from conformance.harness import MODEL
from conformance.npm_cli import Unavailable, installed
from conformance.terminal import screen_of

RUN_TIMEOUT = 180
VERSIONS = ("2.1.240", "2.1.332")
#: The first Claude Code with `onFailure` on settings hooks.
ON_FAILURE_SINCE = (2, 1, 295)
DONE_TEXT = "ALL-DONE-NOW"
API_KEY = "sk-ant-conformance-0123456789abcdefghij"


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
    front = "http_events" if mode == "http" else "unix_events"
    deadline = time.monotonic() + 5  # an http worker reports its count within a second
    while True:
        text = hookwright(home, "daemon", "status", "--json", check=False)
        status = json.loads(text or "null")
        if not isinstance(status, dict):
            return ["no daemon answered the hooks"]
        if status.get(front, 0) >= 2:
            return []
        if time.monotonic() > deadline:
            return [f"the daemon answered {status.get(front, 0)} event(s) through {front}"]
        time.sleep(0.5)


def prepare(
    root: Path, mode: str, version: str, *, trust: bool = True, policy: str | None = None
) -> tuple[Path, Path]:
    home, project = root / "home", make_project(root / "project")
    (home / ".claude").mkdir(parents=True)
    trusted = {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
    state = {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        "bypassPermissionsModeAccepted": True,
        "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []},
        "projects": {str(project): trusted},
    }
    (home / ".claude.json").write_text(json.dumps(state))
    (home / ".claude" / "settings.json").write_text('{"skipDangerousModePermissionPrompt": true}')
    (project / "build").mkdir()
    (project / "build" / "keep.txt").write_text("kept")
    if policy is not None:
        (home / ".hookwright").mkdir(exist_ok=True)
        (home / ".hookwright" / "policy.yaml").write_text(policy)
    if trust:
        hookwright(home, "trust", str(project))
    hookwright(
        home, "install", "claude-code", "--project", str(project), "--mode", mode,
        "--claude-code-version", version,
    )  # fmt: skip
    return home, project


def claude_env(fake: FakeAnthropic, home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_RUNTIME_DIR": runtime(home),
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
        "ANTHROPIC_BASE_URL": fake.base_url,
        "ANTHROPIC_API_KEY": API_KEY,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "IS_SANDBOX": "1",
    }


def run_interactive(
    claude: Path,
    fake: FakeAnthropic,
    home: Path,
    project: Path,
    turns: list[Turn],
    until: str = DONE_TEXT,
) -> str:
    """Claude Code in a terminal, the model answering with `turns` then `DONE_TEXT`; the
    screen's text once `until` showed."""
    fake.load([*turns, Turn(DONE_TEXT)])
    command = [str(claude), "--model", MODEL, "--dangerously-skip-permissions", "clean up"]
    return screen_of(command, project, claude_env(fake, home), until, RUN_TIMEOUT)


def run_claude(claude: Path, fake: FakeAnthropic, home: Path, project: Path) -> list[Any]:
    script = fake.load([Turn(tools=[RM]), Turn("done")])
    env = claude_env(fake, home)
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


RM = ToolUse("toolu_rm", "Bash", {"command": "rm -rf build", "description": "clean"})


def run_mode(claude: Path, root: Path, mode: str, version: str) -> list[str]:
    """Install in `mode`, run Claude Code, uninstall; what went wrong. The daemon the hooks
    started is stopped."""
    home, project = prepare(root, mode, version)
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


CLOSED = "rules:\n  - fail: closed\n"


def run_untrusted(claude: Path, root: Path, mode: str, version: str) -> list[str]:
    """An installed, untrusted project under a fail-closed user policy."""
    home, project = prepare(root, mode, version, trust=False, policy=CLOSED)
    try:
        with FakeAnthropic() as fake:
            screen = run_interactive(claude, fake, home, project, [Turn(tools=[RM])])
        found = [] if (project / "build" / "keep.txt").exists() else ["rm -rf ran: build/ is gone"]
        if f"hookwright trust {project}" not in " ".join(screen.split()):
            found.append("the screen never said the folder is not trusted and how to trust it")
        return kept_screen(found, screen)
    finally:
        hookwright(home, "daemon", "stop", check=False)


#: What Claude Code 2.1.332 shows when an `onFailure: "block"` hook's connection is refused:
#: the `rm`'s denial, the cause, and the turn stopped by the PostToolBatch hook.
BLOCKED_BY_FAILURE = 'PreToolUse:Bash hook error: failed; blocking because onFailure is "block"'
REFUSED = "connect ECONNREFUSED"
STOPPED = "PostToolBatch hook stopped Claude"


def run_killed_daemon(claude: Path, root: Path, version: str) -> list[str]:
    """http mode with onFailure block: one turn kills the daemon, then asks for `rm -rf`."""
    home, project = prepare(root, "http", version)
    kill = f"kill -9 $(cat {runtime(home)}/hookwright-*/daemon.pid)"
    tools = [ToolUse("toolu_kill", "Bash", {"command": kill, "description": "kill"}), RM]
    try:
        with FakeAnthropic() as fake:
            screen = run_interactive(claude, fake, home, project, [Turn(tools=tools)], STOPPED)
        found = [] if (project / "build" / "keep.txt").exists() else ["rm -rf ran: build/ is gone"]
        shown = " ".join(screen.split())
        for text in (BLOCKED_BY_FAILURE, REFUSED, STOPPED):
            if text not in shown:
                found.append(f"the screen never showed {text!r}")
        return kept_screen(found, screen)
    finally:
        hookwright(home, "daemon", "stop", check=False)


def kept_screen(found: list[str], screen: str) -> list[str]:
    """`found`, plus where the screen was saved when something was found."""
    if not found:
        return found
    handle, path = tempfile.mkstemp(prefix="hw-hosts-screen-", suffix=".txt")
    with os.fdopen(handle, "w") as out:
        out.write(screen)
    return [*found, f"the screen's text is in {path}"]


def scenarios(version: str) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = [
        (f"hosts ({m})", lambda c, r, m=m: run_mode(c, r, m, version)) for m in MODES
    ]
    found += [
        (f"untrusted ({m})", lambda c, r, m=m: run_untrusted(c, r, m, version)) for m in MODES
    ]
    if tuple(int(p) for p in version.split(".")) >= ON_FAILURE_SINCE:
        found.append(("killed daemon (http)", lambda c, r: run_killed_daemon(c, r, version)))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.hosts", description=__doc__)
    parser.add_argument("--claude-version", choices=VERSIONS, default=VERSIONS[0])
    parser.add_argument("--claude", default=os.environ.get("HOOKWRIGHT_CONFORMANCE_CLAUDE"))
    args = parser.parse_args(argv)
    version = args.claude_version
    failed = False
    try:
        with installed(claude_code(version), args.claude) as claude:
            for name, scenario in scenarios(version):
                root = Path(tempfile.mkdtemp(prefix="hw-hosts-")).resolve()
                try:
                    found = scenario(claude, root)
                finally:
                    shutil.rmtree(root, ignore_errors=True)
                for line in found:
                    print(f"FAIL {name} [{version}]: {line}")
                failed = failed or bool(found)
                if not found:
                    print(f"PASS {name} [{version}]")
            if tuple(int(p) for p in version.split(".")) < ON_FAILURE_SINCE:
                print(f"SKIP killed daemon (http) [{version}]: no onFailure before 2.1.295")
    except Unavailable as exc:
        print(f"SKIP hosts: {exc}")
        return 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
