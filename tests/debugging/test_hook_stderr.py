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


#: Writes `LINES` stderr lines for each call, then answers: a hook flooding the terminal.
FLOODING_HOOK = r"""
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message["method"] == "hook.before_tool":
        sys.stderr.write("".join(f"noise {n}\n" for n in range(LINES)))
        sys.stderr.flush()
    result = {"ok": True} if message["method"] == "hook.hello" else {"action": "continue"}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""


def test_stderr_held_back_is_counted_with_where_to_read_it(
    tmp_path: Path, isolated_home: Path
) -> None:
    """5 lines per 10 s reach the terminal; the rest are counted once, with where to read
    them, and the call's audit record keeps its stderr."""
    project = make_project(tmp_path)
    (project / ".picoclaw" / "hook.py").write_text(FLOODING_HOOK.replace("LINES", "3000"))
    script = project / "script.yaml"
    call = {"name": "Bash", "arguments": {"command": "echo hi"}}
    script.write_text(yaml.safe_dump({"model": "s", "turns": [
        {"content": "one", "tool_calls": [call]}, {"content": "done"}]}))  # fmt: skip
    proc = run_hookwright("run", "go", "-p", str(project), "--trust", "--model",
                          f"scripted:{script}", home=isolated_home)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    said = proc.stderr.splitlines()
    assert [line for line in said if "noise" in line] == [
        f"hook checker stderr: noise {n}" for n in range(5)
    ]
    (summary,) = [line for line in said if "suppressed" in line]
    assert summary == (
        "hook checker: 2995 more warnings like the above suppressed; each call's stderr "
        "(its last 2000 characters) is in its audit record: "
        "`hookwright audit --session ID --json` (stderr_tail)"
    )
    assert len(said) < 20, proc.stderr  # the flood never reaches the terminal
    audit = (isolated_home / ".hookwright" / "audit.jsonl").read_text().splitlines()
    (record,) = [json.loads(line) for line in audit if '"checker"' in line and "noise" in line]
    assert record["stderr_tail"].endswith("noise 2998\nnoise 2999")
