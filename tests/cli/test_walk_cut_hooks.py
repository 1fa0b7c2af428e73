"""A hook selected for a call that an earlier hook's deny kept from running, through the real
command: `run --summary` says whose deny on which call cut it (and, for a hook that nothing
cut, why it did not run), and the audit records it as status `cut` in every view, its hash
chain still whole."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cli.walk_kit import scripted_bash, summary_rows
from cli_runner import run_hookwright

#: The Claude Code guard: denies a `curl` (exit 2, its reason on stderr), lets the rest by.
GUARD = """#!/bin/sh
grep -q '"curl ' && { echo 'no network' >&2; exit 2; }
exit 0
"""
#: The OpenHarness hook: leaves a mark for each call it sees, so the test sees whether it ran.
MARKER = """import json, sys
call = json.load(sys.stdin)["tool_input"]["command"]
with open(sys.argv[1], "a") as out:
    out.write(call + "\\n")
"""


def _project(root: Path, seen: Path) -> Path:
    """A Claude Code guard on Bash, then an OpenHarness hook on Bash that marks `seen`, one
    on Write (no Write call comes) and one on an event no run of one prompt fires."""
    project = root / "proj"
    guard = project / ".claude" / "guard.sh"
    guard.parent.mkdir(parents=True)
    guard.write_text(GUARD)
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "sh .claude/guard.sh"}]}]}}  # fmt: skip
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    hooks = project / ".openharness" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "marker.py").write_text(MARKER)
    marker = {"type": "command", "command": f"{sys.executable} {hooks / 'marker.py'} {seen}"}
    declared = {
        "marker": {"events": ["before_tool_dispatch"], "matcher": "Bash", "handler": marker},
        "writes": {"events": ["before_tool_dispatch"], "matcher": "Write", "handler": marker},
        "compact": {"events": ["before_context_compact"], "handler": marker},
    }
    for name, hook in declared.items():
        (hooks / f"{name}.yaml").write_text(json.dumps({"name": name, **hook}))
    return project


def test_a_hook_an_earlier_deny_cut_says_so_in_the_summary_and_the_audit(
    tmp_path: Path, isolated_home: Path
) -> None:
    seen = tmp_path / "seen.txt"
    project = _project(tmp_path, seen)
    model = scripted_bash(tmp_path / "model.json", "curl example.com", "echo hi")
    ran = run_hookwright("run", "go", "-p", str(project), "--trust", "--model", f"scripted:{model}",
                         "--permission-mode", "bypassPermissions", "--summary",
                         home=isolated_home)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert seen.read_text() == "echo hi\n"  # the marker ran on the call the guard let by only
    rows = summary_rows(ran.stdout)
    assert "cut by guard.sh's deny on Bash curl example.com" in rows["marker"], ran.stdout
    writes = "did not run: its matcher 'Write' matched no call (Bash ×2)"
    assert writes in rows["writes"], ran.stdout
    never = "did not run: before_context_compact (PreCompact) never fired"
    assert never in rows["compact"], ran.stdout

    log = isolated_home / ".hookwright" / "audit.jsonl"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    [cut] = [r for r in records if r["status"] == "cut"]
    assert cut["hook"] == "marker" and cut["tool_name"] == "Bash"
    assert cut["cut_by"] == {"hook": "command:sh .claude/guard.sh", "decision": "deny"}
    assert cut["decision"] is None and cut["effect"] is None  # it decided nothing
    shown = run_hookwright("audit", home=isolated_home).stdout
    assert "marker (OpenHarness, .openharness/hooks/marker.yaml): cut by guard.sh's deny on " \
        "Bash curl example.com" in shown, shown  # fmt: skip
    summary = run_hookwright("audit", "--summary", home=isolated_home).stdout
    assert ["marker", "cut", "1"] in [line.split()[1:] for line in summary.splitlines()], summary
    as_json = run_hookwright("audit", "--format", "jsonl", home=isolated_home).stdout
    assert [json.loads(line).get("cut_by") for line in as_json.splitlines()].count(
        cut["cut_by"]
    ) == 1
    as_csv = run_hookwright("audit", "--format", "csv", home=isolated_home).stdout.splitlines()
    assert as_csv[0].endswith(",cut_by") and sum(",cut," in line for line in as_csv) == 1
    verified = run_hookwright("audit", "verify", home=isolated_home)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_hook_only_ever_cut_says_so_and_not_that_its_event_never_fired(
    tmp_path: Path, isolated_home: Path
) -> None:
    seen = tmp_path / "seen.txt"
    project = _project(tmp_path, seen)
    model = scripted_bash(tmp_path / "model.json", "curl example.com")
    ran = run_hookwright("run", "go", "-p", str(project), "--trust", "--model", f"scripted:{model}",
                         "--permission-mode", "bypassPermissions", "--summary",
                         home=isolated_home)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert not seen.exists()  # the marker never ran
    marker = summary_rows(ran.stdout)["marker"]
    assert "did not run: cut by guard.sh's deny on Bash curl example.com" in marker, ran.stdout
    assert "never fired" not in marker, ran.stdout
