"""`hookwright hooks validate`: every config file of every dialect, exit 1 on any error."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_hookwright

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo"


def broken_project(root: Path) -> Path:
    (root / ".hookwright").mkdir(parents=True)
    (root / ".hookwright" / "guards.py").write_text("def ok(inp):\n    return None\n")
    (root / ".hookwright" / "hooks.yaml").write_text(
        "hooks:\n"
        "  - {name: fine, event: Stop, call: 'guards:ok'}\n"
        "  - {name: typo, event: PreToolUze, call: 'guards:ok'}\n"
        "  - {name: gone, event: Stop, call: 'guards:missing'}\n"
    )
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "cmd"}]}]}})
    )
    (root / ".openharness" / "hooks").mkdir(parents=True)
    (root / ".openharness" / "hooks" / "bad.yaml").write_text("name: bad\nevents: [nope]\n")
    skill = root / "skills" / "tidy" / "hooks"
    skill.mkdir(parents=True)
    (skill / "hooks.json").write_text(
        json.dumps(
            {
                "hooks": [
                    {
                        "name": "x",
                        "file": "x.md",
                        "timing": "whenever",
                        "role": "system",
                        "persistent": False,
                    }
                ]
            }
        )
    )
    return root


def test_every_dialect_file_is_checked_and_errors_fail(tmp_path: Path, isolated_home: Path) -> None:
    project = broken_project(tmp_path / "proj")
    proc = run_hookwright("hooks", "validate", "-p", str(project), home=isolated_home)
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout
    # the typo was never read as a hook; the other two are, their code not loaded
    assert (
        "  error .hookwright/hooks.yaml (Python): 1 hook failed, "
        "2 hooks checked (folder not trusted: code not loaded)\n" in out
    )
    assert "hooks[1].event: Value error, unknown event 'PreToolUze'" in out
    assert "  error .claude/settings.json (Claude Code)" in out
    assert "  error .openharness/hooks/bad.yaml (OpenHarness)" in out
    assert "  error skills/tidy/hooks/hooks.json (skill): 1 hook failed\n" in out
    assert "hooks[0].timing" in out
    assert "checked without loading their code" in out
    assert "guards:missing" not in out  # not trusted: the module is not imported


def test_trust_loads_the_code_and_reports_import_errors(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = broken_project(tmp_path / "proj")
    proc = run_hookwright("hooks", "validate", "-p", str(project), "--trust", home=isolated_home)
    assert proc.returncode == 1
    assert "hooks[2].call: cannot import guards:missing" in proc.stdout
    assert "checked without loading" not in proc.stdout


def test_json_report(tmp_path: Path, isolated_home: Path) -> None:
    project = broken_project(tmp_path / "proj")
    proc = run_hookwright("hooks", "validate", "-p", str(project), "--json", home=isolated_home)
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert report["ok"] is False and report["errors"] >= 4
    by_dialect = {f["dialect"]: f for f in report["files"]}
    assert set(by_dialect) == {"native", "claude_code", "openharness", "skill"}
    native = by_dialect["native"]
    assert native["file"] == str(project / ".hookwright" / "hooks.yaml")
    assert native["hooks"] == 2
    assert native["problems"][0]["path"] == "hooks[1].event"
    assert native["problems"][0]["severity"] == "error"


def test_the_demo_is_valid(isolated_home: Path) -> None:
    proc = run_hookwright("hooks", "validate", "-p", str(DEMO), "--trust", home=isolated_home)
    assert proc.returncode == 0, proc.stdout
    for name, system in (
        (".claude/settings.json", "Claude Code"),
        (".hookwright/hooks.yaml", "Python"),
        (".picoclaw/config.json", "PicoClaw"),
        (".openharness/hooks/note-dry-runs.yaml", "OpenHarness"),
        ("skills/careful/hooks/hooks.json", "skill"),
    ):
        assert f"  ok    {name} ({system})" in proc.stdout
    assert proc.stdout.rstrip().endswith("0 errors, 0 warnings in 5 files")


def test_a_project_without_hooks(tmp_path: Path, isolated_home: Path) -> None:
    proc = run_hookwright("hooks", "validate", "-p", str(tmp_path), home=isolated_home)
    assert proc.returncode == 0
    assert "  none found" in proc.stdout
    missing = run_hookwright(
        "hooks", "validate", "-p", str(tmp_path / "nowhere"), home=isolated_home
    )
    assert missing.returncode == 2
    assert missing.stderr.startswith("hookwright: error: project directory")


def test_files_read_without_hooks_are_listed(tmp_path: Path, isolated_home: Path) -> None:
    """Every file that was read is listed, those without hooks as "no hooks", so a user sees
    which files hookwright looked at (here: settings that only hold permissions)."""
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(ls *)"]}})
    )
    (project / ".claude" / "settings.local.json").write_text("{}")
    (isolated_home / ".claude").mkdir(exist_ok=True)
    user_settings = isolated_home / ".claude" / "settings.json"
    user_settings.write_text(json.dumps({"model": "x"}))
    (project / ".picoclaw").mkdir()
    (project / ".picoclaw" / "config.json").write_text(json.dumps({"agents": {}}))
    (project / ".hookwright").mkdir()
    (project / ".hookwright" / "hooks.yaml").write_text("hooks: []\n")
    proc = run_hookwright("hooks", "validate", "-p", str(project), home=isolated_home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "  ok    .claude/settings.json (Claude Code): no hooks" in out
    assert "  ok    .claude/settings.local.json (Claude Code): no hooks" in out
    assert f"  ok    {user_settings} (Claude Code): no hooks" in out
    assert "  ok    .picoclaw/config.json (PicoClaw): no hooks" in out
    assert "  ok    .hookwright/hooks.yaml (Python): no hooks" in out
    assert "none found" not in out
    assert out.rstrip().endswith("0 errors, 0 warnings in 5 files")
    report = json.loads(
        run_hookwright("hooks", "validate", "-p", str(project), "--json", home=isolated_home).stdout
    )
    listed = {(f["file"], f["dialect"], f["hooks"]) for f in report["files"]}
    assert (str(project / ".claude" / "settings.json"), "claude_code", 0) in listed
    assert (str(user_settings), "claude_code", 0) in listed


def test_a_yaml_error_is_one_line_naming_the_file(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "proj"
    (project / ".hookwright").mkdir(parents=True)
    config = project / ".hookwright" / "hooks.yaml"
    config.write_text("hooks:\n  - name: x\n    event: [Stop\n  bad: : :\n")
    listed = run_hookwright("hooks", "list", "-p", str(project), home=isolated_home)
    [line] = [line for line in listed.stderr.splitlines() if "YAML" in line]
    assert line.startswith(f"error: {config}: invalid YAML: ") and "(line 4 column 6)" in line
    checked = run_hookwright("hooks", "validate", "-p", str(project), home=isolated_home)
    assert checked.returncode == 1
    assert "  error .hookwright/hooks.yaml (Python): the file did not load\n" in checked.stdout
    assert "invalid YAML: expected ',' or ']', but got ':' (line 4 column 6)" in checked.stdout


def test_each_file_counts_the_hooks_that_loaded_and_those_that_failed(
    tmp_path: Path, isolated_home: Path
) -> None:
    """A file whose hooks did not all load says how many did and how many failed, in plain
    words; several errors of one entry are one hook; any failure fails the command."""
    project = tmp_path / "proj"
    (project / ".hookwright").mkdir(parents=True)
    (project / ".hookwright" / "guards.py").write_text("def ok(inp):\n    return None\n")
    (project / ".hookwright" / "hooks.yaml").write_text(
        "hooks:\n"
        "  - {name: fine, event: Stop, call: 'guards:ok'}\n"
        "  - {name: gone, event: Stop, call: 'guards:missing'}\n"
        "  - {name: typo, evnt: Stop, cal: 'guards:ok'}\n"
    )
    (project / ".picoclaw").mkdir()
    processes = {
        "good": {"command": ["true"], "intercept": ["before_tool"]},
        "bad": {"comand": ["true"], "intercep": ["before_tool"]},
    }
    (project / ".picoclaw" / "config.json").write_text(
        json.dumps({"hooks": {"processes": processes}})
    )
    args = ("hooks", "validate", "-p", str(project), "--trust")
    proc = run_hookwright(*args, home=isolated_home)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = proc.stdout
    assert "  error .hookwright/hooks.yaml (Python): 1 hook loaded, 2 hooks failed\n" in out
    assert "  error .picoclaw/config.json (PicoClaw): 1 hook loaded, 1 hook failed\n" in out
    assert "hook(s)" not in out
    report = json.loads(run_hookwright(*args, "--json", home=isolated_home).stdout)
    counts = {f["dialect"]: (f["loaded"], f["failed"]) for f in report["files"]}
    assert counts == {"native": (1, 2), "picoclaw": (1, 1)}
    assert report["ok"] is False


def test_a_file_whose_only_hook_fails_to_load_fails_the_command(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".hookwright").mkdir(parents=True)
    (project / ".hookwright" / "guards.py").write_text("def ok(inp):\n    return None\n")
    (project / ".hookwright" / "hooks.yaml").write_text(
        "hooks:\n  - {name: gone, event: Stop, call: 'guards:missing'}\n"
    )
    proc = run_hookwright("hooks", "validate", "-p", str(project), "--trust", home=isolated_home)
    assert proc.returncode == 1, proc.stdout
    assert "  error .hookwright/hooks.yaml (Python): 1 hook failed\n" in proc.stdout
    assert "hooks[0].call: cannot import guards:missing" in proc.stdout
    fixed = "hooks:\n  - {name: fine, event: Stop, call: 'guards:ok'}\n"
    (project / ".hookwright" / "hooks.yaml").write_text(fixed)
    proc = run_hookwright("hooks", "validate", "-p", str(project), "--trust", home=isolated_home)
    assert proc.returncode == 0, proc.stdout
    assert "  ok    .hookwright/hooks.yaml (Python): 1 hook loaded\n" in proc.stdout
