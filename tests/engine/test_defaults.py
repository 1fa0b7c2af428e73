"""What a bare `HookEngine()` is built with: the kernel names no concrete runner or monitor,
the composition root (`hookwright.wiring`, installed by the package root) supplies them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hookwright.core.events import Event, HookInput
from hookwright.core.results import Verdict
from hookwright.core.spec import HookSpec
from hookwright.engine.kernel import HookEngine
from hookwright.engine.monitoring import DispatchMonitor
from hookwright.monitor.audit import AuditLog

#: Run in a fresh interpreter that imports the kernel module and nothing else of hookwright
#: by name: one Claude Code command hook, a Python script, dispatched by a bare engine.
BARE_ENGINE = """
import json, sys
from pathlib import Path
from hookwright.engine.kernel import HookEngine
from hookwright.config.trust import TrustPolicy
from hookwright.core.events import Event, HookInput
from hookwright.dialects import LoadContext, discover

project = Path(sys.argv[1])
engine = HookEngine()
loaded = discover(LoadContext(project_dir=project, home=project / "home"))
for spec in loaded.bind(TrustPolicy(everything=True)).specs:
    engine.register(spec)
payload = {"tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": str(project)}
verdict = engine.dispatch_sync(HookInput(Event.PreToolUse, session_id="s", payload=payload))
forked = engine.services.warm_python.forked
engine.close()
print(json.dumps({"reason": verdict.reason, "forked": forked}))
"""

HOOK = (
    "import json, sys\n"
    "json.load(sys.stdin)\n"
    "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
    "    'permissionDecision': 'deny', 'permissionDecisionReason': 'not ls'}}))\n"
)


def project_with_python_hook(root: Path) -> Path:
    project = root / "project"
    (project / ".claude").mkdir(parents=True)
    (project / "hook.py").write_text(HOOK)
    command = f'"{sys.executable}" "{project / "hook.py"}"'
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]
    }
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return project


def test_a_bare_engine_from_the_kernel_module_forks_python_hooks_warm_and_audits(
    tmp_path: Path,
) -> None:
    project = project_with_python_hook(tmp_path)
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKWRIGHT_")}
    done = subprocess.run(
        [sys.executable, "-c", BARE_ENGINE, str(project)],
        env={**env, "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer == {"reason": "not ls", "forked": 1}
    records = (home / ".hookwright" / "audit.jsonl").read_text().splitlines()
    assert [json.loads(line)["decision"] for line in records] == ["deny"]


#: A bare engine that dispatches an in-process hook, then prints whether the warm runner's
#: module was loaded; one that is closed before its first launch is made closed.
NOTHING_WARM = """
import asyncio, json, os, sys
from hookwright import allow
from hookwright.engine.kernel import HookEngine
from hookwright.core.events import Event, HookInput

engine = HookEngine(audit_path=None)
engine.on(Event.PreToolUse)(lambda inp: allow())
engine.dispatch_sync(HookInput(Event.PreToolUse, session_id="s", payload={"tool_name": "Bash"}))
loaded = "hookwright.transports.warm" in sys.modules
warm = engine.services.warm_python
engine.close()
args = [sys.executable, "-c", "pass"]
launched = asyncio.run(warm.launch(args, shell=False, env=dict(os.environ), cwd=None))
print(json.dumps({"loaded": loaded, "launched": launched is not None, "forked": warm.forked}))
"""


def test_the_warm_runner_is_made_at_its_first_launch_and_forks_nothing_once_closed() -> None:
    done = subprocess.run(
        [sys.executable, "-c", NOTHING_WARM], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"loaded": False, "launched": False, "forked": 0}


class Counting:
    """A host's own monitor wrapping the engine's."""

    def __init__(self, inner: DispatchMonitor) -> None:
        self.inner = inner
        self.dispatches = 0

    def before(self, inp: HookInput, registered: dict[Event, list[HookSpec]]) -> int:
        self.dispatches += 1
        return self.inner.before(inp, registered)

    def after(self, inp: HookInput, verdict: Verdict, mark: int) -> None:
        self.inner.after(inp, verdict, mark)


def test_a_replaced_audit_is_written_by_the_default_monitor_inside_a_wrapper(
    tmp_path: Path,
) -> None:
    engine = HookEngine(audit_path=None)
    wrapper = Counting(engine.monitor)
    engine.monitor = wrapper
    path = tmp_path / "audit.jsonl"
    engine.audit = AuditLog(path)
    engine.add(lambda inp: None, Event.Stop, name="quiet")
    engine.dispatch_sync(HookInput(Event.Stop, session_id="s"))
    engine.close()
    assert wrapper.dispatches == 1
    assert [json.loads(line)["hook"] for line in path.read_text().splitlines()] == ["quiet"]


class Quiet:
    """A monitor with nothing to watch: `before` says so."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def before(self, inp: HookInput, registered: dict[Event, list[HookSpec]]) -> int | None:
        self.calls.append("before")
        return None

    def after(self, inp: HookInput, verdict: Verdict, mark: int) -> None:
        self.calls.append("after")


async def test_a_monitor_that_watches_nothing_is_not_called_at_the_end() -> None:
    engine = HookEngine(audit_path=None)
    quiet = Quiet()
    engine.monitor = quiet
    engine.add(lambda inp: None, Event.Stop, name="quiet")
    engine.dispatch_sync(HookInput(Event.Stop, session_id="s"))
    await engine.dispatch(HookInput(Event.Stop, session_id="s"))
    await engine.aclose()
    assert quiet.calls == ["before", "before"]


def test_an_audit_callback_added_after_dispatches_receives_the_next_runs() -> None:
    """An engine without an audit file skips the end of its dispatches until a callback
    makes its audit record something."""
    engine = HookEngine(audit_path=None)
    engine.add(lambda inp: None, Event.Stop, name="quiet")
    engine.dispatch_sync(HookInput(Event.Stop, session_id="before"))
    records: list[str | None] = []
    engine.add_audit_callback(lambda record: records.append(record.session_id))
    engine.dispatch_sync(HookInput(Event.Stop, session_id="after"))
    engine.close()
    assert records == ["after"]
