"""One decision, two words, through the real command (`hookwright run` with the scripted model,
as a subprocess): where a system spells a decision two ways, every view says the one the hook
answered - the hook's line, `hooks test --explain`, the debug trace, the run summary, the
audit viewer and `audit --summary` - and the decision still does what it does: the call
does not run, the model reads the block."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.codex.project import write_project

from cli_runner import run_hookwright
from hook_programs import write_gemini_words
from hookwright.dialects.codex.layers import MANAGED_DIR_ENV


def _script(path: Path, calls: list[str], heard: list[str]) -> Path:
    """A model calling each of `calls` in turn; each turn after the first goes on only if the
    model was sent the text the one before it was answered with (`heard`)."""
    turns: list[dict[str, Any]] = []
    for index, command in enumerate(calls):
        turn: dict[str, Any] = {"tool_calls": [{"name": "Bash", "arguments": {"command": command}}]}
        if index:
            turn["match"] = heard[index - 1]
        turns.append(turn)
    turns.append({"match": heard[-1], "content": "heard every answer"})
    path.write_text(json.dumps({"model": "s", "turns": turns}))
    return path


def _run(project: Path, model: Path, home: Path, env: dict[str, str] | None = None) -> Any:
    return run_hookwright(
        "run", "go", "-p", str(project), "--trust", "--model", f"scripted:{model}", "--summary",
        "--permission-mode", "bypassPermissions", home=home, cwd=project,
        env={"COLUMNS": "400", **(env or {})},
    )  # fmt: skip


def _audit_summary(home: Path) -> set[tuple[str, ...]]:
    lines = run_hookwright("audit", "--summary", home=home).stdout.splitlines()
    return {tuple(line.split()[1:]) for line in lines[1:]}


def test_a_gemini_block_and_deny_read_as_answered_on_beforetool_and_aftertool(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    write_gemini_words(project, isolated_home)
    for name in ("deny-me", "block-me"):
        (project / name).write_text("kept")
    calls = ["rm deny-me", "rm block-me", "echo deny-me", "echo block-me"]
    heard = ["BeforeTool deny", "BeforeTool block", "AfterTool deny", "AfterTool block"]
    ran = _run(project, _script(tmp_path / "m.json", calls, heard), isolated_home)
    assert ran.returncode == 0, ran.stderr + ran.stdout
    assert "heard every answer" in ran.stdout  # the model read each block's reason
    assert (project / "deny-me").exists() and (project / "block-me").exists()
    line = "⚑ {} no (Gemini CLI, .gemini/settings.json): {} — {}"
    lines = ran.stdout.splitlines()
    assert line.format("BeforeTool (PreToolUse)", "deny", heard[0]) in lines, ran.stdout
    assert line.format("BeforeTool (PreToolUse)", "block (deny)", heard[1]) in lines, ran.stdout
    assert line.format("AfterTool (PostToolUse)", "deny (block)", heard[2]) in lines, ran.stdout
    assert line.format("AfterTool (PostToolUse)", "block", heard[3]) in lines, ran.stdout
    done = [
        f"denied Bash rm deny-me: {heard[0]}",
        f"blocked (denied) Bash rm block-me: {heard[1]}",
        f"denied (blocked) Bash echo deny-me: {heard[2]}",
        f"blocked Bash echo block-me: {heard[3]}",
    ]
    [row] = [line for line in lines if line.lstrip().startswith("no ")]
    # the summary lists three, each call named as the Gemini CLI hook read it
    shown = [said.replace(" Bash ", " run_shell_command ") for said in done[:3]]
    assert all(said in row for said in shown), ran.stdout
    audit = run_hookwright("audit", home=isolated_home).stdout
    assert all(said in audit for said in done), audit
    expected = {
        ("no", "deny", "1"),
        ("no", "block", "(deny)", "1"),
        ("no", "deny", "(block)", "1"),
        ("no", "block", "1"),
    }
    assert expected <= _audit_summary(isolated_home), _audit_summary(isolated_home)


def test_a_gemini_block_reads_block_in_the_explain_and_the_debug_trace(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    write_gemini_words(project, isolated_home)
    call = json.dumps({"tool_name": "run_shell_command", "tool_input": {"command": "rm block"}})
    explained = run_hookwright("hooks", "test", "BeforeTool", "-p", str(project), "--explain",
                               "-i", "-", stdin=call, home=isolated_home,
                               cwd=project)  # fmt: skip
    said = explained.stdout + explained.stderr
    assert "no (Gemini CLI, .gemini/settings.json): block (deny), exit 0 — BeforeTool block" in said
    traced = run_hookwright("--debug", "hooks", "test", "BeforeTool", "-p", str(project),
                            "-i", "-", stdin=call, home=isolated_home,
                            cwd=project)  # fmt: skip
    assert "ok, block (deny)" in traced.stdout + traced.stderr, traced.stderr


#: A Claude Code PreToolUse hook deciding in both its words: the legacy top-level `decision`
#: (`block` for an `rm`, `approve` for a `touch`) and `permissionDecision` (`deny` for a `mv`).
CLAUDE_WORDS = """import json, sys
command = json.load(sys.stdin)["tool_input"]["command"]
if command.startswith("rm"):
    print(json.dumps({"decision": "block", "reason": "legacy block"}))
