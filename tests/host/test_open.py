"""The host API on a real project: `HookSession.open` and `SyncHookSession`, with real hook
files, real hook processes and the trust store in a temporary HOME. Each test asserts what the
host would do (the decision it applies) and what the hook code saw or did."""

from __future__ import annotations

import asyncio
import json
import stat
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from hookwright.config.trust import TrustPolicy, TrustStore
from hookwright.host import (
    Deny,
    HookSession,
    Run,
    SessionIdentity,
    SyncHookSession,
    ToolAlias,
    ToolMap,
)

HOOKPROC = Path(__file__).parent.parent / "picoclaw" / "hookproc.py"
TRUST_ALL = TrustPolicy(everything=True)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def guarded_project(root: Path) -> Path:
    """A Claude Code command hook denying `rm`, and a native hook module that leaves a marker
    when imported and reads the host's objects."""
    script = write(
        root / ".claude" / "hooks" / "no_rm.py",
        "import json, sys\n"
        "data = json.load(sys.stdin)\n"
        "open(sys.argv[1], 'a').write(json.dumps(data['tool_input']) + '\\n')\n"
        "if data['tool_input'].get('command', '').startswith('rm'):\n"
        "    print('rm is not allowed here', file=sys.stderr)\n"
        "    sys.exit(2)\n",
    )
    command = f"{sys.executable} {script} {root / 'cc-saw.jsonl'}"
    settings = {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]
        }
    }
    write(root / ".claude" / "settings.json", json.dumps(settings))
    write(
        root / ".hookwright" / "guards.py",
        "from pathlib import Path\n"
        f"Path({str(root / 'imported')!r}).write_text('yes')\n"
        "def note_db(inp):\n"
        "    db = inp.host_objects.get('db')\n"
        f"    Path({str(root / 'db-seen')!r}).write_text(repr(db))\n",
    )
    write(
        root / ".hookwright" / "hooks.yaml",
        "hooks:\n  - name: db\n    event: PreToolUse\n    call: guards:note_db\n",
    )
    return root


