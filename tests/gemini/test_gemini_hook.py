"""`hookwright hook gemini` as a real subprocess: Gemini CLI 0.61.0's stdin in, the answer a
Gemini command hook prints, from a project's Claude Code guard, trust and the failure policy;
hostile input is refused with exit 2 (Gemini's block), never let through unjudged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.cli_runner import run_hookwright
from tests.gemini.project import gemini_input, guarded_project, shell_call


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return guarded_project(tmp_path / "project")


@pytest.fixture
def home(tmp_path: Path, project: Path) -> Path:
    home = tmp_path / "home"
    assert run_hookwright("trust", str(project), home=home).returncode == 0
    return home


def ask(home: Path, stdin: str, env: dict[str, str] | None = None) -> dict[str, object]:
    asked = run_hookwright("hook", "gemini", home=home, stdin=stdin, env=env)
    assert asked.returncode == 0, asked.stderr
    return json.loads(asked.stdout) if asked.stdout else {}


def test_a_claude_code_guard_denies_gemini_s_shell_call_in_gemini_terms(
    project: Path, home: Path
) -> None:
    answer = ask(home, shell_call(project, "rm -rf build"))
    assert answer.keys() == {"decision", "reason"}
    assert answer["decision"] == "deny"
    assert "no deleting here" in str(answer["reason"])


def test_a_rewrite_is_gemini_s_tool_input_and_an_allow_alone_prints_nothing(
    project: Path, home: Path
) -> None:
    answer = ask(home, shell_call(project, "echo unsafe"))
    assert answer == {
        "hookSpecificOutput": {
            "hookEventName": "BeforeTool",
            "tool_input": {"command": "echo safe"},
        }
    }
    assert ask(home, shell_call(project, "ls")) == {}


def test_after_tool_context_reads_gemini_s_llm_content(project: Path, home: Path) -> None:
    response = {"llmContent": "Output: hi", "returnDisplay": "hi"}
    answer = ask(home, shell_call(project, "echo hi", "AfterTool", tool_response=response))
    specific = answer["hookSpecificOutput"]
    assert specific == {
        "hookEventName": "AfterTool",
        "additionalContext": "CHECKED Bash Output: hi",
    }


def test_the_project_comes_from_gemini_project_dir(
    project: Path, home: Path, tmp_path: Path
) -> None:
    elsewhere = shell_call(project, "rm -rf build").replace(str(project), str(tmp_path))
    answer = ask(home, elsewhere, env={"GEMINI_PROJECT_DIR": str(project)})
    assert answer["decision"] == "deny"


def test_an_untrusted_project_runs_nothing_and_says_so_at_session_start(
    project: Path, tmp_path: Path
) -> None:
    home = tmp_path / "stranger"
    (project / ".hookwright").mkdir()
    assert ask(home, shell_call(project, "rm -rf build")).get("decision") is None
    started = ask(home, gemini_input(project, "SessionStart", source="startup"))
    assert f"trust it with: hookwright trust {project}" in str(started["systemMessage"])


def test_an_untrusted_guard_under_a_fail_closed_policy_denies(
    project: Path, tmp_path: Path
) -> None:
    home = tmp_path / "stranger"
    (home / ".hookwright").mkdir(parents=True)
    (home / ".hookwright" / "policy.yaml").write_text("rules:\n  - fail: closed\n")
    answer = ask(home, shell_call(project, "ls"))
    assert answer["decision"] == "deny"
    assert f"hookwright trust {project}" in str(answer["reason"])


def test_events_hookwright_does_not_answer_print_nothing(project: Path, home: Path) -> None:
    for event in ("AfterModel", "BeforeToolSelection", "PreCompress", "SomethingNew"):
        assert ask(home, gemini_input(project, event)) == {}


DEEP = "[" * 5000 + "]" * 5000


@pytest.mark.parametrize(
    ("stdin", "said"),
    [
        ("not json", "not a JSON hook input"),
        ("[1, 2]", "not a JSON object"),
        ('{"hook_event_name": 7}', "not an event name"),
        ('{"tool_input": {}}', "not an event name"),
        ('{"hook_event_name": "BeforeTool", "tool_input": ' + DEEP + "}", "deeper than"),
        ('{"hook_event_name": "BeforeTool", "n": 1' + "0" * 5000 + "}", "digits"),
    ],
)
def test_an_input_hookwright_cannot_read_is_refused_with_exit_2(
    home: Path, stdin: str, said: str
) -> None:
    asked = run_hookwright("hook", "gemini", home=home, stdin=stdin)
    assert asked.returncode == 2
    assert asked.stdout == ""
    assert said in asked.stderr
    assert asked.stderr.count("\n") == 1


def test_an_input_that_is_not_utf8_is_refused(home: Path) -> None:
    env = {**os.environ, "HOME": str(home)}
    command = [sys.executable, "-m", "hookwright", "hook", "gemini"]
    asked = subprocess.run(
        command, input=b'{"a": "\xff"}', capture_output=True, env=env, timeout=60
    )
    assert asked.returncode == 2
    assert b"not valid UTF-8 (byte 0xff at offset 7)" in asked.stderr


def test_an_input_over_the_size_cap_is_refused(project: Path, home: Path) -> None:
    huge = shell_call(project, "echo " + "x" * 10_000_001)
    asked = run_hookwright("hook", "gemini", home=home, stdin=huge)
    assert asked.returncode == 2
    assert "longer than" in asked.stderr


def test_hostile_fields_are_ignored_not_passed_on(project: Path, home: Path) -> None:
    hostile = json.loads(shell_call(project, "rm -rf build"))
    hostile |= {"event": "x", "self": 1, "__class__": {}, "tool_name": "run_shell_command"}
    hostile["tool_input"]["command"] = "rm -rf build"
    assert ask(home, json.dumps(hostile))["decision"] == "deny"
    not_an_object = json.loads(shell_call(project, "ls"))
    not_an_object["tool_input"] = ["rm", "-rf", "build"]
    assert ask(home, json.dumps(not_an_object)) == {}
