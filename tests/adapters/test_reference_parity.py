"""The reference agent (`hookwright run`, a real subprocess with a scripted model) on the
scenario's project: the refusal text an approval gate gives and the skill prompt it injects
are the ones the scenario asserts every adapter gives its model (`VETOED`, `SKILL_PROMPT`)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from cli_runner import run_cli

from .scenario import SKILL, SKILL_PROMPT, VETOED, make_project


def events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def test_the_reference_agent_gives_the_texts_the_scenario_asserts(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    script = tmp_path / "script.json"
    call = {"name": "Bash", "arguments": {"command": "touch vetoed"}, "id": "c8"}
    script.write_text(json.dumps([{"content": "", "tool_calls": [call]}, {"content": "No."}]))
    command = ["run", "--project", str(project.root)]
    command += ["--model", f"scripted:{script}", "--trust", "--skill", SKILL, "--json"]
    env = {**os.environ, "HOME": str(project.home)}
    done = run_cli([*command, "Touch it."], env)
    seen = events(done.stdout)
    assert not (project.root / "vetoed").exists()
    [result] = [e for e in seen if e.get("type") == "tool_result" and e.get("id") == "c8"]
    assert (result["content"], result["is_error"]) == (VETOED, True)
    injected = [e["content"] for e in seen if e.get("type") == "skill_prompt"]
    assert SKILL_PROMPT in injected
