"""A project with a Codex hook and a Gemini CLI hook (and a Codex hook not reviewed) through
every command-line surface that runs or shows hooks: `hookwright run`, the audit it leaves,
`hooks list`, `hooks validate`, `hooks test` and `hooks test --explain`, each a real
`python -m hookwright` process."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from tests.cli_runner import hookwright_rows, run_hookwright
from tests.codex.both import (
    CODEX_BLOCK,
    GEMINI_CONTEXT,
    GUARD_NAME,
    codex_and_gemini_project,
    codex_stdin,
    gemini_stdin,
    review_entry,
)
from tests.codex.project import bash, script

from hookwright.dialects.codex.layers import MANAGED_DIR_ENV


@pytest.fixture
def both(tmp_path: Path) -> tuple[Path, Path]:
    home, project = codex_and_gemini_project(tmp_path)
    assert hookwright(home, "trust", str(project)).returncode == 0
    return home, project


def hookwright(home: Path, *args: str, stdin: str | None = None) -> Any:
    env = {"CODEX_HOME": str(home / ".codex"), MANAGED_DIR_ENV: os.environ[MANAGED_DIR_ENV]}
    return run_hookwright(*args, home=home, env=env, stdin=stdin)


def test_run_blocks_in_codex_words_adds_gemini_context_and_says_what_it_did_not_run(
    both: tuple[Path, Path], tmp_path: Path
) -> None:
    home, project = both
    turns = [bash("rm -rf build", "c1"), bash("echo hi", "c2"), {"content": "ok"}]
    model = script(tmp_path / "s.json", turns)
    done = hookwright(
        home, "run", "go", "--project", str(project), "--model", f"scripted:{model}", "--json",
        "--permission-mode", "bypassPermissions",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    results = [event["content"] for event in events if event["type"] == "tool_result"]
    assert results == [CODEX_BLOCK, "hi" + GEMINI_CONTEXT]
    assert (project / "build" / "out.txt").exists()
    assert not (project / "unreviewed-ran.txt").exists()
    assert review_entry(project) in done.stderr
    first = codex_stdin(project)[0]
    assert json.loads(first)["tool_input"] == {"command": "rm -rf build"}
    assert first == json.dumps(json.loads(first), separators=(",", ":")).encode()
    [seen] = gemini_stdin(project)
    assert (seen["hook_event_name"], seen["tool_name"]) == ("AfterTool", "run_shell_command")
    labels = {
        (event["system"], event["event_words"], event["file"], event["effect"])
        for event in events
        if event["type"] == "hook_result"
    }
    assert labels == {
        ("Codex", "PreToolUse", ".codex/hooks.json", "deny"),
        ("Gemini CLI", "AfterTool (PostToolUse)", ".gemini/settings.json", "rewrite output"),
    }


def test_the_audit_names_each_hook_s_dialect_and_file_and_why_one_did_not_run(
    both: tuple[Path, Path], tmp_path: Path
) -> None:
    home, project = both
    model = script(tmp_path / "s.json", [bash("rm -rf build", "c1"), {"content": "ok"}])
    ran = hookwright(
        home, "run", "go", "--project", str(project), "--model", f"scripted:{model}",
        "--permission-mode", "bypassPermissions",
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    records = [json.loads(line) for line in hookwright(home, "audit", "--json").stdout.splitlines()]
    by_hook = {record["hook"]: record for record in records if record["event"] == "PreToolUse"}
    guard = by_hook[GUARD_NAME]
    assert (guard["dialect"], guard["effect"], guard["reason"]) == (
        "codex",
        "deny",
        "codex: no deleting",
    )
    assert guard["origin"] == f"{project}/.codex/hooks.json:hooks.PreToolUse[0].hooks[0]"
    [skipped] = [record for record in records if record["status"] == "not_run"]
    assert (skipped["dialect"], skipped["error"]) == ("codex", "not_bound")
    assert "not reviewed in Codex" in skipped["reason"]
    assert review_entry(project) in skipped["reason"]
    text = hookwright(home, "audit").stdout
    assert f"{GUARD_NAME} (Codex, .codex/hooks.json): denied Bash rm -rf build" in text
    assert "(Codex, .codex/hooks.json): not run: not reviewed in Codex. Review it" in text
    assert "not bound" not in text and text.count("not run") == 1


def test_hooks_list_names_each_system_file_and_event_and_why_one_will_not_run(
    both: tuple[Path, Path],
) -> None:
    home, project = both
    listed = hookwright(home, "hooks", "list", "--json", "--project", str(project))
    assert listed.returncode == 0, listed.stderr
    rows = {row["name"]: row for row in hookwright_rows(listed.stdout)}
    guard, check = rows[GUARD_NAME], rows["check"]
    assert (guard["dialect"], guard["event"], guard["not_run"]) == ("codex", "PreToolUse", None)
    assert guard["origin"].endswith(".codex/hooks.json:hooks.PreToolUse[0].hooks[0]")
    assert (check["dialect"], check["event"], check["own_event"]) == (
        "gemini",
        "PostToolUse",
        "AfterTool",
    )
    [unreviewed] = [row for row in rows.values() if row["not_run"]]
    assert (unreviewed["dialect"], unreviewed["not_run"]) == ("codex", "not_bound")
    assert "not reviewed in Codex" in unreviewed["note"]
    assert review_entry(project) in unreviewed["note"]
    text = hookwright(home, "hooks", "list", "--project", str(project)).stdout
    assert "Codex · project" in text and "Gemini CLI · project" in text
    assert "as AfterTool — .gemini/settings.json:hooks.AfterTool[0].hooks[0]" in text
    assert "will not run: not reviewed in Codex. Review it with /hooks" in text
    assert "not bound" not in text and "not run." not in text


def test_hooks_validate_names_both_files_and_the_review_that_is_missing(
    both: tuple[Path, Path],
) -> None:
    home, project = both
    checked = hookwright(home, "hooks", "validate", "--project", str(project))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert ".codex/hooks.json (Codex): 1 hook loaded, 1 hook turned off\n" in checked.stdout
    assert ".gemini/settings.json (Gemini CLI): 1 hook loaded\n" in checked.stdout
    assert "not reviewed in Codex" in checked.stdout
    assert review_entry(project) in checked.stdout


def test_hooks_test_runs_the_codex_guard_and_explains_in_each_system_s_words(
    both: tuple[Path, Path],
) -> None:
    home, project = both
    call = json.dumps({"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}})
    args = ("hooks", "test", "PreToolUse", "--explain", "-i", "-", "--project", str(project))
    done = hookwright(home, *args, stdin=call)
    assert done.returncode == 0, done.stderr
    verdict = json.loads(done.stdout)
    assert (verdict["decision"], verdict["reason"]) == ("deny", "codex: no deleting")
    assert [(hook["dialect"], hook["exit_code"]) for hook in verdict["hooks"]] == [("codex", 2)]
    [off] = [c for c in verdict["candidates"] if c["check"] == "unloaded"]
    assert off["dialect"] == "codex" and "not reviewed in Codex" in off["reason"]
    explained = "(Codex, .codex/hooks.json): matcher 'Bash' matches tool_name 'Bash'"
    assert explained in done.stderr
    assert "(Codex, .codex/hooks.json): not loaded: not reviewed in Codex" in done.stderr
    assert not (project / "unreviewed-ran.txt").exists()


def test_hooks_test_takes_a_gemini_event_with_the_input_gemini_sends(
    both: tuple[Path, Path],
) -> None:
    home, project = both
    call = {
        "tool_name": "run_shell_command",
        "tool_input": {"command": "echo hi", "description": "greet"},
        "tool_response": {"llmContent": "hi", "returnDisplay": "hi"},
    }
    args = ("hooks", "test", "AfterTool", "--explain", "-i", "-", "--project", str(project))
    done = hookwright(home, *args, stdin=json.dumps(call))
    assert done.returncode == 0, done.stderr
    verdict = json.loads(done.stdout)
    assert verdict["event"] == "PostToolUse"
    assert verdict["updated_output"] == "hi" + GEMINI_CONTEXT
    assert verdict["warnings"] == []
    [seen] = gemini_stdin(project)
    assert (seen["hook_event_name"], seen["tool_name"]) == ("AfterTool", "run_shell_command")
    assert seen["tool_input"] == {"command": "echo hi", "description": "greet"}
    explained = "AfterTool (PostToolUse) check (Gemini CLI, .gemini/settings.json): matcher "
    assert explained + "'run_shell_command' matches tool_name 'Bash'" in done.stderr


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("untrusted", "Gemini CLI does not trust"),
        ("disabled", "'check' is in hooksConfig.disabled"),
    ],
)
def test_a_gemini_hook_gemini_would_not_run_is_listed_with_why(
    both: tuple[Path, Path], change: str, why: str
) -> None:
    home, project = both
    if change == "untrusted":
        (home / ".gemini" / "trustedFolders.json").write_text("{}")
    else:
        settings = json.loads((project / ".gemini" / "settings.json").read_text())
        settings["hooksConfig"] = {"disabled": ["check"]}
        (project / ".gemini" / "settings.json").write_text(json.dumps(settings))
    listed = hookwright(home, "hooks", "list", "--json", "--project", str(project))
    rows = {row["name"]: row for row in hookwright_rows(listed.stdout)}
    assert rows["check"]["not_run"] == "not_bound"
    assert why in rows["check"]["note"]
    call = {"tool_name": "run_shell_command", "tool_input": {"command": "echo hi"}}
    args = ("hooks", "test", "AfterTool", "--explain", "-i", "-", "--project", str(project))
    done = hookwright(home, *args, stdin=json.dumps(call))
    assert f"off  check (Gemini CLI, .gemini/settings.json): not loaded: {why}" in done.stderr
    assert gemini_stdin(project) == []
