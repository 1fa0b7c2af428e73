"""The loop in docs/embedding.md, run as written against a real project: a Claude Code command
hook denies `rm`, a PostToolUse hook adds context, a Stop hook makes the loop go on once."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from hookwright.config.trust import TrustStore

DOC = Path(__file__).parents[2] / "docs" / "embedding.md"


def doc_loop() -> Any:
    code = re.search(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert code is not None
    namespace: dict[str, Any] = {}
    exec(compile(code.group(1), str(DOC), "exec"), namespace)
    return namespace["agent_turn"]


HOOK = """import json, sys
data = json.load(sys.stdin)
event = data["hook_event_name"]
if event == "PreToolUse" and data["tool_input"]["command"].startswith("rm"):
    print("rm is not allowed in this project", file=sys.stderr)
    sys.exit(2)
if event == "Stop" and not data["stop_hook_active"]:
    print(json.dumps({"decision": "block", "reason": "run the tests first"}))
"""


def project_with_hooks(root: Path) -> Path:
    hook = root / "hook.py"
    root.mkdir()
    hook.write_text(HOOK, encoding="utf-8")
    command = {"type": "command", "command": f"{sys.executable} {hook}"}
    settings = {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [command]}],
            "Stop": [{"hooks": [command]}],
        }
    }
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return root


async def test_the_documented_loop_applies_every_decision(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = project_with_hooks(tmp_path / "project")
    TrustStore(isolated_home).trust(project)
    replies: list[dict[str, Any]] = [
        {
            "content": "",
            "tool_calls": [
                {"id": "c1", "name": "Bash", "args": {"command": "rm -rf build"}},
                {"id": "c2", "name": "Bash", "args": {"command": "echo hello"}},
            ],
        },
        {"content": "Cleaned up."},
        {"content": "Tests pass."},
    ]
    seen: list[list[dict[str, Any]]] = []

    def call_model(messages: Any) -> dict[str, Any]:
        seen.append([dict(m) for m in messages])
        return replies[len(seen) - 1]

    ran: list[str] = []

    def bash(command: str) -> str:
        ran.append(command)
        done = subprocess.run(command, shell=True, capture_output=True, text=True, check=False)
        return done.stdout

    answer = await doc_loop()(project, "Clean up", call_model, {"Bash": bash})
    assert answer == "Tests pass."
    assert ran == ["echo hello"]
    tool_texts = [m["content"] for m in seen[1] if m["role"] == "tool"]
    assert "rm is not allowed in this project" in tool_texts[0]
    assert tool_texts[1] == "hello\n"
    assert seen[2][-1] == {"role": "user", "content": "Stop hook feedback:\nrun the tests first"}
