"""The installed command answering Claude Code's measured stdin: the stdout JSON Claude Code
reads, from the project's OpenHarness and Python hooks only."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.hosts.project import hook_input, make_project, run_installed

from cli_runner import run_cli
from hookwright.config.trust import TrustStore


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = make_project(tmp_path / "proj")
    done = run_cli(["install", "claude-code", "--project", str(root)], dict(os.environ), timeout=60)
    assert done.returncode == 0, done.stderr
    return root


def installed_command(project: Path, event: str) -> str:
    settings = json.loads((project / ".claude" / "settings.local.json").read_text())
    [group] = settings["hooks"][event]
    return str(group["hooks"][0]["command"])


def answer(project: Path, event: str, **fields: object) -> dict[str, object]:
    done = run_installed(
        installed_command(project, event), hook_input(project, event, **fields), project
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(b"\n")
    result = json.loads(done.stdout)
    assert isinstance(result, dict)
    return result


def bash(command: str) -> dict[str, object]:
    return {
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "d"},
        "tool_use_id": "toolu_01",
    }


def test_openharness_block_is_a_pretooluse_deny(project: Path) -> None:
    TrustStore(Path.home()).trust(project)
    out = answer(project, "PreToolUse", **bash("rm -rf build"))
    assert out["hookSpecificOutput"] == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "rm -rf is not allowed here",
    }


def test_harmless_command_passes_and_claude_code_hooks_do_not_run_twice(project: Path) -> None:
    TrustStore(Path.home()).trust(project)
    out = answer(project, "PreToolUse", **bash("ls"))
    assert "CLAUDE-HOOK-TWICE" not in json.dumps(out)
    assert out.get("hookSpecificOutput", {}).get("permissionDecision") != "deny"


def test_python_hook_context_reaches_the_prompt(project: Path) -> None:
    TrustStore(Path.home()).trust(project)
    out = answer(project, "UserPromptSubmit", prompt="hello")
    assert out["hookSpecificOutput"] == {
        "hookEventName": "UserPromptSubmit",
        "additionalContext": "HOUSE-RULES: answer in one line.",
    }


def test_untrusted_project_runs_no_code(project: Path) -> None:
    out = answer(project, "PreToolUse", **bash("rm -rf build"))
    assert "deny" not in json.dumps(out)
    answer(project, "UserPromptSubmit", prompt="hello")
    assert not (project / ".hookwright" / "imported").exists()


def test_bad_stdin_is_a_one_line_non_blocking_error(project: Path) -> None:
    done = run_installed(installed_command(project, "Stop"), b"not json", project)
    assert done.returncode == 1
    [line] = done.stderr.decode().splitlines()
    assert line.startswith("hookwright: error: stdin is not a JSON hook input")


def test_a_rename_or_a_hook_tool_result_becomes_a_refusal_claude_code_can_express() -> None:
    """Claude Code has no field for a renamed tool or a hook's own tool result: the typed
    effect (not a payload key) is what turns the verdict into a deny."""
    from hookwright.bridges.claude_hook import expressible
    from hookwright.core.effect_parts import ToolResult
    from hookwright.core.effects import Effects
    from hookwright.core.events import Event
    from hookwright.core.results import Decision, Verdict

    renamed = expressible(Verdict(Event.PreToolUse, effects=Effects(renamed_tool="Read")))
    assert (renamed.decision, renamed.reason) == (
        Decision.deny,
        "A hook renamed the tool; not run.",
    )
    answered = expressible(Verdict(Event.PreToolUse, respond=ToolResult(content="cached")))
    assert (answered.decision, answered.reason, answered.respond) == (Decision.deny, "cached", None)
    plain = Verdict(Event.PreToolUse, payload_updates={"tool_name": "Read"})
    assert expressible(plain).decision is None
