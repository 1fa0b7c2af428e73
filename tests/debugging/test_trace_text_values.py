"""The `--debug` trace shows a hook's output as it printed it: the newline that ends a printed
line is not written as a literal `\\n` at the end of a value (one inside a value still is);
through the real command."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cli_runner import run_hookwright

#: Prints one JSON line on stdout and two lines on stderr, each ending with a newline.
PROGRAM = """import json, sys
sys.stdin.read()
print("first warning\\nsecond warning", file=sys.stderr)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse"}}))
"""


def test_trace_values_end_without_the_printed_lines_newline(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / "hook.py").write_text(PROGRAM)
    hook = {"type": "command", "command": f"{sys.executable} hook.py"}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    stdin = json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}})
    proc = run_hookwright("--debug", "hooks", "test", "PreToolUse", "--input", "-",
                          "-p", str(project), stdin=stdin, home=isolated_home)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (line,) = [line for line in proc.stderr.splitlines() if "] process: " in line]
    answer = '{"hookSpecificOutput": {"hookEventName": "PreToolUse"}}'
    assert f"stdout: {answer}; stderr: first warning\\nsecond warning" in line, line
    assert line.endswith("second warning"), line
    assert "\\n;" not in line, line
