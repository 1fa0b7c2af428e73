"""`hooks list` and `hooks test` for skill prompt hooks and dialect-shaped input, through the
real command: what the hook received, what was printed."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from cli_runner import hookwright_rows, run_hookwright
from hookwright.cli.dialect_input import SKILL_TIMINGS
from hookwright.dialects.skills import TIMINGS

HINT = "If the content was truncated, read the rest."


def write_skill(project: Path, tool_filter: list[str]) -> None:
    hooks = project / "skills" / "reader" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "hint.md").write_text(HINT + "\n")
    (hooks / "careful.md").write_text("Be careful.\n")
    entries = [
        {"name": "truncated-content-hint", "file": "hint.md", "timing": "after_tool_call",
         "role": "system", "persistent": False, "tool_filter": tool_filter},
        {"name": "careful", "file": "careful.md", "timing": "after_user_input",
         "role": "system", "persistent": True},
    ]  # fmt: skip
    (hooks / "hooks.json").write_text(json.dumps({"hooks": entries}))


def hooks(*args: str, home: Path, data: dict[str, Any] | None = None) -> Any:
    stdin = json.dumps(data) if data is not None else None
    extra = ("-i", "-") if data is not None else ()
    return run_hookwright("hooks", *args, *extra, stdin=stdin, home=home)


def test_hooks_list_shows_every_skills_hooks(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "proj"
    write_skill(project, ["Read", "Grep"])
    proc = hooks("list", "-p", str(project), home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    assert "no hooks configured" not in proc.stdout
    assert "reader/careful" in proc.stdout and "reader/truncated-content-hint" in proc.stdout
    assert "as after_tool_call — " in proc.stdout and "skill prompt hook" in proc.stdout
    assert all(line.count("after_tool_call") <= 1 for line in proc.stdout.splitlines())
    only = hooks("list", "-p", str(project), "--skill", "reader", "--json", home=isolated_home)
    names = {row["name"] for row in hookwright_rows(only.stdout)}
    assert names == {"reader/careful", "reader/truncated-content-hint"}


def test_an_unknown_skill_is_one_line(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "proj"
    write_skill(project, ["Read"])
    proc = hooks("list", "-p", str(project), "--skill", "nope", home=isolated_home)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"hookwright: error: unknown skill nope: not in {project / 'skills'} (available: reader)"
    )


def test_after_tool_call_runs_the_skill_hook_and_shows_the_prompt(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    write_skill(project, ["Read", "Grep"])
    call = {"tool_name": "Read", "tool_input": {"file_path": "a.txt"}}
    proc = hooks("test", "after_tool_call", "-p", str(project), home=isolated_home, data=call)
    assert proc.returncode == 0, proc.stderr
    verdict = json.loads(proc.stdout)
    assert verdict["event"] == "PostToolBatch"
    assert [hook["name"] for hook in verdict["hooks"]] == ["reader/truncated-content-hint"]
    [prompt] = verdict["prompt_injections"]
    assert prompt["content"] == HINT and prompt["role"] == "system"
    assert f"    | {HINT}" in proc.stderr
    bash = {"tool_name": "Bash", "tool_input": {"command": "ls"}}
    other = hooks("test", "after_tool_call", "-p", str(project), home=isolated_home, data=bash)
    assert "prompt_injections" not in json.loads(other.stdout)


def test_a_tool_filter_the_host_lacks_is_a_warning_with_the_tool_meant(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    write_skill(project, ["read_file", "search_text"])
    config = project / "skills" / "reader" / "hooks" / "hooks.json"
    for proc in (
        hooks("list", "-p", str(project), home=isolated_home),
        hooks("validate", "-p", str(project), home=isolated_home),
    ):
        out = proc.stdout + proc.stderr
        assert "'read_file' is not a tool of this host (did you mean 'Read'?)" in out
        assert "'search_text' is not a tool of this host (did you mean 'Grep'?)" in out
    listed = hooks("list", "-p", str(project), home=isolated_home).stderr
    assert f"warning: {config}: tool_filter: skill 'reader' hook 'truncated-content-hint'" in listed
    assert "rejected skill hook" not in listed


def write_picoclaw(project: Path, log: Path) -> None:
    (project / ".picoclaw").mkdir(parents=True)
    hook = project / "hook.py"
    hook.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    msg = json.loads(line)\n"
        f"    open({str(log)!r}, 'a').write(line)\n"
        "    if 'id' not in msg: continue\n"
        "    params = msg.get('params') or {}\n"
        "    result = {'ok': True}\n"
        "    if msg['method'] == 'hook.before_tool':\n"
        "        rm = 'rm' in (params.get('arguments') or {}).get('command', '')\n"
        "        result = {'action': 'deny_tool' if rm else 'continue', 'reason': 'no rm'}\n"
        "    print(json.dumps({'jsonrpc': '2.0', 'id': msg['id'], 'result': result}),"
        " flush=True)\n"
    )
    process = {"command": [sys.executable, str(hook)], "intercept": ["before_tool"]}
    config = {"hooks": {"processes": {"gate": process}}}
    (project / ".picoclaw" / "config.json").write_text(json.dumps(config))


def test_picoclaw_shaped_input_reaches_the_hook_as_picoclaw_sends_it(
    tmp_path: Path, isolated_home: Path
) -> None:
    project, log = tmp_path / "proj", tmp_path / "received.jsonl"
    write_picoclaw(project, log)
    data = {"tool": "Bash", "arguments": {"command": "rm -rf build"}, "extra": 1}
    proc = hooks("test", "before_tool", "-p", str(project), home=isolated_home, data=data)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["decision"] == "deny"
    [params] = [
        json.loads(line)["params"]
        for line in log.read_text().splitlines()
        if json.loads(line).get("method") == "hook.before_tool"
    ]
    assert params["tool"] == "Bash"
    assert params["arguments"] == {"command": "rm -rf build"}
    assert "warning: PicoClaw before_tool has no field 'extra': passed on as they are" in (
        proc.stderr
    )


def test_a_tool_name_the_host_lacks_gets_the_tool_meant(
    tmp_path: Path, isolated_home: Path
) -> None:
    project, log = tmp_path / "proj", tmp_path / "received.jsonl"
    write_picoclaw(project, log)
    data = {"tool": "exec", "arguments": {"command": "ls"}}
    proc = hooks("test", "before_tool", "-p", str(project), home=isolated_home, data=data)
    assert proc.returncode == 0, proc.stderr
    assert (
        "warning: the input's tool 'exec' is not a tool of this host (did you mean 'Bash'?)"
        in proc.stderr
    )


def test_openharness_envelope_fields_reach_the_hook(tmp_path: Path, isolated_home: Path) -> None:
    project = tmp_path / "proj"
    hooks_dir = project / ".openharness" / "hooks"
    hooks_dir.mkdir(parents=True)
    seen = tmp_path / "seen.json"
    (project / "seen.py").write_text(
        f"import sys\nopen({str(seen)!r}, 'w').write(sys.stdin.read())\n"
    )
    (hooks_dir / "seen.yaml").write_text(
        "name: seen\nevents: [after_tool_dispatch]\n"
        f"handler: {{type: command, command: '{sys.executable} {project / 'seen.py'}'}}\n"
    )
    data = {
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_call_id": "call-7",
        "tool_output": "a.txt",
        "run_id": "run-1",
        "agent_name": "reviewer",
        "colour": "blue",
    }
    proc = hooks("test", "after_tool_dispatch", "-p", str(project), home=isolated_home, data=data)
    assert proc.returncode == 0, proc.stderr
    envelope = json.loads(seen.read_text())
    assert envelope["tool_call_id"] == "call-7"
    assert envelope["tool_output"] == "a.txt"
    assert envelope["run_id"] == "run-1"
    assert envelope["agent_name"] == "reviewer"
    assert "warning: OpenHarness after_tool_dispatch has no field 'colour'" in proc.stderr


def test_the_command_knows_every_skill_timing() -> None:
    assert frozenset(TIMINGS) == SKILL_TIMINGS


def test_the_reference_agents_tools_are_the_ones_checked_against() -> None:
    from hookwright.core.tool_names import REFERENCE_AGENT_TOOLS
    from hookwright.runtime.tools import default_tools

    assert set(REFERENCE_AGENT_TOOLS) == {*default_tools().names(), "Agent"}


def test_run_warns_about_a_tool_filter_when_it_opens_the_skill(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    write_skill(project, ["read_file"])
    (project / "script.yaml").write_text('turns:\n  - content: "done"\n')
    proc = run_hookwright(
        "run", "go", "--project", str(project), "--skill", "reader", "--trust",
        "--model", f"scripted:{project / 'script.yaml'}", home=isolated_home,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "'read_file' is not a tool of this host (did you mean 'Read'?)" in proc.stderr
