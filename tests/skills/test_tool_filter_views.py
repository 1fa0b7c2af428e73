"""A skill hook's `tool_filter` is its matcher in the views: `hooks list` shows the tools it
names where other hooks show their matcher, and `hooks test --explain` (and the `--debug`
trace) say which tools it names and whether the tested call's tool is one of them, instead of
"no matcher"; through the real command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_hookwright

#: The filter of the skill hook documentation's example.
FILTER = ["read_file", "search_text"]


def _project(root: Path) -> Path:
    hooks = root / "skills" / "review" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "after-read.md").write_text("Quote the lines you rely on.\n")
    entry = {"name": "after-read", "file": "after-read.md", "timing": "after_tool_call",
             "role": "system", "persistent": False, "tool_filter": FILTER}  # fmt: skip
    (hooks / "hooks.json").write_text(json.dumps({"hooks": [entry]}))
    return root


def _trusted(root: Path, home: Path) -> Path:
    project = _project(root)
    trusted = run_hookwright("trust", str(project), home=home)
    assert trusted.returncode == 0, trusted.stderr
    return project


def test_hooks_list_shows_the_tool_filter_as_the_matcher(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _trusted(tmp_path / "proj", isolated_home)
    listed = run_hookwright("hooks", "list", "-p", str(project), home=isolated_home,
                            env={"COLUMNS": "80"})  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    assert "   1 review/after-read  read_file, search_text  skill · parallel" in listed.stdout
    assert "  *  " not in listed.stdout, listed.stdout
    as_json = run_hookwright("hooks", "list", "-p", str(project), "--json", home=isolated_home)
    (hook,) = json.loads(as_json.stdout)["hooks"]
    assert hook["matcher"] == "read_file, search_text"


def test_an_untrusted_skill_hook_is_listed_with_its_tool_filter_too(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = _project(tmp_path / "proj")
    listed = run_hookwright("hooks", "list", "-p", str(project), home=isolated_home)
    assert listed.returncode == 0, listed.stderr
    assert "   - review/after-read  read_file, search_text  skill" in listed.stdout


@pytest.mark.parametrize(
    ("tested", "said"),
    [
        ({"tool_name": "Read"}, "does not match tool 'Read': adds nothing"),
        ({"tool_name": "read_file"}, "matches tool 'read_file'"),
        ({"tool_calls": [{"tool_name": "Grep"}, {"tool_name": "search_text"}]},
         "matches tool 'search_text' (not 'Grep')"),
    ],
    ids=["other-tool", "named-tool", "batch"],
)  # fmt: skip
def test_explain_says_which_tools_the_filter_names_and_whether_the_call_matched(
    tmp_path: Path, isolated_home: Path, tested: dict[str, object], said: str
) -> None:
    project = _trusted(tmp_path / "proj", isolated_home)
    proc = run_hookwright("hooks", "test", "after_tool_call", "-i", "-", "-p", str(project),
                          "--explain", stdin=json.dumps(tested),
                          home=isolated_home)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    label = "review/after-read (skill, skills/review/hooks/after-read.md)"
    line = f"  run  after_tool_call (PostToolBatch) {label}: tool_filter read_file, search_text"
    assert f"{line} {said}\n" in proc.stderr, proc.stderr
    assert "no matcher" not in proc.stderr
    injected = json.loads(proc.stdout).get("prompt_injections", [])
    assert bool(injected) == ("does not match" not in said), proc.stdout
