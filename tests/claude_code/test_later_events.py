"""Claude Code's events newer than 2.1.240 (PreModelSwitch, PostModelSwitch,
PreSkillShellCommand) and `onFailure` (2.1.295+), keyed by the version profile: through
`hookwright hooks validate`, `hooks test --claude-code-version`, `hook claude-code` and
`hookwright run`, with real hook processes."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_hookwright
from hookwright.config.trust import TrustStore
from hookwright.dialects.claude_code.tables import SKILL_REWRITE_REFUSED

from .scripted_run import run_as, tool_result

NATIVE_YAML = """\
hooks:
  - name: gate
    event: {event}
    call: gate:answer
"""
GATE_PY = """\
from hookwright import HookResult, Decision

def answer(inp):
    return HookResult({fields})
"""
SKILL_INPUT = {
    "tool_name": "Bash",
    "tool_input": {"command": "git status"},
    "tool_use_id": "toolu_skill",
    "command_name": "review",
    "invoked_by": "user",
}
SWITCH_INPUT = {
    "from_model": "claude-opus-5",
    "to_model": "claude-sonnet-5",
    "requested_model": "sonnet",
    "source": "command",
    "context_tokens": 120000,
    "prompt_cache_warm": True,
    "cache_ttl": "5m",
    "estimated_cache_write_usd": 0.45,
    "pricing": "catalog",
}


def settings_project(root: Path, event: str, handler: dict[str, Any]) -> Path:
    (root / ".claude").mkdir(parents=True)
    hooks = {event: [{"hooks": [handler]}]}
    (root / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return root


def answering(root: Path, body: str) -> dict[str, str]:
    """A command hook that reads its input into `seen.json` and prints `body`."""
    script = root / "hook.py"
    script.write_text(
        "import sys, pathlib\n"
        f"pathlib.Path({str(root / 'seen.json')!r}).write_bytes(sys.stdin.buffer.read())\n"
        f"print({body!r})\n"
    )
    return {
        "type": "command",
        "command": f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}",
    }


@pytest.mark.parametrize(
    ("version", "warned"), [("2.1.240", True), ("2.1.295", True), ("2.1.332", False)]
)
def test_a_pre_skill_shell_command_hook_is_a_warning_naming_an_older_version(
    tmp_path: Path, isolated_home: Path, version: str, warned: bool
) -> None:
    project = settings_project(tmp_path / "p", "PreSkillShellCommand", answering(tmp_path, "{}"))
    TrustStore(isolated_home).trust(project)
    proc = run_hookwright(
        "hooks",
        "validate",
        "--project",
        str(project),
        home=isolated_home,
        env={"HOOKWRIGHT_CLAUDE_CODE_VERSION": version},
    )
    text = proc.stdout + proc.stderr
    expected = (
        f"PreSkillShellCommand is not an event of Claude Code {version}, the version this "
        "session imitates (Claude Code 2.1.332 has it); the hook never runs"
    )
    assert (expected in text) is warned, text


@pytest.mark.parametrize(
    ("body", "decision", "reason"),
    [
        (
            '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand",'
            '"permissionDecision":"allow"}}',
            None,
            None,
        ),
        (
            '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand",'
            '"permissionDecision":"ask","permissionDecisionReason":"MARK ask"}}',
            "deny",
            "MARK ask",
        ),
        (
            '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand",'
            '"permissionDecision":"defer"}}',
            "deny",
            "Blocked by hook",
        ),
        (
            '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand",'
            '"permissionDecision":"allow","updatedInput":{"command":"ls"}}}',
            "deny",
            SKILL_REWRITE_REFUSED,
        ),
        (
            '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","updatedInput":null}}',
            "deny",
            SKILL_REWRITE_REFUSED,
        ),
    ],
    ids=["allow-adds-nothing", "ask-stops", "defer-stops", "rewrite-blocks", "null-rewrite"],
)
def test_pre_skill_shell_command_answers_under_2_1_332(
    tmp_path: Path, isolated_home: Path, body: str, decision: str | None, reason: str | None
) -> None:
    project = settings_project(tmp_path / "p", "PreSkillShellCommand", answering(tmp_path, body))
    given = tmp_path / "input.json"
    given.write_text(json.dumps(SKILL_INPUT))
    proc = run_hookwright(
        "hooks",
        "test",
        "PreSkillShellCommand",
        "--project",
        str(project),
        "--input",
        str(given),
        "--claude-code-version",
        "2.1.332",
        home=isolated_home,
    )
    assert proc.returncode == 0, proc.stderr
    verdict = json.loads(proc.stdout)
    assert (verdict["decision"], verdict.get("reason")) == (decision, reason)
    seen = json.loads((tmp_path / "seen.json").read_bytes())
    assert seen["hook_event_name"] == "PreSkillShellCommand"
    assert seen["command_name"] == "review" and seen["tool_input"] == {"command": "git status"}


def test_the_same_hook_never_runs_under_2_1_240(tmp_path: Path, isolated_home: Path) -> None:
    specific = {"hookEventName": "PreSkillShellCommand", "permissionDecision": "deny"}
    body = json.dumps({"hookSpecificOutput": specific})
    project = settings_project(tmp_path / "p", "PreSkillShellCommand", answering(tmp_path, body))
    proc = run_hookwright(
        "hooks",
        "test",
        "PreSkillShellCommand",
        "--project",
        str(project),
        "--claude-code-version",
        "2.1.240",
        home=isolated_home,
        stdin="{}",
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["decision"] is None
    assert not (tmp_path / "seen.json").exists()
    assert "not an event of Claude Code 2.1.240" in proc.stderr


def test_a_bad_version_is_a_one_line_error(tmp_path: Path, isolated_home: Path) -> None:
    proc = run_hookwright(
        "hooks",
        "test",
        "Stop",
        "--project",
        str(tmp_path),
        "--claude-code-version",
        "next",
        home=isolated_home,
        stdin="{}",
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("hookwright: error: --claude-code-version: not a Claude Code")


def bridge(project: Path, home: Path, event: str, fields: str, given: dict[str, Any]) -> Any:
    """`hook claude-code` answering `event` from a Python hook returning HookResult(`fields`)."""
    (project / ".hookwright").mkdir(parents=True)
    (project / ".hookwright" / "hooks.yaml").write_text(NATIVE_YAML.format(event=event))
    (project / ".hookwright" / "gate.py").write_text(GATE_PY.format(fields=fields))
    TrustStore(home).trust(project)
    stdin = {"session_id": "s", "cwd": str(project), "hook_event_name": event, **given}
    proc = run_hookwright(
        "hook", "claude-code", "--project", str(project), home=home, stdin=json.dumps(stdin)
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ("decision=Decision.allow", {}),
        (
            "decision=Decision.deny, reason='MARK no'",
            {"permissionDecision": "deny", "permissionDecisionReason": "MARK no"},
        ),
        (
            "decision=Decision.ask, reason='MARK ask'",
            {"permissionDecision": "deny", "permissionDecisionReason": "MARK ask"},
        ),
        (
            "decision=Decision.defer",
            {"permissionDecision": "deny", "permissionDecisionReason": "Blocked by hook"},
        ),
        (
            "decision=Decision.allow, updated_input={'command': 'ls'}",
            {"permissionDecision": "deny", "permissionDecisionReason": SKILL_REWRITE_REFUSED},
        ),
    ],
    ids=["allow", "deny", "ask", "defer", "rewrite"],
)
def test_hook_claude_code_answers_pre_skill_shell_command(
    tmp_path: Path, isolated_home: Path, fields: str, expected: dict[str, str]
) -> None:
    out = bridge(tmp_path / "p", isolated_home, "PreSkillShellCommand", fields, SKILL_INPUT)
    specific = {"hookEventName": "PreSkillShellCommand", **expected}
    assert out == ({"hookSpecificOutput": specific} if expected else {})


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ("decision=Decision.allow", {"permissionDecision": "allow"}),
        (
            "decision=Decision.ask, reason='MARK costly'",
            {"permissionDecision": "ask", "permissionDecisionReason": "MARK costly"},
        ),
        (
            "decision=Decision.block, reason='MARK no'",
            {"permissionDecision": "deny", "permissionDecisionReason": "MARK no"},
        ),
    ],
    ids=["allow", "ask", "block"],
)
def test_hook_claude_code_answers_pre_model_switch(
    tmp_path: Path, isolated_home: Path, fields: str, expected: dict[str, str]
) -> None:
    out = bridge(tmp_path / "p", isolated_home, "PreModelSwitch", fields, SWITCH_INPUT)
    assert out == {"hookSpecificOutput": {"hookEventName": "PreModelSwitch", **expected}}


def test_post_model_switch_context_is_answered_for_the_new_model(
    tmp_path: Path, isolated_home: Path
) -> None:
    fields = "additional_context='MARK budget: stay on sonnet'"
    out = bridge(tmp_path / "p", isolated_home, "PostModelSwitch", fields, SWITCH_INPUT)
    assert out == {
        "hookSpecificOutput": {
            "hookEventName": "PostModelSwitch",
            "additionalContext": "MARK budget: stay on sonnet",
        }
    }


def run_with_failing_hook(tmp_path: Path, home: Path, version: str) -> dict[str, Any]:
    script = tmp_path / "fail.py"
    script.write_text("import sys\nsys.stdin.read()\nsys.exit(1)\n")
    handler = {
        "type": "command",
        "command": f"{shlex.quote(sys.executable)} {script}",
        "onFailure": "block",
    }
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}
    touch = {"content": "", "tool_calls": [{"name": "Bash", "arguments": {"command": "touch ran"}}]}
    events = run_as(version, tmp_path, home, hooks, [touch, {"content": "done"}])
    ran = (tmp_path / "project" / "ran").exists()
    return {"content": tool_result(events)["content"], "ran": ran}


def test_on_failure_is_not_applied_as_2_1_240(tmp_path: Path, isolated_home: Path) -> None:
    seen = run_with_failing_hook(tmp_path, isolated_home, "2.1.240")
    assert seen == {"content": "(Bash completed with no output)", "ran": True}


def test_on_failure_blocks_as_2_1_332(tmp_path: Path, isolated_home: Path) -> None:
    seen = run_with_failing_hook(tmp_path, isolated_home, "2.1.332")
    assert seen["ran"] is False
    assert 'blocking because onFailure is "block"' in seen["content"]


def test_a_failed_pre_skill_shell_command_hook_fails_the_installed_hook(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "p"
    (project / ".hookwright").mkdir(parents=True)
    (project / ".hookwright" / "hooks.yaml").write_text(
        NATIVE_YAML.format(event="PreSkillShellCommand")
    )
    (project / ".hookwright" / "gate.py").write_text(
        "def answer(inp):\n    raise RuntimeError('x')\n"
    )
    TrustStore(isolated_home).trust(project)
    stdin = {"session_id": "s", "cwd": str(project), "hook_event_name": "PreSkillShellCommand"}
    proc = run_hookwright(
        "hook",
        "claude-code",
        "--project",
        str(project),
        home=isolated_home,
        stdin=json.dumps({**stdin, **SKILL_INPUT}),
    )
    # The installed hook fails (exit 1), which its `onFailure: "block"` turns into a block.
    assert proc.returncode == 1 and proc.stdout == ""
    assert "failed, so no verdict was given" in proc.stderr