async def test_an_untrusted_project_binds_nothing_and_runs_nothing(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = guarded_project(tmp_path / "p")
    async with await HookSession.open(project, home=isolated_home) as hooks:
        decision = await hooks.before_tool("Bash", {"command": "rm -rf /"}, "c1")
        assert decision.action == Run("Bash", {"command": "rm -rf /"})
        assert {h.dialect for h in hooks.untrusted} == {"claude_code", "native"}
        assert any("not trusted" in line for line in hooks.diagnostics)
    assert not (project / "imported").exists()
    assert not (project / "cc-saw.jsonl").exists()


async def test_a_trusted_project_denies_with_the_hooks_reason(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = guarded_project(tmp_path / "p")
    TrustStore(isolated_home).trust(project)
    lock = threading.Lock()
    async with await HookSession.open(
        project, home=isolated_home, host_objects={"db": lock}
    ) as hooks:
        decision = await hooks.before_tool("Bash", {"command": "rm -rf /"}, "c1")
    assert isinstance(decision.action, Deny)
    assert "rm is not allowed here" in decision.action.message
    assert (project / "imported").read_text() == "yes"
    assert (project / "db-seen").read_text() == repr(lock)
    assert json.loads((project / "cc-saw.jsonl").read_text()) == {"command": "rm -rf /"}


async def test_dialects_can_be_left_out(tmp_path: Path, isolated_home: Path) -> None:
    project = guarded_project(tmp_path / "p")
    async with await HookSession.open(
        project, home=isolated_home, trust=TRUST_ALL, exclude_dialects={"claude_code"}
    ) as hooks:
        decision = await hooks.before_tool("Bash", {"command": "rm -rf /"}, "c1")
        assert isinstance(decision.action, Run)
        assert {spec.dialect for spec in hooks.engine.hooks()} == {"native"}
    async with await HookSession.open(
        project, home=isolated_home, trust=TRUST_ALL, dialects={"claude_code", "nonsense"}
    ) as hooks:
        assert any("unknown dialect nonsense" in line for line in hooks.diagnostics)
        assert {spec.dialect for spec in hooks.engine.hooks()} == {"claude_code"}


async def test_a_framework_tool_is_seen_by_hooks_as_bash(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = guarded_project(tmp_path / "p")
    async with await HookSession.open(
        project, home=isolated_home, trust=TRUST_ALL, host_tools=["run_shell"]
    ) as unmapped:
        assert any("matches none of this host's tools" in d for d in unmapped.diagnostics)
    tool_map = ToolMap([ToolAlias("run_shell", "Bash", {"cmd": "command"})])
    async with await HookSession.open(
        project, home=isolated_home, trust=TRUST_ALL, tool_map=tool_map, host_tools=["run_shell"]
    ) as hooks:
        assert not any("matches none" in d for d in hooks.diagnostics)
        denied = await hooks.before_tool("run_shell", {"cmd": "rm -rf /"}, "c1")
        allowed = await hooks.before_tool("run_shell", {"cmd": "ls"}, "c2")
    assert isinstance(denied.action, Deny)
    assert allowed.action == Run("run_shell", {"cmd": "ls"})
    seen = [json.loads(line) for line in (project / "cc-saw.jsonl").read_text().splitlines()]
    assert seen == [{"command": "rm -rf /"}, {"command": "ls"}]


async def test_the_audit_file_is_opt_in(tmp_path: Path, isolated_home: Path) -> None:
    project = guarded_project(tmp_path / "p")
    async with await HookSession.open(project, home=isolated_home, trust=TRUST_ALL) as hooks:
        await hooks.before_tool("Bash", {"command": "ls"}, "c1")
    assert not (isolated_home / ".hookwright" / "audit.jsonl").exists()
    audit = tmp_path / "audit.jsonl"
    async with await HookSession.open(
        project, home=isolated_home, trust=TRUST_ALL, audit_path=audit
    ) as hooks:
        await hooks.before_tool("Bash", {"command": "ls"}, "c1")
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    assert {r["event"] for r in records} == {"PreToolUse"} and len(records) == 2


def observer_project(root: Path, log: Path) -> Path:
    spec = json.dumps({"methods": {}})
    config = {
        "hooks": {
            "enabled": True,
            "processes": {
                "watcher": {
                    "command": [sys.executable, str(HOOKPROC)],
                    "env": {"HOOKPROC_LOG": str(log), "HOOKPROC_SPEC": spec},
                    "observe": ["agent.turn.start", "agent.turn.end"],
                }
            },
        }
    }
    write(root / ".picoclaw" / "config.json", json.dumps(config))
    return root


def logged(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


async def test_hook_processes_start_with_the_session_and_see_the_last_event(
    tmp_path: Path, isolated_home: Path
) -> None:
    log = tmp_path / "watcher.jsonl"
    project = observer_project(tmp_path / "p", log)
    hooks = await HookSession.open(project, home=isolated_home, trust=TRUST_ALL)
    async with hooks:
        assert "hook.hello" in [m.get("method") for m in logged(log)]
        hooks.observe("agent.turn.start", {"UserMessage": "first", "MediaCount": 0})
        hooks.observe("agent.turn.end", {"Status": "completed", "FinalContent": "last"})
    kinds = [m["params"]["Kind"] for m in logged(log) if m.get("method") == "hook.event"]
    assert kinds == [0, 1]  # turn_start, turn_end as PicoClaw v0.2.6 numbered them


def test_the_sync_session_works_from_a_thread_with_a_running_loop(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = guarded_project(tmp_path / "p")

    async def host_tool() -> Any:
        # A framework's sync tool wrapper called while the framework's loop runs.
        with SyncHookSession.open(project, home=isolated_home, trust=TRUST_ALL) as hooks:
            return hooks.before_tool("Bash", {"command": "rm -rf /"}, "c1")

    decision = asyncio.run(host_tool())
    assert isinstance(decision.action, Deny)
    assert "rm is not allowed here" in decision.action.message


def test_the_sync_session_fails_closed_when_it_cannot_dispatch(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = guarded_project(tmp_path / "p")
    hooks = SyncHookSession.open(project, home=isolated_home, trust=TRUST_ALL)
    try:
        inside = asyncio.run_coroutine_threadsafe(
            _call_from_loop(hooks), hooks._runner.loop
        ).result(30)
    finally:
        hooks.close()
    assert isinstance(inside.action, Deny) and "own event loop" in inside.action.message
    after = hooks.before_tool("Bash", {"command": "ls"}, "c2")
    assert isinstance(after.action, Deny) and "session closed" in after.action.message
    assert hooks.prompt("hello").end is not None
    assert hooks.permission("Bash", {}, "c3", prompt=True).behavior == "deny"


async def _call_from_loop(hooks: SyncHookSession) -> Any:
    return hooks.before_tool("Bash", {"command": "ls"}, "c1")


def test_the_session_identity_reaches_the_hooks(tmp_path: Path, isolated_home: Path) -> None:
    project = guarded_project(tmp_path / "p")
    seen = write(
        project / ".claude" / "hooks" / "seen.sh",
        f'#!/bin/sh\ncat > "{project / "stdin.json"}"\n',
    )
    seen.chmod(seen.stat().st_mode | stat.S_IEXEC)
    settings = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": str(seen)}]}]}}
    write(project / ".claude" / "settings.local.json", json.dumps(settings))
    identity = SessionIdentity(session_id="host-session-1", transcript_path="/t.jsonl")
    with SyncHookSession.open(
        project, home=isolated_home, trust=TRUST_ALL, identity=identity
    ) as hooks:
        hooks.start("startup")
    data = json.loads((project / "stdin.json").read_text())
    assert data["session_id"] == "host-session-1"
    assert data["cwd"] == str(project.resolve())
    assert data["hook_event_name"] == "SessionStart"


@pytest.mark.parametrize("name", ["HookSession", "SyncHookSession", "ToolMap", "Run"])
def test_the_host_api_is_exported_from_the_package(name: str) -> None:
    import hookwright
    import hookwright.host

    assert getattr(hookwright, name) is getattr(hookwright.host, name)
