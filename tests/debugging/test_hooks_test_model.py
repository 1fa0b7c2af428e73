"""`hooks test --model SPEC`: prompt and agent hooks ask the model `hookwright run` would
(`scripted:FILE` here); without one, a warning says how to give it."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_hookwright

SETTINGS = {
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "Safe? $ARGUMENTS"}]}
        ]
    }
}
JUDGE = """\
turns:
  - content: '{"ok": false, "reason": "rm is not allowed here"}'
"""
CALL = {"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}}


def write_project(root: Path) -> Path:
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(json.dumps(SETTINGS))
    (root / "judge.yaml").write_text(JUDGE)
    return root


def hooks_test(project: Path, home: Path, *extra: str) -> tuple[int, str, str]:
    proc = run_hookwright(
        "hooks", "test", "PreToolUse", "-i", "-", "-p", str(project), *extra,
        stdin=json.dumps(CALL), home=home,
    )  # fmt: skip
    return proc.returncode, proc.stdout, proc.stderr


def test_prompt_hook_asks_the_scripted_model(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(tmp_path / "proj")
    code, stdout, stderr = hooks_test(project, isolated_home, "--model", "scripted:judge.yaml")
    assert code == 0, stderr
    verdict = json.loads(stdout)
    assert verdict["decision"] == "deny"
    assert verdict["reason"].endswith("rm is not allowed here")
    [hook] = verdict["hooks"]
    assert hook["status"] == "ok" and hook["dialect"] == "claude_code"
    assert "asks a model" not in stderr


def test_without_a_model_a_warning_says_how_to_give_one(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = write_project(tmp_path / "proj")
    code, stdout, stderr = hooks_test(project, isolated_home)
    assert code == 0, stderr
    assert json.loads(stdout)["decision"] is None
    assert "asks a model and none is given: it fails; test it with --model scripted:FILE" in stderr


def test_a_bad_model_spec_is_one_line_before_any_hook_runs(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = write_project(tmp_path / "proj")
    code, stdout, stderr = hooks_test(project, isolated_home, "--model", "scripted:nope.yaml")
    assert code == 2
    assert stdout == ""
    [line] = stderr.strip().splitlines()
    assert line.startswith("hookwright: error: --model: ") and "nope.yaml" in line
