"""The fallback (no daemon can ever be reached: the quick client answers in its own process)
answers every event as the daemon does: byte for byte the same stdout and exit code, what
Claude Code reads, for an allow, a deny, an ask, added context, no objection, an untrusted
folder (held back and said), a `hooks.yaml` that does not load, and the fail-closed policy
blocking on it. Each event goes through the installed command, run as Claude Code runs a
command hook, once with the daemon and once without.

Where they differ is stderr, and on purpose: a failed answer's line is prefixed with why no
daemon answered, and the warnings the daemon writes to its log (hooks held back in an
untrusted folder) go to the fallback's stderr, which Claude Code does not read on exit 0."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.hosts.project import hook_input, run_installed
from tests.hosts.test_daemon import installed

HOOKS_YAML = """\
hooks:
  - name: guard
    event: PreToolUse
    call: guard:guard
  - name: rules
    event: UserPromptSubmit
    call: guard:rules
"""
#: One guard per decision; each run is written to `ran` (the hook's own effect).
GUARD_PY = """\
from pathlib import Path
from hookwright import add_context, allow, ask, deny


def guard(inp):
    command = str((inp.tool_input or {{}}).get("command", ""))
    with open({ran!r}, "a") as out:
        out.write(command + "\\n")
    if "rm -rf" in command:
        return deny("rm -rf is not allowed here")
    if command.startswith("sudo "):
        return ask("sudo needs a person")
    if command == "ls":
        return allow("listing is fine")


def rules(inp):
    return add_context("HOUSE-RULES: answer in one line.")
"""
BROKEN_YAML = "hooks:\n  - name: guard\n    event: PreToolUse\n    call: [not, a, call]\n"


@dataclass(frozen=True)
class Case:
    event: str
    fields: dict[str, Any] = field(default_factory=dict)
    trusted: bool = True
    broken: bool = False
    closed: bool = False


def bash(command: str) -> dict[str, Any]:
    return {"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "toolu_01"}


CASES = {
    "deny": Case("PreToolUse", bash("rm -rf build")),
    "allow": Case("PreToolUse", bash("ls")),
    "ask": Case("PreToolUse", bash("sudo ls")),
    "no objection": Case("PreToolUse", bash("echo hi")),
    "context": Case("UserPromptSubmit", {"prompt": "hi"}),
    "untrusted session start": Case("SessionStart", {"source": "startup"}, trusted=False),
    "untrusted gate": Case("PreToolUse", bash("rm -rf build"), trusted=False),
    "broken config at session start": Case("SessionStart", {"source": "startup"}, broken=True),
    "broken config at a gate": Case("PreToolUse", bash("rm -rf build"), broken=True),
    "broken config, fail closed": Case("PreToolUse", bash("ls"), broken=True, closed=True),
}


def project_for(root: Path, ran: Path, case: Case) -> Path:
    (root / ".hookwright").mkdir(parents=True)
    (root / ".hookwright" / "hooks.yaml").write_text(BROKEN_YAML if case.broken else HOOKS_YAML)
    (root / ".hookwright" / "guard.py").write_text(GUARD_PY.format(ran=str(ran)))
    if case.closed:
        policy = Path.home() / ".hookwright" / "policy.yaml"
        policy.parent.mkdir(exist_ok=True)
        policy.write_text("rules:\n  - fail: closed\n")
    return root


def answer(command: str, stdin: bytes, project: Path) -> tuple[int, bytes, bytes]:
    done: subprocess.CompletedProcess[bytes] = run_installed(command, stdin, project)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("name", list(CASES))
def test_the_fallback_answers_as_the_daemon_does(
    name: str, tmp_path: Path, runtime_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = CASES[name]
    ran = tmp_path / "ran.txt"
    project = project_for(tmp_path / "project", ran, case)
    command = installed(project, "command", trusted=case.trusted)[case.event]["command"]
    stdin = hook_input(project, case.event, **case.fields)
    by_daemon = answer(command, stdin, project)
    assert list(runtime_dir.glob("*/daemon.pid")), "the daemon answered"
    unreachable = runtime_dir / ("r" * 100)
    unreachable.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(unreachable))
    assert os.environ["XDG_RUNTIME_DIR"] == str(unreachable)
    in_process = answer(command, stdin, project)
    assert in_process[:2] == by_daemon[:2]
    if by_daemon[0] == 0:
        assert by_daemon[2] == b""
        assert all(b"not run: untrusted" in line for line in in_process[2].splitlines())
    else:
        assert in_process[2].endswith(by_daemon[2]) and by_daemon[2].count(b"\n") == 1
    assert not list(unreachable.iterdir())  # answered here: no daemon was started or asked
    runs = ran.read_text().splitlines() if ran.exists() else []
    expected_runs = 2 if case.trusted and not case.broken and case.event == "PreToolUse" else 0
    assert len(runs) == expected_runs
    check_effect(name, *in_process)


def output(stdout: bytes) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(stdout)
    return value


def check_effect(name: str, code: int, stdout: bytes, stderr: bytes) -> None:
    """What each answer must say, beyond being the daemon's."""
    if name in ("deny", "allow", "ask"):
        decision = output(stdout)["hookSpecificOutput"]["permissionDecision"]
        assert (code, decision) == (0, name)
    elif name in ("no objection", "untrusted gate"):
        assert (code, output(stdout)) == (0, {})
    elif name == "context":
        context = output(stdout)["hookSpecificOutput"]["additionalContext"]
        assert context == "HOUSE-RULES: answer in one line."
    elif name == "untrusted session start":
        assert "hookwright trust" in output(stdout)["systemMessage"]
    elif name == "broken config at session start":
        assert "did not load" in output(stdout)["systemMessage"]
    elif name == "broken config at a gate":
        assert code == 1 and stdout == b"" and b"did not load" in stderr
    else:
        hook = output(stdout)["hookSpecificOutput"]
        assert (
            hook["permissionDecision"] == "deny"
            and "fails it closed" in hook["permissionDecisionReason"]
        )
