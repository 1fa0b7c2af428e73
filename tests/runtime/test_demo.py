"""The demo project: one hook of each system acting in one `hookwright run`, and `make demo`
offline with provider keys in the environment."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_hookwright

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo"
SCRIPT = f"scripted:{DEMO / '.hookwright' / 'script.yaml'}"
TOKEN = "demo-0000-not-a-real-token"


def run_demo(
    home: Path, *extra: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run_hookwright(
        "run",
        "Clean the build, publish the branch and read the notes.",
        "--project",
        str(DEMO),
        "--trust",
        "--skill",
        "careful",
        "--model",
        SCRIPT,
        *extra,
        home=home,
        env=env,
    )


def audit_records(home: Path) -> list[dict[str, Any]]:
    path = home / ".hookwright" / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_every_kind_of_hook_acts_on_the_run(isolated_home: Path) -> None:
    proc = run_demo(isolated_home, "--json")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    acted = {(e["dialect"], e["event"], e["effect"]) for e in events if e["type"] == "hook_result"}
    assert acted >= {
        ("native", "SessionStart", "context"),
        ("claude_code", "PreToolUse", "deny"),
        ("native", "PreToolUse", "rewrite input"),
        ("openharness", "PostToolUse", "rewrite output"),
        ("picoclaw", "PostToolUse", "rewrite output"),
    }
    rm, push, read = [e for e in events if e["type"] == "tool_result"]
    assert rm["skipped"] == "denied by hook"
    assert "recursive or forced rm is not allowed here: 'rm -rf build/'" in rm["content"]
    assert "dry run: git push origin main" in push["content"]
    assert "Note from OpenHarness: that was a dry run; nothing was pushed." in push["content"]
    assert "DEPLOY_TOKEN=[redacted by the PicoClaw hook]" in read["content"]
    assert TOKEN not in read["content"]
    [skill] = [r for r in audit_records(isolated_home) if r["dialect"] == "skill"]
    assert (skill["hook"], skill["event"], skill["effect"]) == (
        "careful/no-surprises",
        "UserPromptSubmit",
        "prompt",
    )
    assert skill["context"].startswith("Be careful with this project")
    [injected] = [e for e in events if e["type"] == "skill_prompt"]
    assert (injected["skill"], injected["hook"], injected["timing"]) == (
        "careful",
        "no-surprises",
        "after_user_input",
    )


def test_the_terminal_run_names_model_transcript_audit_and_sums_up(isolated_home: Path) -> None:
    proc = run_demo(isolated_home, "--summary")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    session = out.splitlines()[0].removeprefix("session ")
    assert "model       scripted/demo" in out
    assert (
        "✚ after_user_input (UserPromptSubmit) no-surprises (skill careful, "
        "skills/careful/hooks/no-surprises.md): system prompt: Be careful"
    ) in out, out
    transcript = isolated_home / ".hookwright" / "projects"
    assert f"transcript  {transcript}" in out and f"{session}.jsonl" in out
    assert f"audit       {isolated_home / '.hookwright' / 'audit.jsonl'}" in out
    summary = out[out.index("What each hook did in this run") :]
    rows = {line.split()[0]: line for line in summary.splitlines()[3:] if line.strip()}
    assert "Python" in rows["project-facts"] and "added context: This demo" in rows["project-facts"]
    assert "skill " in rows["careful/no-surprises"]
    assert "injected a prompt: Be careful" in rows["careful/no-surprises"]
    assert "denied Bash rm -rf build/" in rows["no_destructive_rm.py"]
    assert "Claude Code" in rows["no_destructive_rm.py"]
    assert (
        "rewrote Bash git push origin main → echo 'dry run: git push origin main'"
        in (rows["force-dry-run"])
    )
    assert "OpenHarness" in rows["note-dry-runs"]
    assert "PicoClaw" in rows["redact-secrets"]
    assert "rewrote the Read result" in rows["redact-secrets"]
    assert f"hookwright audit --session {session}" in summary
    assert "no effect" not in summary and "ran, no decision" in summary
    assert "after_user_input" in rows["careful/no-surprises"]


def test_the_readme_shows_the_demo_summary_as_printed(isolated_home: Path) -> None:
    """The README's table is the demo's own output at 80 columns, line for line."""
    proc = run_demo(isolated_home, "--summary", env={"COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    summary = proc.stdout[proc.stdout.index("What each hook did in this run") :]
    shown = [line.rstrip() for line in summary.splitlines() if not line.startswith("Every")]
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("What each hook did in this run") :]
    assert "\n".join(shown).strip() == table[: table.index("```")].strip()


def test_the_debug_trace_of_the_demo_shows_each_system_at_work(isolated_home: Path) -> None:
    proc = run_hookwright(
        "--debug",
        "run",
        "go",
        "--project",
        str(DEMO),
        "--trust",
        "--skill",
        "careful",
        "--model",
        SCRIPT,
        "--json",
        home=isolated_home,
    )
    assert proc.returncode == 0, proc.stderr
    trace = [line for line in proc.stderr.splitlines() if line.startswith("[hookwright debug")]
    text = "\n".join(trace)
    assert 'spawn: redact-secrets: ["python3", ".picoclaw/redact_secrets.py"]' in text
    assert "call: redact-secrets hook.after_tool: " in text
    assert 'answer: redact-secrets hook.after_tool: {"action": "modify"' in text
    assert "no_destructive_rm.py" in text and "exit 0 after" in text
    assert "permissionDecision" in text
    assert "match: UserPromptSubmit: 1 hook registered, 1 selected" in text
    result = "result: after_tool_dispatch (PostToolUse) note-dry-runs (OpenHarness, project)"
    assert f"{result}: ok, rewrite output" in text
    assert "match: Stop: no hooks registered" in text


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_demo_is_offline_with_provider_keys_set(isolated_home: Path) -> None:
    env = {
        **os.environ,
        "HOME": str(isolated_home),
        "COLUMNS": "120",
        "OPENAI_API_KEY": "sk-must-not-be-used",
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
        "ANTHROPIC_API_KEY": "must-not-be-used",
        "HOOKWRIGHT_MODEL": "openai:must-not-be-used",
    }
    # `-o`: never (re)install; BIN: the interpreter running the tests, which has hookwright.
    make = ["make", "-s", "--no-print-directory", "-o", ".venv/.installed", "demo"]
    proc = subprocess.run(
        [*make, f"BIN={Path(sys.executable).parent}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "model       scripted/demo" in proc.stdout
    assert "What each hook did in this run" in proc.stdout
    for system in ("Claude Code", "PicoClaw", "OpenHarness", "skill", "Python"):
        assert system in proc.stdout
    assert "did not run" not in proc.stdout