elif command.startswith("touch"):
    print(json.dumps({"decision": "approve", "reason": "legacy approve"}))
elif command.startswith("mv"):
    out = {"permissionDecision": "deny", "permissionDecisionReason": "permission deny"}
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", **out}}))
"""


def test_a_claude_code_legacy_block_and_approve_read_as_answered(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "words.py").write_text(CLAUDE_WORDS)
    command = f"{sys.executable} .claude/words.py"
    group = {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}
    settings = {"hooks": {"PreToolUse": [group]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    (project / "kept").write_text("kept")
    calls = ["rm kept", "mv kept gone", "touch made"]
    heard = ["legacy block", "permission deny", "completed with no output"]
    ran = _run(project, _script(tmp_path / "m.json", calls, heard), isolated_home)
    assert ran.returncode == 0, ran.stderr + ran.stdout
    assert (project / "kept").exists() and (project / "made").exists()
    line = f"⚑ PreToolUse command:{command} (Claude Code, .claude/settings.json): {{}} — {{}}"
    lines = ran.stdout.splitlines()
    assert line.format("block (deny)", "legacy block") in lines, ran.stdout
    assert line.format("deny", "permission deny") in lines, ran.stdout
    assert line.format("approve (allow)", "legacy approve") in lines, ran.stdout
    audit = run_hookwright("audit", home=isolated_home).stdout
    assert "blocked (denied) Bash rm kept: legacy block" in audit, audit
    assert "denied Bash mv kept gone: permission deny" in audit, audit
    assert "approved (allowed) Bash touch made: legacy approve" in audit, audit


#: A Codex PreToolUse hook denying in both its words: the legacy `decision: "block"` for an
#: `rm`, `permissionDecision: "deny"` for a `mv`.
CODEX_WORDS = """import json, sys
command = json.load(sys.stdin)["tool_input"]["command"]
if command.startswith("rm"):
    print(json.dumps({"decision": "block", "reason": "legacy block"}))
elif command.startswith("mv"):
    out = {"permissionDecision": "deny", "permissionDecisionReason": "permission deny"}
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", **out}}))
"""


def test_a_codex_legacy_block_reads_block_beside_a_permission_deny(tmp_path: Path) -> None:
    command = f"{sys.executable} .codex/words.py"
    group = [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]
    home, project = write_project(tmp_path, {"PreToolUse": group})
    (project / ".codex" / "words.py").write_text(CODEX_WORDS)
    (project / "kept").write_text("kept")
    env = {"CODEX_HOME": str(home / ".codex"), MANAGED_DIR_ENV: str(tmp_path / "no-managed")}
    heard = ["legacy block", "permission deny"]
    model = _script(tmp_path / "m.json", ["rm kept", "mv kept gone"], heard)
    ran = _run(project, model, home, env)
    assert ran.returncode == 0, ran.stderr + ran.stdout
    assert (project / "kept").exists()
    name = f"command:{command} (Codex, .codex/hooks.json)"
    lines = ran.stdout.splitlines()
    assert f"⚑ PreToolUse {name}: block (deny) — legacy block" in lines, ran.stdout
    assert f"⚑ PreToolUse {name}: deny — permission deny" in lines, ran.stdout
    audit = run_hookwright("audit", home=home, env=env).stdout
    assert "blocked (denied) Bash rm kept: legacy block" in audit, audit
    assert "denied Bash mv kept gone: permission deny" in audit, audit


#: An OpenHarness before_tool_dispatch hook blocking in both its answers: `decision: "block"`
#: for an `rm`, `continue: false` for a `mv`.
OPENHARNESS_WORDS = """import json, sys
command = json.load(sys.stdin)["tool_input"]["command"]
if command.startswith("rm"):
    print(json.dumps({"decision": "block", "reason": "said block"}))
