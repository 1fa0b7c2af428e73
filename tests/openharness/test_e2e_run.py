"""The seed's complete example through `hookwright run`: block-dangerous-commands blocks
`rm -rf /` as a tool error the model sees and lets `ls` through."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from cli_runner import run_hookwright

HOOK_YAML = """\
name: block-dangerous-commands
events:
  - before_tool_dispatch
matcher: "Bash"
handler:
  type: command
  command: {command}
  timeout_seconds: 5
capabilities:
  - patch_tool_input
"""

NODE_SCRIPT = """\
const input = JSON.parse(require("fs").readFileSync("/dev/stdin", "utf8"));
const dangerous = ["rm -rf /", "drop table", "format c:"];
const cmd = input.tool_input?.command || "";
const blocked = dangerous.some((d) => cmd.toLowerCase().includes(d));
if (blocked) {
  console.log(JSON.stringify({
    continue: false,
    decision: "block",
    reason: "Command blocked: contains dangerous pattern",
  }));
} else {
  console.log(JSON.stringify({ continue: true }));
}
"""

PYTHON_SCRIPT = """\
import json, sys
data = json.load(sys.stdin)
dangerous = ["rm -rf /", "drop table", "format c:"]
cmd = (data.get("tool_input") or {}).get("command") or ""
if any(d in cmd.lower() for d in dangerous):
    print(json.dumps({"continue": False, "decision": "block",
                      "reason": "Command blocked: contains dangerous pattern"}))
else:
    print(json.dumps({"continue": True}))
"""

SCRIPT = """\
turns:
  - content: "Removing everything."
    tool_calls: [{name: Bash, arguments: {command: "rm -rf /"}}]
  - content: "Listing instead."
    tool_calls: [{name: Bash, arguments: {command: "ls"}}]
  - content: "Here is the listing."
"""

VARIANTS = ["python"]
if shutil.which("node"):
    VARIANTS.append("node")


@pytest.mark.parametrize("variant", VARIANTS)
def test_seed_example_blocks_rm_and_lets_ls_through(
    variant: str, tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "workspace"
    scripts = project / ".openharness" / "hooks" / "scripts"
    scripts.mkdir(parents=True)
    (project / "marker.txt").write_text("still here\n")
    if variant == "node":
        (scripts / "check-command.js").write_text(NODE_SCRIPT)
        command = "node ./.openharness/hooks/scripts/check-command.js"
    else:
        (scripts / "check-command.py").write_text(PYTHON_SCRIPT)
        command = f"{sys.executable} ./.openharness/hooks/scripts/check-command.py"
    (project / ".openharness" / "hooks" / "block-dangerous-commands.yaml").write_text(
        HOOK_YAML.format(command=command)
    )
    (tmp_path / "script.yaml").write_text(SCRIPT)
    proc = run_hookwright(
        "run",
        "clean up",
        "--project",
        str(project),
        "--model",
        f"scripted:{tmp_path / 'script.yaml'}",
        "--trust",
        "--json",
        "--permission-mode",
        "bypassPermissions",
        home=isolated_home,
    )
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    decisions = [e for e in events if e["type"] == "hook_result"]
    assert decisions[0]["hook"] == "block-dangerous-commands"
    assert decisions[0]["dialect"] == "openharness"
    assert decisions[0]["decision"] == "deny"
    results = [e for e in events if e["type"] == "tool_result"]
    assert results[0]["is_error"] is True
    assert "Command blocked: contains dangerous pattern" in results[0]["content"]
    assert results[1]["is_error"] is False
    assert "marker.txt" in results[1]["content"]
    assert events[-2]["type"] == "turn_end"
    assert events[-2]["status"] == "completed"
    assert (project / "marker.txt").exists()
