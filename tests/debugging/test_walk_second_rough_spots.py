"""Rough spots a second newcomer walk found, through the real commands: an OpenHarness hook's
timeout in the same form whether its folder is trusted or not."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cli_runner import run_hookwright
from hook_programs import OPENHARNESS_BLOCKER

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo"


def _openharness_project(root: Path) -> Path:
    shutil.copytree(DEMO / ".openharness", root / ".openharness")
    return root


def test_an_openharness_timeout_reads_the_same_trusted_or_not(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _openharness_project(tmp_path / "proj")
    listed = {}
    for trusted in (False, True):
        if trusted:
            assert run_hookwright("trust", str(project), home=isolated_home).returncode == 0
        proc = run_hookwright("hooks", "list", "-p", str(project), home=isolated_home)
        assert proc.returncode == 0, proc.stderr
        [row] = [line for line in proc.stdout.splitlines() if "note-dry-runs  Bash" in line]
        listed[trusted] = row
    assert "OpenHarness · project · chain · 10s +2s · fails open" in listed[False], listed
    assert "OpenHarness · project · chain · 10s +2s · fails open" in listed[True], listed
    assert "12s" not in listed[False] + listed[True]


BAD_HOOK = (
    "name: guard\nevents: [before_tool_dispatch]\n"
    "handler: {type: command, command: 'true', timout: 5}\n"
)
BASH_LS = '{"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {}}'


def test_a_load_error_is_said_once_on_its_hooks_row_or_at_the_top(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _openharness_project(tmp_path / "proj")
    (project / ".openharness" / "hooks" / "bad.yaml").write_text(BAD_HOOK)
    error = "handler.timout: unknown field (did you mean 'timeout_seconds'?) with value 5"

    def explained(event: str) -> str:
        proc = run_hookwright("hooks", "test", event, "-p", str(project), "--explain", "-i", "-",
                              stdin=BASH_LS, home=isolated_home)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.count(error) == 1, proc.stderr
        return proc.stderr

    on_row = explained("before_tool_dispatch")
    assert f"guard (OpenHarness, .openharness/hooks/bad.yaml): not loaded: {error}" in on_row
    assert not on_row.startswith("error:"), on_row
    elsewhere = explained("after_tool_dispatch")  # no row for it there: said at the top
    assert elsewhere.startswith(f"error: {project / '.openharness/hooks/bad.yaml'}: {error}")
    model = tmp_path / "script.yaml"
    model.write_text("model: t\nturns:\n  - content: done\n")
    ran = run_hookwright("run", "hi", "-p", str(project), "--trust", "--model",
                         f"scripted:{model}", home=isolated_home)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr.count(error) == 1, ran.stderr
    assert f"hook 'guard' (OpenHarness) not run: {error}" in ran.stderr


def test_an_openharness_block_is_said_in_its_own_word_beside_the_canonical_one(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".openharness" / "hooks").mkdir(parents=True)
    (project / ".openharness" / "hooks" / "guard.yaml").write_text(json.dumps(OPENHARNESS_BLOCKER))
    label = "guard (OpenHarness, .openharness/hooks/guard.yaml)"
    tested = run_hookwright("hooks", "test", "before_tool_dispatch", "-p", str(project),
                            "--explain", "-i", "-", stdin=BASH_LS, home=isolated_home)  # fmt: skip
    assert f"{label}: block (deny), exit 0 — no shell" in tested.stderr, tested.stderr
    model = tmp_path / "script.yaml"
    call = {"name": "Bash", "arguments": {"command": "echo hi"}}
    model.write_text(
        json.dumps({"model": "t", "turns": [{"tool_calls": [call]}, {"content": "ok"}]})
    )
    ran = run_hookwright("run", "hi", "-p", str(project), "--trust", "--model", f"scripted:{model}",
                         "--permission-mode", "bypassPermissions", home=isolated_home)  # fmt: skip
    assert f"{label}: block (deny) — no shell" in ran.stdout, ran.stdout
    audit = run_hookwright("audit", home=isolated_home).stdout
    said = f"before_tool_dispatch (PreToolUse) {label}: blocked (denied) Bash echo hi: no shell"
    assert said in audit, audit  # the event and the decision in OpenHarness's words first


def test_audit_says_how_to_see_the_hooks_test_records_a_session_filter_hides(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".openharness" / "hooks").mkdir(parents=True)
    (project / ".openharness" / "hooks" / "guard.yaml").write_text(json.dumps(OPENHARNESS_BLOCKER))
    call = json.dumps({"session_id": "abc123", "tool_name": "Bash", "tool_input": {}})
    for _ in range(2):
        tested = run_hookwright("hooks", "test", "before_tool_dispatch", "-p", str(project),
                                "-i", "-", stdin=call, home=isolated_home)  # fmt: skip
        assert tested.returncode == 0, tested.stderr
    hidden = run_hookwright("audit", "--session", "abc1", home=isolated_home)
    assert hidden.stdout == ""
    said = "hookwright: no audit records match --session abc1; 2 records of `hooks test` match"
    assert hidden.stderr == f"{said}: add --tests\n", hidden.stderr
    shown = run_hookwright("audit", "--session", "abc1", "--tests", home=isolated_home)
    assert (
        shown.stdout.count("[test] before_tool_dispatch (PreToolUse) guard") == 2
        and shown.stderr == ""
    )
    other = run_hookwright("audit", "--session", "zzz", home=isolated_home)
    assert "hooks test" not in other.stderr  # none of them match: nothing to add
