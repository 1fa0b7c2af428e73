"""A hook that cannot be started is that hook's failure, never an empty answer that allows.

Each test lowers a resource limit in a child process of its own (the test process keeps its
limits), runs command hooks through a real entry point and reads what the child reports.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HOOK_SCRIPT = "import json, sys\njson.load(sys.stdin)\nprint('{}')\n"

#: Runs in the child: opens the project's Claude Code hooks with `on_error: block` (the
#: fail-closed tier), drops to an unprivileged user when root (the kernel exempts root from
#: RLIMIT_NPROC), lowers the process limit to 1 and asks for a Bash call.
NPROC_CHILD = """
import asyncio, concurrent.futures.thread, dataclasses, json, os, resource, sys
from pathlib import Path
from hookwright import Event
from hookwright.config.loading import LoadContext, discover
from hookwright.config.trust import TrustPolicy
from hookwright.engine.kernel import HookEngine
from hookwright.host.decisions import Deny
from hookwright.host.session import HookSession

async def main() -> None:
    project, home = Path(sys.argv[1]), Path(sys.argv[2])
    engine = HookEngine(audit_path=None)
    bound = discover(LoadContext(project, home, [])).bind(TrustPolicy(everything=True))
    for spec in bound.specs:
        engine.register(dataclasses.replace(spec, on_error="block"))
    session = HookSession(engine)
    if os.geteuid() == 0:
        os.setgid(65534)
        os.setuid(65534)
    resource.setrlimit(resource.RLIMIT_NPROC, (1, 1))
    verdict = await session.fire(Event.PreToolUse, tool_name="Bash", tool_input={"command": "ls"})
    decision = await session.before_tool("Bash", {"command": "ls"}, "call-1")
    print(json.dumps({
        "denied": isinstance(decision.action, Deny),
        "errors": [[r.status.value, r.error] for r in verdict.results],
    }), flush=True)
    os._exit(0)

asyncio.run(main())
"""

#: Runs in the child: N hook runs, each with every descriptor but `spare` taken, for spare
#: from 0 up (each allocation of a spawn or warm fork fails in turn), then the fd count.
FD_CHILD = """
import asyncio, json, os, resource, sys
from pathlib import Path
from hookwright import Event
from hookwright.config.trust import TrustPolicy
from hookwright.host.session import HookSession
from hookwright.monitor.audit import default_audit_path

def count() -> int:
    # Open descriptors but the audit file's, which the audit's writer keeps open while
    # records keep coming (one at most, closed when its queue runs empty).
    audit, seen = str(default_audit_path()), 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            seen += os.readlink(f"/proc/self/fd/{fd}") != audit
        except OSError:
            seen += 1
    return seen

def take_all_but(spare: int) -> list[int]:
    taken = []
    try:
        while True:
            taken.append(os.open("/dev/null", os.O_RDONLY))
    except OSError:
        pass
    for fd in taken[len(taken) - spare:]:
        os.close(fd)
    return taken[: len(taken) - spare]

async def main() -> None:
    project, home = Path(sys.argv[1]), Path(sys.argv[2])
    session = await HookSession.open(project, home=home, trust=TrustPolicy(everything=True))
    async with session:
        for i in range(3):
            await session.fire(Event.PreToolUse, tool_name="Bash", tool_input={"command": "ls"})
        base, errors = count(), []
        for spare in range(14):
            for _ in range(3):
                taken = take_all_but(spare)
                try:
                    verdict = await session.fire(
                        Event.PreToolUse, tool_name="Bash", tool_input={"command": "ls"}
                    )
                finally:
                    for fd in taken:
                        os.close(fd)
                errors += [r.error for r in verdict.results if r.status.value != "ok"]
                await asyncio.sleep(0.02)
        report = {"base": base, "after": count(), "errors": errors,
                  "forked": session.engine.services.warm_python.forked}
    print(json.dumps(report), flush=True)

resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
asyncio.run(main())
"""


def write_project(root: Path) -> Path:
    """A project with two Bash guards: a Python script (forked warm) and a shell command."""
    project = root / "project"
    (project / ".claude").mkdir(parents=True)
    script = project / "guard.py"
    script.write_text(HOOK_SCRIPT)
    hooks = [
        {"type": "command", "command": f"{os.path.realpath(sys.executable)} {script}"},
        {"type": "command", "command": "echo '{}'"},
    ]
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    return project


def run_child(code: str, *args: str, env: dict[str, str] | None = None) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_hooks_test_under_a_descriptor_limit_reports_the_limit(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = write_project(tmp_path)
    payload = tmp_path / "input.json"
    payload.write_text(json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}}))
    limited = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (12, 12))\n"
        "from hookwright.cli.app import main\n"
        "sys.argv = ['hookwright', *sys.argv[1:]]\n"
        "main()\n"
    )
    args = ["hooks", "test", "PreToolUse", "-p", str(project), "-i", str(payload)]
    done = subprocess.run(
        [sys.executable, "-c", limited, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    verdict = json.loads(done.stdout)
    assert [hook["status"] for hook in verdict["hooks"]] == ["error", "error"]
    for hook in verdict["hooks"]:
        assert "RLIMIT_NOFILE" in hook["error"] and "EMFILE" in hook["error"], hook


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_failed_starts_release_every_descriptor(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(tmp_path)
    report = run_child(FD_CHILD, str(project), str(isolated_home))
    assert report["forked"], "the Python guard was not forked warm: the warm path is untested"
    errors = report["errors"]
    assert isinstance(errors, list) and errors, "no run failed: the limit was not reached"
    assert all("RLIMIT_NOFILE" in error for error in errors), errors
    # 42 runs, most of them failed at some allocation: none may keep a descriptor (the
    # warm runner's standby may hold one more or one less at any moment).
    assert isinstance(report["after"], int) and isinstance(report["base"], int)
    assert report["after"] <= report["base"] + 1, report


def test_a_process_limit_blocks_a_fail_closed_guard(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(tmp_path)
    env = {**os.environ, "HOOKWRIGHT_WARM_PYTHON": "0"}
    report = run_child(NPROC_CHILD, str(project), str(isolated_home), env=env)
    assert report["denied"] is True
    errors = report["errors"]
    assert isinstance(errors, list) and len(errors) == 2
    for status, error in errors:
        assert status == "error"
        assert "RLIMIT_NPROC" in error and "EAGAIN" in error, error
