"""Rough spots a third newcomer walk found, through the real command: a hook that failed to
load is an error line naming its file, field and fix once, in every view; an OpenHarness block
in its own word on the page's frame and in the summary as in the terminal; `audit` never
silent when nothing matches; `validate` holding an untrusted folder's skill hooks back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cli.walk_kit import scripted_bash
from cli_runner import run_hookwright
from hook_programs import OPENHARNESS_BLOCKER

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo"

#: A Python hook whose module is not there.
MISSING_MODULE = "hooks:\n  - {name: facts, event: PreToolUse, call: 'hw_no_such_guards:check'}\n"


def test_a_hook_that_failed_to_load_is_one_error_line_naming_file_field_and_fix(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".hookwright").mkdir(parents=True)
    hooks_file = project / ".hookwright" / "hooks.yaml"
    hooks_file.write_text(MISSING_MODULE)
    model = scripted_bash(tmp_path / "model.json", "echo hi")
    ran = run_hookwright("run", "go", "-p", str(project), "--trust", "--model", f"scripted:{model}",
                         "--permission-mode", "bypassPermissions", home=isolated_home)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    [line] = [line for line in ran.stderr.splitlines() if "facts" in line]
    assert line == (
        f"error: {hooks_file}: hook 'facts' (Python) not run: hooks[0].call: cannot import "
        "hw_no_such_guards:check: ModuleNotFoundError: No module named 'hw_no_such_guards'; "
        "create hw_no_such_guards.py beside hooks.yaml, or install hw_no_such_guards"
    )
    assert line.count("hooks[0]") == 1  # the field once
    assert run_hookwright("trust", str(project), home=isolated_home).returncode == 0
    listed = run_hookwright("hooks", "list", "-p", str(project), home=isolated_home)
    [row] = [line.strip() for line in listed.stdout.splitlines() if "will not run" in line]
    assert row.startswith(".hookwright/hooks.yaml — will not run: hooks[0].call: cannot import")
    assert row.count("hooks[0]") == 1, row
    audit = run_hookwright("audit", home=isolated_home).stdout
    [record] = [line for line in audit.splitlines() if " facts " in line]
    assert "facts (Python, .hookwright/hooks.yaml): not run: hooks[0].call: cannot" in record


def test_an_untrusted_hook_stays_a_warning(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "proj"
    (project / ".hookwright").mkdir(parents=True)
    (project / ".hookwright" / "hooks.yaml").write_text(MISSING_MODULE)
    model = scripted_bash(tmp_path / "model.json", "echo hi")
    ran = run_hookwright("run", "go", "-p", str(project), "--model", f"scripted:{model}",
                         home=isolated_home)  # fmt: skip
    [line] = [line for line in ran.stderr.splitlines() if "facts" in line]
    assert line.startswith("warning: ") and "not run: untrusted; trust the folder" in line, line


def test_an_openharness_block_reads_in_its_own_word_in_the_summary_and_the_json_stream(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".openharness" / "hooks").mkdir(parents=True)
    (project / ".openharness" / "hooks" / "guard.yaml").write_text(json.dumps(OPENHARNESS_BLOCKER))
    model = scripted_bash(tmp_path / "model.json", "echo hi")
    args = ("run", "hi", "-p", str(project), "--trust", "--model", f"scripted:{model}",
            "--permission-mode", "bypassPermissions")  # fmt: skip
    ran = run_hookwright(*args, "--summary", home=isolated_home, env={"COLUMNS": "300"})
    assert ran.returncode == 0, ran.stderr
    assert "guard (OpenHarness, .openharness/hooks/guard.yaml): block (deny) — no shell" in (
        ran.stdout
    )
    [row] = [line for line in ran.stdout.splitlines() if line.lstrip().startswith("guard ")]
    assert "blocked (denied) Bash echo hi: no shell" in row, ran.stdout
    audit = run_hookwright("audit", home=isolated_home).stdout
    assert "blocked (denied) Bash echo hi: no shell" in audit, audit
    counted = run_hookwright("audit", "--summary", home=isolated_home).stdout.splitlines()
    assert [line.split()[2:4] for line in counted if " guard " in line] == [["block", "(deny)"]], (
        counted
    )
    as_jsonl = run_hookwright("audit", "--summary", "--format", "jsonl", home=isolated_home)
    assert '"hook": "guard", "decision": "deny"' in as_jsonl.stdout  # the data stays canonical


def test_audit_says_what_the_log_holds_when_nothing_matches(
    tmp_path: Path, isolated_home: Path
) -> None:
    call = json.dumps({"session_id": "abc123", "tool_name": "Bash", "tool_input": {}})
    for _ in range(2):
        tested = run_hookwright("hooks", "test", "PreToolUse", "-p", str(DEMO), "-i", "-",
                                stdin=call, home=isolated_home)  # fmt: skip
        assert tested.returncode == 0, tested.stderr
    log = isolated_home / ".hookwright" / "audit.jsonl"
    other = run_hookwright("audit", "--session", "zzz", home=isolated_home)
    assert other.stdout == ""
    assert other.stderr == (
        f"hookwright: no audit records match --session zzz ({log} and its rotated files hold "
        "only 2 test records, none of which match)\n"
    )
    log.write_text("")
    empty = run_hookwright("audit", "--session", "zzz", home=isolated_home)
    assert empty.stderr == (
        f"hookwright: no audit records match --session zzz ({log} and its rotated files hold "
        "no records)\n"
    )


def test_validate_holds_an_untrusted_folders_skill_hooks_back_and_says_how_to_trust(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    shutil.copytree(DEMO / "skills", project / "skills")
    checked = run_hookwright("hooks", "validate", "-p", str(project), home=isolated_home)
    assert checked.returncode == 0, checked.stderr
    lines = checked.stdout.splitlines()
    file_line = "  ok    skills/careful/hooks/hooks.json (skill): 1 hook checked (folder not "
    assert f"{file_line}trusted: will not run)" in lines, lines
    trust = f"1 hook will not run until the folder is trusted: hookwright trust {project}"
    assert f"{trust}, or run with --trust" in lines, lines
    as_json = run_hookwright("hooks", "validate", "-p", str(project), "--json",
                             home=isolated_home)  # fmt: skip
    [entry] = json.loads(as_json.stdout)["files"]
    assert (entry["loaded"], entry["not_trusted"]) == (0, 1)
    assert run_hookwright("trust", str(project), home=isolated_home).returncode == 0
    trusted = run_hookwright("hooks", "validate", "-p", str(project), home=isolated_home)
    assert "  ok    skills/careful/hooks/hooks.json (skill): 1 hook loaded" in trusted.stdout
    assert "will not run" not in trusted.stdout


def test_explain_says_a_python_hooks_traceback_as_one_not_as_stderr(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".hookwright").mkdir(parents=True)
    (project / ".hookwright" / "mine.py").write_text(
        "def facts(inp):\n    return {'additional_context': inp.payload['nope']}\n"
    )
    (project / ".hookwright" / "hooks.yaml").write_text(
        "hooks:\n  - {name: facts, event: SessionStart, call: 'mine:facts'}\n"
    )
    tested = run_hookwright("hooks", "test", "SessionStart", "-p", str(project), "-i", "-",
                            "--explain", stdin="{}", home=isolated_home)  # fmt: skip
    assert tested.returncode == 0, tested.stderr
    lines = tested.stderr.splitlines()
    start = lines.index("  facts (Python, .hookwright/hooks.yaml): error — KeyError: 'nope'")
    assert lines[start + 1 : start + 4] == [
        "      Traceback (most recent call last, the hook's own frames):",
        f'        File "{project / ".hookwright" / "mine.py"}", line 2, in facts',
        "          return {'additional_context': inp.payload['nope']}",
    ], lines
    assert "stderr:" not in tested.stderr


def test_a_hooks_command_typed_without_its_group_is_pointed_to(isolated_home: Path) -> None:
    typed = run_hookwright("validate", "-p", str(DEMO), home=isolated_home)
    assert typed.returncode == 2
    assert typed.stderr == (
        "hookwright: error: No such command 'validate'; did you mean: hookwright hooks "
        "validate? (see: hookwright --help)\n"
    )
    other = run_hookwright("nope", home=isolated_home)
    assert other.stderr == "hookwright: error: No such command 'nope'. (see: hookwright --help)\n"
