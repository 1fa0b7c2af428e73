"""Every system's decisions in its own words, through the real command: the hook's line in
`hookwright run`, the run summary, `audit` and `audit --summary` say a PicoClaw `respond`,
`abort_turn` and `hard_abort`, a Gemini CLI `decision: "deny"` where it is canonically a
block, and a Codex `decision: "block"` and `permissionDecision: "deny"` (Claude Code's words,
the canonical ones, said once), as a PicoClaw `deny_tool (deny)` and an OpenHarness
`block (deny)` are said."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.codex.project import write_project

from cli_runner import run_hookwright
from hook_programs import PICOCLAW_ANSWERS, write_gemini_words
from hookwright.dialects.codex.layers import MANAGED_DIR_ENV


def _scripted(path: Path, *commands: str) -> Path:
    calls = [{"tool_calls": [{"name": "Bash", "arguments": {"command": c}}]} for c in commands]
    path.write_text(json.dumps({"model": "s", "turns": [*calls, {"content": "ok"}]}))
    return path


def _run(project: Path, model: Path, home: Path, env: dict[str, str] | None = None) -> Any:
    return run_hookwright(
        "run", "go", "-p", str(project), "--trust", "--model", f"scripted:{model}", "--summary",
        "--permission-mode", "bypassPermissions", home=home, cwd=project,
        env={"COLUMNS": "300", **(env or {})},
    )  # fmt: skip


def _row(stdout: str, hook: str) -> str:
    [row] = [line for line in stdout.splitlines() if line.lstrip().startswith(f"{hook} ")]
    return row


def _audit_summary(home: Path, env: dict[str, str] | None = None) -> set[tuple[str, ...]]:
    """`audit --summary`'s rows without the day: (hook, decision words..., count)."""
    lines = run_hookwright("audit", "--summary", home=home, env=env).stdout.splitlines()
    return {tuple(line.split()[1:]) for line in lines[1:]}


def test_picoclaw_respond_abort_turn_and_hard_abort_read_in_picoclaw_words(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".picoclaw").mkdir(parents=True)
    (project / "answers.py").write_text(PICOCLAW_ANSWERS)
    gate = {"command": [sys.executable, str(project / "answers.py")], "intercept": ["before_tool"]}
    config = {"hooks": {"processes": {"gate": gate}}}
    (project / ".picoclaw" / "config.json").write_text(json.dumps(config))
    ran = _run(project, _scripted(tmp_path / "m.json", "echo hi", "rm -rf build"), isolated_home)
    assert ran.returncode == 1, ran.stderr  # the turn the hook aborted failed
    line = "⚑ before_tool (PreToolUse) gate (PicoClaw, .picoclaw/config.json): "
    assert f"{line}respond — answered here" in ran.stdout.splitlines(), ran.stdout
    assert f"{line}abort_turn (abort) — stop right there" in ran.stdout.splitlines()
    assert "hook-responded" in ran.stdout  # the hook's result stood in for the tool's
    row = _row(ran.stdout, "gate")
    assert "respond (answered) Bash echo hi: answered here" in row, ran.stdout
    assert "abort_turn (aborted) Bash rm -rf build: stop right there" in row, ran.stdout
    audit = run_hookwright("audit", home=isolated_home).stdout
    assert "gate (PicoClaw, .picoclaw/config.json): respond (answered) Bash echo hi" in audit
    assert "abort_turn (aborted) Bash rm -rf build: stop right there" in audit, audit
    rows = _audit_summary(isolated_home)
    assert {("gate", "respond", "1"), ("gate", "abort_turn", "(abort)", "1")} <= rows, rows
    hard = run_hookwright(
        "hooks", "test", "before_tool", "-p", str(project), "--explain", "-i", "-",
        stdin=json.dumps({"tool": "Bash", "arguments": {"command": "kill 1"}}),
        home=isolated_home, cwd=project,
    )  # fmt: skip
    said = hard.stdout + hard.stderr
    assert "gate (PicoClaw, .picoclaw/config.json): hard_abort (hard abort) — roll it back" in said


#: A Gemini CLI BeforeTool hook denying an `rm`, and an AfterTool hook hiding every output;
#: both answer `decision: "deny"`, Gemini CLI's word (a block after the tool ran).
GEMINI_DENY = """import json, sys
data = json.load(sys.stdin)
if data["hook_event_name"] == "BeforeTool" and "rm" not in data["tool_input"]["command"]:
    sys.exit(0)
print(json.dumps({"decision": "deny", "reason": data["hook_event_name"] + " says no"}))
"""


def test_a_gemini_deny_reads_deny_where_it_is_canonically_a_block(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    write_gemini_words(project, isolated_home, GEMINI_DENY)
    ran = _run(project, _scripted(tmp_path / "m.json", "rm -rf build", "echo hi"), isolated_home)
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert "⚑ BeforeTool (PreToolUse) no (Gemini CLI, .gemini/settings.json): deny — BeforeTool " \
        "says no" in lines, ran.stdout  # fmt: skip
    assert "⚑ AfterTool (PostToolUse) no (Gemini CLI, .gemini/settings.json): deny (block) — " \
        "AfterTool says no" in lines, ran.stdout  # fmt: skip
    row = _row(ran.stdout, "no")
    assert "denied run_shell_command rm -rf build: BeforeTool says no" in row, ran.stdout
    assert "denied (blocked) run_shell_command echo hi: AfterTool says no" in row, ran.stdout
    audit = run_hookwright("audit", home=isolated_home).stdout
    assert "denied (blocked) Bash echo hi: AfterTool says no" in audit, audit
    rows = _audit_summary(isolated_home)
    assert {("no", "deny", "1"), ("no", "deny", "(block)", "1")} <= rows, rows


#: A Codex PreToolUse hook denying an `rm` (`permissionDecision: "deny"`) and a PostToolUse
#: hook blocking every output (`decision: "block"`).
CODEX_DENY = """import json, sys
data = json.load(sys.stdin)
if data["hook_event_name"] == "PostToolUse":
    print(json.dumps({"decision": "block", "reason": "codex hid it"}))
elif "rm" in data["tool_input"]["command"]:
    out = {"permissionDecision": "deny", "permissionDecisionReason": "codex says no"}
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", **out}}))
"""


def test_codex_decisions_read_in_claude_codes_words_said_once(tmp_path: Path) -> None:
    command = f"{sys.executable} .codex/deny.py"
    group = [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]
    home, project = write_project(tmp_path, {"PreToolUse": group, "PostToolUse": group})
    (project / ".codex" / "deny.py").write_text(CODEX_DENY)
    env = {"CODEX_HOME": str(home / ".codex"), MANAGED_DIR_ENV: str(tmp_path / "no-managed")}
    ran = _run(project, _scripted(tmp_path / "m.json", "rm -rf build", "echo hi"), home, env)
    assert ran.returncode == 0, ran.stderr
    name = f"command:{command} (Codex, .codex/hooks.json)"
    assert f"⚑ PreToolUse {name}: deny — codex says no" in ran.stdout.splitlines(), ran.stdout
    assert f"⚑ PostToolUse {name}: block — codex hid it" in ran.stdout.splitlines(), ran.stdout
    audit = run_hookwright("audit", home=home, env=env).stdout
    assert "denied Bash rm -rf build: codex says no" in audit, audit
    assert "blocked Bash echo hi: codex hid it" in audit, audit
    assert "(denied)" not in audit and "(blocked)" not in audit, audit
