"""`hookwright hooks test --explain`, its input warnings, `--debug` and `HOOKWRIGHT_DEBUG`,
as real subprocesses."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from cli_runner import run_hookwright

GUARDS = """\
from hookwright import deny, add_context
def no_rm(inp):
    return deny('rm is blocked: ' + inp.tool_input['command'])
def ctx(inp):
    return add_context('remember the tests')
def boom(inp):
    raise RuntimeError('broken hook')
"""

HOOKS = """\
hooks:
  - {name: no-rm, event: PreToolUse, matcher: Bash, if: 'Bash(rm *)', call: 'guards:no_rm'}
  - {name: writes, event: PreToolUse, matcher: 'Write|Edit', call: 'guards:ctx'}
  - {name: ctx, event: PreToolUse, call: 'guards:ctx'}
  - {name: switched-off, event: PreToolUse, call: 'guards:ctx', enabled: false}
  - {name: boom, event: PreToolUse, matcher: Bash, call: 'guards:boom'}
  - {name: later, event: PostToolUse, matcher: Bash, call: 'guards:ctx'}
"""

FAILING = (
    "import json, sys; json.load(sys.stdin); "
    "sys.stderr.write('first line\\nthe reason it failed\\n'); sys.exit(1)"
)


def write_project(root: Path) -> Path:
    (root / ".hookwright").mkdir(parents=True)
    (root / ".hookwright" / "guards.py").write_text(GUARDS)
    (root / ".hookwright" / "hooks.yaml").write_text(HOOKS)
    (root / ".claude").mkdir()
    (root / "fail.py").write_text(FAILING.replace("; ", "\n"))
    command = f"{sys.executable} {root / 'fail.py'}"
    settings = {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]
        }
    }
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    return root


def hooks_test(project: Path, home: Path, data: dict[str, Any], *extra: str, **kw: Any) -> Any:
    return run_hookwright(
        "hooks",
        "test",
        "PreToolUse",
        "-i",
        "-",
        "-p",
        str(project),
        *extra,
        stdin=json.dumps(data),
        home=home,
        **kw,
    )


def test_explain_says_why_each_hook_ran_or_not(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(tmp_path / "proj")
    data = {"tool_name": "Bash", "tool_input": {"command": "ls"}}
    proc = hooks_test(project, isolated_home, data, "--explain")
    assert proc.returncode == 0, proc.stderr
    err = proc.stderr
    assert "PreToolUse: 6 hooks for this event, 3 selected; 1 hook only on other events" in err
    py = "(Python, .hookwright/hooks.yaml) [not trusted]"
    assert f"  skip later {py}: event: registered on PostToolUse" in err
    assert (
        f"  skip no-rm {py}: matcher 'Bash' matches tool_name 'Bash'; "
        "`if` rule 'Bash(rm *)' does not match the call" in err
    )
    assert f"  skip writes {py}: matcher 'Write|Edit' does not match" in err
    assert f"  run  ctx {py}: no matcher: runs on every PreToolUse" in err
    assert f"  skip switched-off {py}: disabled: enabled: false" in err
    assert "a session would not run it (`hookwright trust DIR`)" in err
    assert "  boom (Python, .hookwright/hooks.yaml): error — RuntimeError: broken hook" in err
    claude = "(Claude Code, .claude/settings.json)"
    assert f"{claude}: error, exit 1 — Failed with non-blocking status code 1" in err
    assert "      stderr: the reason it failed" in err
    verdict = json.loads(proc.stdout)
    candidates = {c["name"]: c for c in verdict["candidates"]}
    assert candidates["writes"]["check"] == "matcher"
    assert candidates["no-rm"]["check"] == "if"
    assert candidates["switched-off"]["check"] == "disabled"
    assert candidates["later"]["check"] == "event"
    assert candidates["ctx"]["selected"] and candidates["ctx"]["trusted"] is False
    hooks = {h["name"]: h for h in verdict["hooks"]}
    assert hooks["boom"]["error"] == "RuntimeError: broken hook"
    command = next(h for name, h in hooks.items() if name.startswith("command:"))
    assert command["exit_code"] == 1
    assert command["stderr_tail"] == "first line\nthe reason it failed\n"
    assert verdict["warnings"] == []


def test_trusted_hooks_are_not_marked(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(tmp_path / "proj")
    assert run_hookwright("trust", str(project), home=isolated_home).returncode == 0
    data = {"tool_name": "Bash", "tool_input": {"command": "rm -rf x"}}
    proc = hooks_test(project, isolated_home, data, "--explain")
    assert "[not trusted]" not in proc.stderr
    no_rm = "  run  no-rm (Python, .hookwright/hooks.yaml): matcher 'Bash' matches tool_name"
    assert f"{no_rm} 'Bash'; `if` rule" in proc.stderr
    assert all(c["trusted"] for c in json.loads(proc.stdout)["candidates"])


def test_an_input_without_the_matched_field_is_warned_about(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = write_project(tmp_path / "proj")
    plain = hooks_test(project, isolated_home, {"tool_input": {"command": "ls"}})
    warning = (
        "warning: the input has no 'tool_name', which the matchers and `if` rules of PreToolUse "
        "hooks read: every matcher matches and no hook with an `if` rule runs"
    )
    assert warning in plain.stderr
    assert len(plain.stdout.splitlines()) == 1
    explained = hooks_test(project, isolated_home, {"tool_input": {}}, "--explain")
    assert explained.stderr.count(warning) == 1
    assert "matcher 'Bash': the input has no tool_name, so every matcher matches" in (
        explained.stderr
    )
    assert json.loads(explained.stdout)["warnings"] == [warning.removeprefix("warning: ")]


def test_debug_traces_matching_spawning_exit_codes_and_outputs(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = write_project(tmp_path / "proj")
    data = {"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}}
    for extra, env in ((("--debug",), None), ((), {"HOOKWRIGHT_DEBUG": "1"})):
        proc = run_hookwright(
            *extra,
            "hooks",
            "test",
            "PreToolUse",
            "-i",
            "-",
            "-p",
            str(project),
            stdin=json.dumps(data),
            home=isolated_home,
            env=env,
        )
        assert proc.returncode == 0, proc.stderr
        lines = [line for line in proc.stderr.splitlines() if line.startswith("[hookwright debug")]
        text = "\n".join(lines)
        assert "match: PreToolUse (tool_name='Bash'): 6 hooks registered, 4 selected" in text
        assert "match:   skip writes (Python, project): matcher 'Write|Edit' does not match" in text
        assert f'spawn: ["sh", "-c", "{sys.executable} {project / "fail.py"}"]' in text
        assert '"tool_input":{"command":"rm -rf build"}' in text
        assert "exit 1 after" in text and "stderr: first line\\nthe reason it failed" in text
        assert "result: PreToolUse no-rm (Python, project): ok, deny" in text
        assert "result: PreToolUse: merged decision deny, 4 hooks ran" in text
        assert json.loads(proc.stdout)["decision"] == "deny"


def test_no_trace_without_debug(tmp_path: Path, isolated_home: Path) -> None:
    project = write_project(tmp_path / "proj")
    proc = hooks_test(project, isolated_home, {"tool_name": "Bash", "tool_input": {}})
    assert "[hookwright debug" not in proc.stderr


def test_explain_names_a_duplicate_that_runs_once(tmp_path: Path, isolated_home: Path) -> None:
    """The same Claude Code command in the project's and the local settings runs once."""
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    hook = {"type": "command", "command": "echo same"}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    for name in ("settings.json", "settings.local.json"):
        (project / ".claude" / name).write_text(json.dumps(settings))
    data = {"tool_name": "Bash", "tool_input": {"command": "ls"}}
    proc = hooks_test(project, isolated_home, data, "--explain")
    assert proc.returncode == 0, proc.stderr
    assert "identical to a hook before it: runs once" in proc.stderr
    candidates = json.loads(proc.stdout)["candidates"]
    assert sorted(c["check"] for c in candidates) == ["dedup", "selected"]