elif command.startswith("mv"):
    print(json.dumps({"continue": False, "stopReason": "said stop"}))
"""


def test_an_openharness_continue_false_reads_as_answered_beside_a_block(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    hooks = project / ".openharness" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "words.py").write_text(OPENHARNESS_WORDS)
    command = f"{sys.executable} {hooks / 'words.py'}"
    hook = {"name": "guard", "events": ["before_tool_dispatch"], "matcher": "Bash",
            "handler": {"type": "command", "command": command}}  # fmt: skip
    (hooks / "guard.yaml").write_text(json.dumps(hook))
    (project / "kept").write_text("kept")
    heard = ["said block", "said stop"]
    model = _script(tmp_path / "m.json", ["rm kept", "mv kept gone"], heard)
    ran = _run(project, model, isolated_home)
    assert ran.returncode == 0, ran.stderr + ran.stdout
    assert (project / "kept").exists()
    line = (
        "⚑ before_tool_dispatch (PreToolUse) guard (OpenHarness, .openharness/hooks/guard.yaml): "
    )
    lines = ran.stdout.splitlines()
    assert line + "block (deny) — said block" in lines, ran.stdout
    assert line + "continue: false (deny) — said stop" in lines, ran.stdout
    audit = run_hookwright("audit", home=isolated_home).stdout
    assert "blocked (denied) Bash rm kept: said block" in audit, audit
    assert "continue: false (denied) Bash mv kept gone: said stop" in audit, audit
    rows = _audit_summary(isolated_home)
    expected = {("guard", "block", "(deny)", "1"), ("guard", "continue:", "false", "(deny)", "1")}
    assert expected <= rows, rows


#: A Python hook denying while naming its decision in another word: a result it built with
#: `own_word`, and a dict with `own_word` among its fields.
PYTHON_WORDS = """
from hookwright import HookResult, Decision
def worded(inp):
    return HookResult(decision=Decision.deny, reason='worded', own_word='allow')
def fielded(inp):
    return {'decision': 'deny', 'reason': 'fielded', 'own_word': 'allow'}
"""
PYTHON_HOOKS = """hooks:
  - {name: worded, event: PreToolUse, matcher: Bash, if: 'Bash(rm *)', call: 'words:worded'}
  - {name: fielded, event: PreToolUse, matcher: Bash, if: 'Bash(echo *)', call: 'words:fielded'}
"""


def test_a_python_hook_cannot_make_a_view_say_another_word_than_its_decision(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".hookwright").mkdir(parents=True)
    (project / ".hookwright" / "words.py").write_text(PYTHON_WORDS)
    (project / ".hookwright" / "hooks.yaml").write_text(PYTHON_HOOKS)
    (project / "kept").write_text("kept")
    model = _script(tmp_path / "m.json", ["rm kept", "echo ok"], ["worded", "ok"])
    ran = _run(project, model, isolated_home)
    assert ran.returncode == 0, ran.stderr + ran.stdout
    assert (project / "kept").exists()  # the worded hook denied; the fielded one failed
    lines = ran.stdout.splitlines()
    name = "worded (Python, .hookwright/hooks.yaml)"
    assert f"⚑ PreToolUse {name}: deny — worded" in lines, ran.stdout
    assert "allow" not in ran.stdout, ran.stdout
    assert "returned unknown field own_word" in ran.stdout, ran.stdout
    records = run_hookwright("audit", "--json", home=isolated_home).stdout.splitlines()
    assert not [r for r in map(json.loads, records) if "own_word" in r], records
