"""The reference agent says which hooks will not run, and holds the failure policy for hooks
added as it runs: `hookwright run` (a real subprocess, a scripted model) prints one line per
hook on stderr and writes a `not_run` audit record; a subagent's frontmatter hook that a user
policy closes blocks the tool when its program is missing. `hooks list` and `hooks validate`
say how each hook fails and what closed it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_runner import hookwright_rows
from cli_runner import run_hookwright as hookwright
from hookwright.host import FailurePolicy, HookInfo, HookSession
from hookwright.host.failure_policy import FailureMode, failure_mode
from terminal import Terminal


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def settings_hooks(project: Path, *commands: str) -> Path:
    """`.claude/settings.json` with one PreToolUse command hook (matcher Bash) per command."""
    groups = [{"matcher": "Bash", "hooks": [{"type": "command", "command": c}]} for c in commands]
    return write(
        project / ".claude" / "settings.json", json.dumps({"hooks": {"PreToolUse": groups}})
    )


def script(path: Path, *turns: dict[str, Any]) -> str:
    write(path, json.dumps({"turns": list(turns)}))
    return f"scripted:{path}"


def bash(command: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "Bash", "arguments": {"command": command}}]}


def events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def audit(home: Path) -> list[dict[str, Any]]:
    path = home / ".hookwright" / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def run(project: Path, model: str, home: Path, *flags: str) -> tuple[int, list[str], list[Any]]:
    proc = hookwright(
        "run", "go", "-p", str(project), "--model", model, "--json",
        "--permission-mode", "bypassPermissions", *flags, home=home,
    )  # fmt: skip
    return proc.returncode, proc.stderr.splitlines(), events(proc.stdout)


def test_an_untrusted_folder_is_said_once_on_stderr_and_each_hook_in_the_audit(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    settings = settings_hooks(project, "echo one", "echo two")
    model = script(tmp_path / "model.json", bash("touch ran.txt"), {"content": "done"})
    code, stderr, stream = run(project, model, isolated_home)
    assert code == 0, stderr
    assert (project / "ran.txt").exists()  # nothing closes these hooks
    trust = f"trust the folder with: hookwright trust {project}, or run again with --trust"
    assert stderr == [  # the folder once, naming each hook held back, as the terminal says it
        f"warning: {project}: 2 hooks not run: untrusted; {trust} "
        "(command:echo one (Claude Code), command:echo two (Claude Code))"
    ]
    [start] = [e for e in stream if e["type"] == "session_start"]
    records = [r for r in audit(isolated_home) if r["status"] == "not_run"]
    assert [(r["hook"], r["error"], r["session_id"]) for r in records] == [
        ("command:echo one", "untrusted", start["session_id"]),
        ("command:echo two", "untrusted", start["session_id"]),
    ]
    assert [r["reason"] for r in records] == [  # the audit keeps one record per hook
        f"{settings}:hooks.PreToolUse[{index}].hooks[0]: hook 'command:{command}' (Claude Code) "
        f"not run: untrusted; {trust}"
        for index, command in enumerate(("echo one", "echo two"))
    ]


def guarded_agent(project: Path) -> Path:
    """A subagent whose frontmatter guards Bash with a script that is not there."""
    hook = {"type": "command", "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard-gone.sh'}
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}
    text = f"---\nname: guarded\nhooks: {json.dumps(hooks)}\n---\nYou help.\n"
    return write(project / ".claude" / "agents" / "guarded.md", text)


def subagent_run(tmp_path: Path, home: Path) -> tuple[Path, list[str], list[Any]]:
    project = tmp_path / "proj"
    guarded_agent(project)
    model = script(
        tmp_path / "model.json",
        {
            "tool_calls": [
                {"name": "Agent", "arguments": {"prompt": "p", "subagent_type": "guarded"}}
            ]
        },
        bash("touch ran.txt"),
        {"content": "child done"},
        {"content": "all done"},
    )
    code, stderr, stream = run(project, model, home, "--trust")
    assert code == 0, stderr
    return project, stderr, stream


def test_a_frontmatter_hook_a_user_policy_closes_blocks_when_its_program_is_missing(
    tmp_path: Path, isolated_home: Path
) -> None:
    policy = "rules:\n  - fail: closed\n    hooks: ['*guard-gone*']\n"
    write(isolated_home / ".hookwright" / "policy.yaml", policy)
    project, stderr, stream = subagent_run(tmp_path, isolated_home)
    assert not (project / "ran.txt").exists()
    [result] = [e for e in stream if e["type"] == "tool_result" and e["name"] == "Bash"]
    assert result["is_error"] and "guard-gone.sh" in result["content"], result
    [hook] = [e for e in stream if e["type"] == "hook_result" and e["event"] == "PreToolUse"]
    assert (hook["status"], hook["decision"]) == ("error", "deny")
    assert stderr == []


def test_the_same_frontmatter_hook_fails_open_without_the_policy(
    tmp_path: Path, isolated_home: Path
) -> None:
    project, stderr, stream = subagent_run(tmp_path, isolated_home)
    assert (project / "ran.txt").exists()  # Claude Code's non-blocking error
    [hook] = [e for e in stream if e["type"] == "hook_result" and e["event"] == "PreToolUse"]
    assert (hook["status"], hook["decision"]) == ("error", None)
    assert stderr == []


async def test_skill_prompt_hooks_are_closed_by_the_projects_policy(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    policy = write(
        project / ".hookwright" / "policy.yaml", "rules:\n  - fail: closed\n    dialects: [skill]\n"
    )
    hook = HookInfo(
        name="remind",
        file="remind.md",
        timing="before_each_agent",
        role="system",
        persistent=False,
        tool_filter=None,
        content="be tidy",
        skill="tidy",
    )
    session = await HookSession.open(project, home=isolated_home)
    try:
        session.add_skill_hooks([hook])
        [spec] = [s for s in session.engine.hooks() if s.dialect == "skill"]
        assert spec.on_error == "block"
        assert failure_mode(spec, session.failure_policy or FailurePolicy()) == FailureMode(
            "closed", f"{policy}: rules[0]"
        )
    finally:
        await session.aclose()


def test_hooks_list_and_validate_say_how_each_hook_fails(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    settings = settings_hooks(project, "./guard.sh", "echo note")
    policy = write(
        isolated_home / ".hookwright" / "policy.yaml",
        "rules:\n  - fail: closed\n    hooks: ['command:./guard.sh']\n",
    )
    assert hookwright("trust", str(project), home=isolated_home).returncode == 0
    rule = f"{policy}: rules[0]"

    listed = hookwright("hooks", "list", "--json", "-p", str(project), home=isolated_home)
    assert listed.returncode == 0, listed.stderr
    rows = {row["name"]: row for row in hookwright_rows(listed.stdout)}
    assert (rows["command:./guard.sh"]["fails"], rows["command:./guard.sh"]["closed_by"]) == (
        "closed",
        rule,
    )
    assert (rows["command:echo note"]["fails"], rows["command:echo note"]["closed_by"]) == (
        "open",
        None,
    )
    text = hookwright("hooks", "list", "-p", str(project), home=isolated_home).stdout
    assert "fails closed" in text and "fails open" in text
    assert "closed by ~/.hookwright/policy.yaml: rules[0]" in text  # under HOME, shortened

    checked = hookwright("hooks", "validate", "--json", "-p", str(project), home=isolated_home)
    [file] = [f for f in json.loads(checked.stdout)["files"] if f["file"] == str(settings)]
    assert file["failure_modes"] == [
        {"hook": "command:./guard.sh", "event": "PreToolUse", "fails": "closed", "closed_by": rule},
        {"hook": "command:echo note", "event": "PreToolUse", "fails": "open", "closed_by": None},
    ]
    lines = hookwright("hooks", "validate", "-p", str(project), home=isolated_home).stdout
    assert f"fails closed: command:./guard.sh on PreToolUse, closed by {rule}" in lines
    assert "failure modes (per hook and event): 1 closed, 1 open" in lines


def test_chat_says_which_hooks_will_not_run_and_lists_them_with_why(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "repo"
    hooks = "hooks:\n  - {name: gone, event: PreToolUse, call: 'hookwright_no_such_module:guard'}\n"
    write(project / ".hookwright" / "hooks.yaml", hooks)
    model = script(tmp_path / "model.json", {"content": "the answer"})
    term = Terminal(["chat", "--project", str(project), "--trust", "--model", model],
                    isolated_home, project)  # fmt: skip
    term.expect("› ")
    term.send("/hooks")
    term.expect("will not run: hooks[0].call: cannot")
    term.send("/exit")
    assert term.close() == 0
    said = "hook 'gone' (Python) not run: hooks[0].call: cannot import hookwright_no_such_module"
    assert said in term.output
    assert term.output.count("error: ") == 1  # said once, as the not-run line
    listed = term.output[term.output.index("/hooks") :]
    assert "gone" in listed and "fails open" in listed
