"""Rough spots a fourth newcomer walk found, through the real command: `validate` checks a
PicoClaw process hook's program and the run's hint says it is missing; a YAML hook file whose
command needs quoting says so with its file and line; an untrusted folder's warning is one line
per folder; the skill note names the real file; `audit --summary` counts one decision once."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cli.walk_kit import scripted_bash
from cli_runner import run_hookwright

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo"


def _picoclaw_audit(project: Path) -> Path:
    """A project whose PicoClaw process runs `.picoclaw/audit.py`, which is not there."""
    config = project / ".picoclaw" / "config.json"
    config.parent.mkdir(parents=True)
    process = {"command": ["python3", ".picoclaw/audit.py"], "observe": ["*"]}
    config.write_text(json.dumps({"hooks": {"processes": {"audit": process}}}))
    return config


def test_validate_reports_a_picoclaw_program_that_is_not_there_and_the_run_says_missing(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    _picoclaw_audit(project)
    checked = run_hookwright("hooks", "validate", "-p", str(project), home=isolated_home,
                             cwd=project)  # fmt: skip
    assert checked.returncode == 1, checked.stdout
    lines = checked.stdout.splitlines()
    assert "  error .picoclaw/config.json (PicoClaw): 1 hook failed" in lines, lines
    assert (
        "        error: hooks.processes.audit.command: process 'audit': .picoclaw/audit.py is "
        f'not there (looked in {project}) (command ["python3", ".picoclaw/audit.py"]); every '
        "call fails and the run goes on as if the hook were not there; fix: create it, or "
        "correct the path in command"
    ) in lines, lines
    model = scripted_bash(tmp_path / "model.json", "echo hi")
    ran = run_hookwright("run", "go", "-p", str(project), "--trust", "--model", f"scripted:{model}",
                         "--permission-mode", "bypassPermissions", home=isolated_home,
                         cwd=project)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    [line] = [line for line in ran.stderr.splitlines() if line.startswith("error: PicoClaw")]
    assert line.endswith(
        f"; .picoclaw/audit.py is missing: it is not in {project}, the folder the hook ran in; "
        "create it, or correct the path in .picoclaw/config.json hooks.processes.audit.command"
    ), line
    assert '"dir"' not in line, line
    (project / ".picoclaw" / "audit.py").write_text("")
    present = run_hookwright("hooks", "validate", "-p", str(project), home=isolated_home,
                             cwd=project)  # fmt: skip
    assert "  ok    .picoclaw/config.json (PicoClaw)" in present.stdout, present.stdout


def test_a_picoclaw_program_not_on_path_is_reported(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "proj"
    config = project / ".picoclaw" / "config.json"
    config.parent.mkdir(parents=True)
    process = {"command": ["hw-no-such-program", "--serve"], "intercept": ["before_tool"]}
    config.write_text(json.dumps({"hooks": {"processes": {"gate": process}}}))
    checked = run_hookwright("hooks", "validate", "-p", str(project), home=isolated_home)
    assert checked.returncode == 1, checked.stdout
    assert (
        "error: hooks.processes.gate.command: process 'gate': hw-no-such-program is not found "
        "on PATH"
    ) in checked.stdout, checked.stdout


def test_an_openharness_command_with_an_unquoted_colon_says_to_quote_it(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    hook = project / ".openharness" / "hooks" / "guard.yaml"
    hook.parent.mkdir(parents=True)
    hook.write_text(
        "name: guard\nevents: [before_tool_dispatch]\nhandler:\n  type: command\n"
        "  command: echo reason: no\n"
    )
    hint = (
        "invalid YAML: mapping values are not allowed here (line 5 column 23); line 5 of "
        "guard.yaml: the command holds ': ', which YAML reads as a new key; quote the whole "
        "value: command: 'echo reason: no'"
    )
    checked = run_hookwright("hooks", "validate", "-p", str(project), home=isolated_home)
    assert checked.returncode == 1
    assert f"        error: {hint}" in checked.stdout.splitlines(), checked.stdout
    model = scripted_bash(tmp_path / "model.json", "echo hi")
    ran = run_hookwright("run", "go", "-p", str(project), "--trust", "--model", f"scripted:{model}",
                         "--permission-mode", "bypassPermissions", home=isolated_home)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr.count(hint) == 1, ran.stderr
    assert f"error: {hook}: {hint}" in ran.stderr.splitlines(), ran.stderr
    hook.write_text(hook.read_text().replace("echo reason: no", "'echo reason: no'"))
    fixed = run_hookwright("hooks", "validate", "-p", str(project), home=isolated_home)
    assert "invalid YAML" not in fixed.stdout, fixed.stdout


def test_an_untrusted_run_says_one_line_per_folder_with_the_count_and_the_trust_command(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    shutil.copytree(DEMO, project, ignore=shutil.ignore_patterns("skills"))
    model = scripted_bash(tmp_path / "model.json", "echo hi")
    ran = run_hookwright("run", "go", "-p", str(project), "--model", f"scripted:{model}",
                         home=isolated_home)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    held_back = [line for line in ran.stderr.splitlines() if "not run" in line]
    assert held_back == [
        f"warning: {project}: 5 hooks not run: untrusted; trust the folder with: hookwright "
        f"trust {project}, or run again with --trust (no_destructive_rm.py (Claude Code), "
        "redact-secrets (PicoClaw), force-dry-run (Python), project-facts (Python), and 1 more)"
    ], ran.stderr
    audit = [json.loads(line) for line in (isolated_home / ".hookwright" / "audit.jsonl").open()]
    assert len([r for r in audit if r["status"] == "not_run"]) == 5  # each hook still audited
    as_json = run_hookwright("run", "go", "-p", str(project), "--model", f"scripted:{model}",
                             "--json", home=isolated_home)  # fmt: skip
    assert as_json.returncode == 0, as_json.stderr
    said = [line for line in as_json.stderr.splitlines() if "not run" in line]
    assert said == held_back, as_json.stderr  # --json says each folder once, as the terminal
    audit = [json.loads(line) for line in (isolated_home / ".hookwright" / "audit.jsonl").open()]
    assert len([r for r in audit if r["status"] == "not_run"]) == 10  # each hook, each run


def test_the_skill_not_enabled_note_names_each_skills_real_file(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    shutil.copytree(DEMO / "skills", project / "skills")
    model = scripted_bash(tmp_path / "model.json", "echo hi")
    args = ("run", "go", "-p", str(project), "--trust", "--model", f"scripted:{model}")
    ran = run_hookwright(*args, home=isolated_home)
    assert ran.returncode == 0, ran.stderr
    [note] = [line for line in ran.stderr.splitlines() if line.startswith("note: ")]
    assert note == (
        "note: the hooks of skill careful (skills/careful/hooks/hooks.json) do not run in this "
        "session: a skill's hooks run once it is enabled (--skill careful)"
    )
    assert (project / "skills" / "careful" / "hooks" / "hooks.json").is_file()
    second = project / "skills" / "tidy" / "hooks"
    shutil.copytree(project / "skills" / "careful" / "hooks", second)
    both = run_hookwright(*args, home=isolated_home)
    [note] = [line for line in both.stderr.splitlines() if line.startswith("note: ")]
    assert (
        "skills careful, tidy (skills/careful/hooks/hooks.json, skills/tidy/hooks/hooks.json)"
        in (note)
    ), note


def test_audit_summary_counts_a_hooks_deny_once(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "proj"
    guard = "grep -q 'rm ' && { echo 'no rm' >&2; exit 2; } || exit 0"
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": guard}]}]}}  # fmt: skip
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    model = scripted_bash(tmp_path / "model.json", "rm -rf build")
    ran = run_hookwright("run", "go", "-p", str(project), "--trust", "--model", f"scripted:{model}",
                         home=isolated_home)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    log = isolated_home / ".hookwright" / "audit.jsonl"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    denies = [(r["event"], r.get("permission", {}).get("by")) for r in records
              if r["decision"] == "deny"]  # fmt: skip
    assert denies == [("PreToolUse", None), ("Permission", "hook")]  # one decision, two records

    def counted(*extra: str) -> list[list[str]]:
        summary = run_hookwright("audit", "--summary", *extra, home=isolated_home).stdout
        return [line.split()[-2:] for line in summary.splitlines() if f"command:{guard}" in line]

    assert counted() == [["deny", "1"]]
    assert counted("--event", "Permission") == [["deny", "1"]]  # alone, it is still counted
