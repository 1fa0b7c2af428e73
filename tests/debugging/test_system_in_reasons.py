"""The reasons a user, the model and Claude Code read when a hook fails closed, did not run or
did not load name its system as its users say it (Python, OpenHarness, ...) and its file,
never a dialect's id: through `hookwright run`, `hookwright hook claude-code` and the audit
viewer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli_runner import run_hookwright
from tests.hosts.project import hook_input

IDS = ("(native,", "(claude_code,", "(openharness,", "(picoclaw,", "(skill,")
RM = {"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}}
CLOSED = "rules:\n  - fail: closed\n    events: [PreToolUse]\n"
GUARD = "def no_rm(inp):\n    return inp.tool_input['contnet']\n"
HOOKS = "hooks:\n  - {name: no-rm, event: PreToolUse, call: 'guard:no_rm'}\n"


def _project(root: Path, hooks: str = HOOKS) -> Path:
    (root / ".hookwright").mkdir(parents=True)
    (root / ".hookwright" / "guard.py").write_text(GUARD)
    (root / ".hookwright" / "hooks.yaml").write_text(hooks)
    return root


def _audit(home: Path) -> list[dict[str, Any]]:
    lines = (home / ".hookwright" / "audit.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def _ask(home: Path, project: Path) -> Any:
    stdin = hook_input(project, "PreToolUse", **RM).decode()
    return run_hookwright("hook", "claude-code", "--project", str(project), home=home, stdin=stdin)


def test_a_hook_failing_closed_is_named_by_its_system_to_the_model_and_the_audit(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _project(tmp_path / "proj")
    (project / ".hookwright" / "policy.yaml").write_text(CLOSED)
    (project / "build").mkdir()
    script = tmp_path / "script.json"
    call = {"name": "Bash", "arguments": RM["tool_input"]}
    script.write_text(json.dumps({"turns": [{"tool_calls": [call]}, {"content": "done"}]}))
    ran = run_hookwright(
        "run", "go", "--project", str(project), "--trust", "--json",
        "--permission-mode", "bypassPermissions", "--model", f"scripted:{script}",
        home=isolated_home,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert (project / "build").is_dir()  # the closed hook's failure refused the call
    events = [json.loads(line) for line in ran.stdout.splitlines()]
    [result] = [e for e in events if e["type"] == "tool_result"]
    who = f"hook 'no-rm' (Python, {project}/.hookwright/hooks.yaml:hooks[0]) failed: KeyError"
    assert result["is_error"] and who in result["content"], result["content"]
    [record] = [r for r in _audit(isolated_home) if r["event"] == "PreToolUse"]
    assert record["reason"].startswith(who), record["reason"]
    assert not any(dialect in result["content"] + ran.stderr for dialect in IDS)


def test_an_untrusted_hook_a_policy_closes_is_named_by_its_system_to_claude_code(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _project(tmp_path / "proj")
    (isolated_home / ".hookwright").mkdir(exist_ok=True)
    (isolated_home / ".hookwright" / "policy.yaml").write_text(CLOSED)
    asked = _ask(isolated_home, project)
    assert asked.returncode == 0, asked.stderr
    answer = json.loads(asked.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    reason = answer["permissionDecisionReason"]
    where = f"{project.resolve()}/.hookwright/hooks.yaml:hooks[0]"
    assert reason.startswith(f"hook 'no-rm' (Python, {where}) did not run: the folder "), reason
    assert not any(dialect in reason for dialect in IDS)


def test_a_file_that_did_not_load_is_named_with_its_system(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _project(tmp_path / "proj", "hooks: [\n")
    assert run_hookwright("trust", str(project), home=isolated_home).returncode == 0
    asked = _ask(isolated_home, project)
    assert (asked.returncode, asked.stdout) == (1, "")
    hooks_file = project.resolve() / ".hookwright" / "hooks.yaml"
    assert f"hookwright: the Python hooks of {hooks_file} did not load: invalid YAML" in (
        asked.stderr
    )
    [record] = [r for r in _audit(isolated_home) if r["status"] == "not_loaded"]
    assert record["dialect"] == "native"
    shown = run_hookwright("audit", "--session", record["session_id"], home=isolated_home)
    said = "PreToolUse hooks (Python, .hookwright/hooks.yaml): did not load: invalid YAML"
    assert said in shown.stdout, shown.stdout
