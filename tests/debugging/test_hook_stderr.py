"""A long-lived hook process's stderr shows with the call that produced it: in `hookwright run`
(under that tool call, not the next one) and in `hooks test --explain` (beside that hook's
result), through the real command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from cli_runner import run_hookwright

#: Writes one stderr line naming the call's command, then answers (a hook that logs while it
#: works, as most do).
PICOCLAW_HOOK = r"""
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message["method"] == "hook.before_tool":
        command = message["params"]["arguments"]["command"]
        sys.stderr.write(f"checked {command}\n")
        sys.stderr.flush()
        result = {"action": "deny_tool", "reason": "not today"}
    else:
        result = {"ok": True}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""

#: As many calls as the per-hook warning burst lets through (`RateLimitedLog`).
COMMANDS = [f"echo call-{n}" for n in range(1, 6)]


def make_project(root: Path) -> Path:
    project = root / "proj"
    (project / ".picoclaw").mkdir(parents=True)
    (project / ".picoclaw" / "hook.py").write_text(PICOCLAW_HOOK)
    process = {"command": [sys.executable, ".picoclaw/hook.py"], "dir": ".",
               "intercept": ["before_tool"]}  # fmt: skip
    config = {"hooks": {"enabled": True, "processes": {"checker": process}}}
    (project / ".picoclaw" / "config.json").write_text(json.dumps(config))
    turns = [
        {"content": f"step {n}", "tool_calls": [{"name": "Bash", "arguments": {"command": c}}]}
        for n, c in enumerate(COMMANDS, 1)
    ]
    script = project / "script.yaml"
    script.write_text(yaml.safe_dump({"model": "s", "turns": [*turns, {"content": "done"}]}))
    return project


def test_run_shows_each_calls_stderr_under_that_call(tmp_path: Path, isolated_home: Path) -> None:
    project = make_project(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    env.update({"HOME": str(isolated_home), "COLUMNS": "200", "PYTHONUNBUFFERED": "1"})
    argv = [sys.executable, "-m", "hookwright", "run", "go", "--project", str(project)]
    argv += ["--trust", "--model", f"scripted:{project / 'script.yaml'}"]
    # One pipe for both streams: the lines keep the order they were written in.
    proc = subprocess.run(
        argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stdout
    lines = proc.stdout.splitlines()
    for command in COMMANDS:
        call = lines.index(f"⏺ Bash({command})")
        said = lines.index(f"hook checker stderr: checked {command}")
        following = [i for i, line in enumerate(lines) if line.startswith("⏺ ") and i > call]
        assert call < said < (following[0] if following else len(lines)), proc.stdout


def test_explain_shows_the_stderr_of_a_call_that_answered(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = make_project(tmp_path)
    data = {"tool_name": "Bash", "tool_input": {"command": "echo once"}}
    args = ("hooks", "test", "PreToolUse", "-i", "-", "-p", str(project), "--explain")
    proc = run_hookwright(*args, stdin=json.dumps(data), home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    [hook] = json.loads(proc.stdout)["hooks"]
    assert (hook["status"], hook["decision"]) == ("ok", "deny")
    assert hook["stderr_tail"] == "checked echo once"
    assert "      stderr: checked echo once" in proc.stderr
