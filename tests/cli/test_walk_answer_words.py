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

from cli_runner import run_hookwright

#: A Gemini CLI hook that answers `decision` in the word its call names: on BeforeTool for an
#: `rm`, on AfterTool for an `echo`; the reason names the event and the word.
GEMINI_WORDS = """import json, sys
data = json.load(sys.stdin)
event, command = data["hook_event_name"], data["tool_input"]["command"]
if command.startswith("rm" if event == "BeforeTool" else "echo"):
    word = "block" if "block" in command else "deny"
    print(json.dumps({"decision": word, "reason": f"{event} {word}"}))
"""


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


def _gemini_project(project: Path, home: Path) -> None:
    (project / ".gemini").mkdir(parents=True)
    (project / ".gemini" / "words.py").write_text(GEMINI_WORDS)
    hook = {"type": "command", "command": f"{sys.executable} .gemini/words.py", "name": "no"}
    groups = [{"matcher": "run_shell_command", "hooks": [hook]}]
    settings = {"hooks": {"BeforeTool": groups, "AfterTool": groups}}
    (project / ".gemini" / "settings.json").write_text(json.dumps(settings))
    (home / ".gemini").mkdir()
    trusted = {str(project): "TRUST_FOLDER"}
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trusted))


def test_a_gemini_block_and_deny_read_as_answered_on_beforetool_and_aftertool(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    _gemini_project(project, isolated_home)
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
    assert all(said in row for said in done[:3]), ran.stdout  # the summary lists three
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
    _gemini_project(project, isolated_home)
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
