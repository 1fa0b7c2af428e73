"""A project holding a Codex hook and a Gemini CLI hook, each answering in its own terms, and a
Codex hook the user never reviewed: what every surface that runs hooks is checked against.

* `.codex/hooks.json` PreToolUse (reviewed): exit 2 with `codex: no deleting` on stderr when
  the command holds `rm -rf` (Codex's block; the model reads `Command blocked by PreToolUse
  hook: R. Command: C`); it logs the bytes it read.
* `.codex/hooks.json` PreToolUse (not reviewed): would touch `unreviewed-ran.txt` and block.
* `.gemini/settings.json` AfterTool on `run_shell_command`: `additionalContext`
  `GEMINI-CHECKED`, which Gemini appends to the tool's output as `<hook_context>`.

The project is trusted by Gemini CLI (`~/.gemini/trustedFolders.json`), and the user's Codex
`config.toml` reviews the first Codex hook only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.codex.project import write_project

CODEX_GUARD = """\
import json, sys
raw = sys.stdin.buffer.read()
with open("codex-stdin.jsonl", "ab") as log:
    log.write(raw + b"\\n")
if "rm -rf" in json.loads(raw)["tool_input"]["command"]:
    print("codex: no deleting", file=sys.stderr)
    sys.exit(2)
"""
GEMINI_CHECK = """\
import json, sys
data = json.load(sys.stdin)
with open("gemini-stdin.jsonl", "a") as log:
    log.write(json.dumps(data) + "\\n")
print(json.dumps({"hookSpecificOutput": {"additionalContext": "GEMINI-CHECKED"}}))
"""
CODEX_BLOCK = "Command blocked by PreToolUse hook: codex: no deleting. Command: rm -rf build"
GEMINI_CONTEXT = "\n\n<hook_context>GEMINI-CHECKED</hook_context>"
UNREVIEWED = "touch unreviewed-ran.txt; echo unreviewed >&2; exit 2"
GUARD = f"{sys.executable} .codex/guard.py"
#: How hookwright names the guard (`command:` and the command).
GUARD_NAME = f"command:{GUARD}"


def codex_and_gemini_project(tmp_path: Path) -> tuple[Path, Path]:
    """(home, project), with `build/` in the project for the guard to keep."""
    hooks = {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": GUARD, "timeout": 10}]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": UNREVIEWED}]},
        ]
    }
    home, project = write_project(tmp_path, hooks, unreviewed=["unreviewed-ran"])
    (project / ".codex" / "guard.py").write_text(CODEX_GUARD)
    (project / ".gemini").mkdir()
    (project / ".gemini" / "check.py").write_text(GEMINI_CHECK)
    check = {"type": "command", "command": f"{sys.executable} .gemini/check.py", "name": "check"}
    settings = {"hooks": {"AfterTool": [{"matcher": "run_shell_command", "hooks": [check]}]}}
    (project / ".gemini" / "settings.json").write_text(json.dumps(settings))
    (home / ".gemini").mkdir()
    trusted = {str(project): "TRUST_FOLDER"}
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trusted))
    (project / "build").mkdir()
    (project / "build" / "out.txt").write_text("built\n")
    return home, project


def codex_stdin(project: Path) -> list[bytes]:
    path = project / "codex-stdin.jsonl"
    return path.read_bytes().splitlines() if path.exists() else []


def gemini_stdin(project: Path) -> list[dict[str, object]]:
    path = project / "gemini-stdin.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def review_entry(project: Path) -> str:
    """The start of the `[hooks.state]` line that reviews the unreviewed hook."""
    source = project / ".codex" / "hooks.json"
    return f'[hooks.state."{source}:pre_tool_use:1:0"] trusted_hash = "sha256:'