GUARD_SCRIPT = """import json, sys
json.load(sys.stdin)
sys.stderr.write("boom: the guard broke\\nsee guard.log\\n")
sys.exit(int(sys.argv[1]))
"""


def test_explain_says_a_hook_s_stderr_once(tmp_path: Path, isolated_home: Path) -> None:
    """A failure's error and a block's reason quote the hook's stderr: the lines they say are
    not repeated under them, the others are; the decision is one line."""
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / "guard.py").write_text(GUARD_SCRIPT)
    for code in (1, 2):
        command = f"{sys.executable} {project / 'guard.py'} {code}"
        hook = {"type": "command", "command": command}
        settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
        (project / ".claude" / "settings.json").write_text(json.dumps(settings))
        data = {"tool_name": "Bash", "tool_input": {"command": "ls"}}
        proc = hooks_test(project, isolated_home, data, "--explain")
        assert proc.returncode == 0, proc.stderr
        err = proc.stderr
        assert err.count("boom: the guard broke") == (1 if code == 1 else 2), err
        if code == 1:
            assert "exit 1 — Failed with non-blocking status code 1: boom: the guard broke\n" in err
            assert "\n      stderr: see guard.log\n" in err
        else:
            assert ": boom: the guard broke see guard.log\n" in err
            assert "stderr:" not in err
            decision = err.rstrip("\n").splitlines()[-1]
            assert decision.startswith("decision: deny — "), err
            assert decision.endswith(": boom: the guard broke see guard.log"), err
