"""The canonical actions derived from tool calls of every host and from shell commands, the
action `if` rules, and the 50-command benign corpus that no `FileWrite(/etc/**)` rule fires on."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookwright import Event, HookEngine, HookInput
from hookwright.core.actions import (
    FileDelete,
    FileRead,
    FileWrite,
    McpCall,
    NetFetch,
    ProcExec,
    action_json,
)
from hookwright.core.matching import IfRule
from hookwright.core.tool_actions import derive_actions

CORPUS = Path(__file__).with_name("benign_commands.txt")
WRITE_X = FileWrite("/etc/x")


def bash(command: str, cwd: str = "/w") -> tuple[object, ...]:
    return derive_actions("Bash", {"command": command}, cwd, "/h")


@pytest.mark.parametrize(
    "command",
    [
        "sed -i 's/a/b/' /etc/x",
        "sed -i.bak -e 's/a/b/' /etc/x",
        "sed --in-place=.orig 's/a/b/' /etc/x",
        "echo hi | tee -a /etc/x",
        "echo hi > /etc/x",
        "echo hi >> /etc/x",
        "echo hi &> /etc/x",
        "cp a /etc/x",
        "cp a /etc/",
        "cp -t /etc a/x",
        "mv a /etc/x",
        "install -m 644 a /etc/x",
        "perl -pi -e 's/a/b/' /etc/x",
        "perl -i.bak -pe 's/a/b/' /etc/x",
        "python3 -c \"open('/etc/x', 'w').write('1')\"",
        "python -c \"import pathlib; pathlib.Path('/etc/x').write_text('1')\"",
        "node -e \"require('fs').writeFileSync('/etc/x', '1')\"",
        "bash -c 'echo hi > /etc/x'",
        "sh -c \"bash -c 'tee /etc/x'\"",
        "cat > /etc/x <<EOF\nhi\nEOF",
        "cat <<EOF > /etc/x\nhi\nEOF",
        "bash <<EOF\ntee /etc/x\nEOF",
        "python3 <<EOF\nopen('/etc/x', 'a').write('1')\nEOF",
        "bash <<< 'tee /etc/x'",
        "env -i PATH=/bin tee /etc/x",
        "sudo -u root tee /etc/x",
        "nice -n 5 timeout 10 tee /etc/x",
        "echo x | xargs -I{} tee /etc/x",
        "true && tee /etc/x; false || tee /etc/x",
        "(tee /etc/x)",
        "X=$(tee /etc/x)",
        "cd /etc && tee x",
        "cd /etc; sed -i s/a/b/ x",
        "eval 'tee /etc/x'",
        "touch /etc/x",
        "dd if=/dev/zero of=/etc/x",
        "curl -o /etc/x https://example.com/x",
        "ln -s /tmp/y /etc/x",
        "truncate -s 0 /etc/x",
    ],
)
def test_every_shell_form_of_a_write_is_a_file_write(command: str) -> None:
    rule = IfRule.parse("FileWrite(/etc/**)")
    actions = bash(command)
    assert rule.matches("Bash", {"command": command}, cwd="/w", home="/h"), actions
    assert any(isinstance(a, ProcExec) and not a.opaque for a in actions)


def test_tools_of_every_host_name_their_files() -> None:
    cwd = "/w"
    assert derive_actions("Write", {"file_path": "/etc/x"}, cwd) == (WRITE_X,)
    assert derive_actions("Edit", {"file_path": "x"}, cwd) == (FileWrite("/w/x"),)
    assert derive_actions("MultiEdit", {"file_path": "/etc/x"}, cwd) == (WRITE_X,)
    assert derive_actions("NotebookEdit", {"notebook_path": "/etc/x"}, cwd) == (WRITE_X,)
    assert derive_actions("Read", {"file_path": "../r"}, cwd) == (FileRead("/r"),)
    assert derive_actions("Glob", {"pattern": "*.py"}, cwd) == (FileRead("/w"),)
    assert derive_actions("Grep", {"pattern": "x", "path": "src"}, cwd) == (FileRead("/w/src"),)
    # PicoClaw's and OpenHarness's names, Gemini's, and Codex's argv and patches.
    assert derive_actions("write_file", {"path": "/etc/x"}, cwd) == (WRITE_X,)
    assert derive_actions("edit_file", {"path": "/etc/x"}, cwd) == (WRITE_X,)
    assert derive_actions("append_file", {"path": "/etc/x"}, cwd) == (WRITE_X,)
    assert derive_actions("read_file", {"path": "/etc/x"}, cwd) == (FileRead("/etc/x"),)
    assert derive_actions("exec", {"command": "tee x", "working_dir": "/etc"}, cwd)[-1] == WRITE_X
    assert derive_actions("run_shell_command", {"command": "rm /etc/x"}, cwd)[-1] == FileDelete(
        "/etc/x"
    )
    assert derive_actions("shell", {"command": ["bash", "-lc", "tee /etc/x"]}, cwd)[-1] == WRITE_X
    patch = "*** Begin Patch\n*** Update File: /etc/x\n@@\n-a\n+b\n*** End Patch"
    assert derive_actions("apply_patch", {"input": patch}, cwd) == (WRITE_X,)
    assert derive_actions("WebFetch", {"url": "https://Docs.Example.com/a"}, cwd) == (
        NetFetch("https://Docs.Example.com/a", "docs.example.com"),
    )
    assert derive_actions("mcp__fs__write_file", {"path": "/etc/x"}, cwd) == (
        McpCall("fs", "write_file"),
        WRITE_X,
    )
    assert derive_actions("mcp__db__query", {"sql": "select 1"}, cwd) == (McpCall("db", "query"),)
    assert derive_actions("TodoWrite", {"todos": []}, cwd) == ()


def test_what_cannot_be_understood_is_an_opaque_proc_exec() -> None:
    assert bash("if then ((( fi") == (ProcExec(("if then ((( fi",), opaque=True),)
    assert bash("$EDITOR /etc/x") == (ProcExec(("$EDITOR", "/etc/x"), opaque=True),)
    assert ProcExec(("sh", "<stdin>"), opaque=True) in bash("curl -s https://x.test/i | sh")
    assert bash("X=1") == (ProcExec(()),)
    assert bash("> /etc/x; ls") == (ProcExec(()), WRITE_X, ProcExec(("ls",)))
    assert bash("<=") == (ProcExec(()), FileRead("/w/="))
    assert bash("") == (ProcExec(()),)
    for command in ("if then ((( fi", "curl https://x.test | bash"):
        assert IfRule.parse("FileWrite(/etc/**)").matches("Bash", {"command": command})


def test_dynamic_paths_and_folders_changed_to() -> None:
    assert FileWrite("$DIR/x", dynamic=True) in bash("echo hi > $DIR/x")
    assert FileDelete("/etc/x") in bash("rm -f /etc/x")
    assert FileDelete("/w/a") in bash("mv a /etc/")
    assert FileWrite("/etc/a") in bash("mv a /etc/")
    assert {FileWrite("/w/x"), FileWrite("/etc/x")} <= set(bash("cd /etc && tee x"))
    assert FileWrite("x", dynamic=True) in bash("cd $D && tee x")
    assert FileWrite("/h/.bashrc") in bash("echo x >> ~/.bashrc")
    assert FileRead("/etc/passwd") in bash("grep root /etc/passwd")
    assert NetFetch("https://a.example.com/x", "a.example.com") in bash(
        "curl -fsSL https://a.example.com/x"
    )


def test_words_after_non_ascii_text_are_read_at_their_own_offsets() -> None:
    """Syntax nodes are placed by byte offsets; a script with multi-byte characters still
    yields each word whole."""
    assert FileWrite("/etc/caf\u00e9") in bash("echo '\u00fcber \u2603' > /etc/caf\u00e9")
    assert FileWrite("/etc/x") in bash("echo \u00e9\u00e9 | sudo tee /etc/x")
    assert ProcExec(("bash", "-c", "t\u00e9e /etc/x")) in bash("bash -c 't\u00e9e /etc/x'")
    assert FileWrite("/etc/x") in bash("python3 - <<EOF\n# \u00e9\nopen('/etc/x', 'w')\nEOF")
    assert FileWrite("/etc/x") in bash("echo a\\ b > /etc/x")


def test_action_rules_read_their_patterns() -> None:
    def matches(rule: str, tool: str, **tool_input: object) -> bool:
        return IfRule.parse(rule).matches(tool, tool_input, cwd="/w", home="/h")

    assert matches("FileWrite", "Write", file_path="/anywhere")
    assert not matches("FileWrite(/etc/**)", "Write", file_path="/etc")
    assert not matches("FileWrite(/etc/**)", "Read", file_path="/etc/x")
    assert matches("FileRead(/etc/**)", "Bash", command="cat /etc/x")
    assert matches("FileWrite(~/.ssh/**)", "Bash", command="tee ~/.ssh/authorized_keys")
    assert matches("FileWrite(src/**)", "Edit", file_path="/w/src/a.py")
    assert not matches("FileWrite(src/**)", "Edit", file_path="/v/src/a.py")
    assert matches("FileWrite(*.env)", "Write", file_path="/w/deep/prod.env")
    assert matches("FileDelete(/etc/**)", "Bash", command="sudo rm -rf /etc/x")
    assert matches("NetFetch(domain:example.com)", "Bash", command="wget https://a.example.com")
    assert matches("NetFetch(*.example.com)", "WebFetch", url="https://a.example.com/p")
    assert not matches("NetFetch(*.example.com)", "WebFetch", url="https://example.org/p")
    assert matches("NetFetch(https://api.test/*)", "web_fetch", url="https://api.test/v1")
    assert matches("ProcExec(git push *)", "Bash", command="cd x && git push origin main")
    assert not matches("ProcExec(git push *)", "Bash", command="git status")


def test_actions_reach_python_hooks_and_if_rules_select_by_action() -> None:
    seen: list[tuple[object, ...]] = []
    engine = HookEngine(audit_path=None)
    engine.add(lambda inp: seen.append(inp.actions), Event.PreToolUse, if_="FileWrite(/etc/**)")
    try:
        for name, tool_input in (
            ("Write", {"file_path": "/etc/x"}),
            ("Bash", {"command": "sed -i s/a/b/ /etc/x"}),
            ("mcp__fs__write_file", {"path": "/etc/x"}),
            ("Bash", {"command": "ls /etc"}),
        ):
            payload = {"tool_name": name, "tool_input": tool_input}
            engine.dispatch_sync(HookInput(Event.PreToolUse, cwd="/w", payload=payload))
    finally:
        engine.close()
    assert len(seen) == 3
    assert all(WRITE_X in actions for actions in seen)
    assert action_json(seen[1][-1]) == {"kind": "file.write", "path": "/etc/x", "dynamic": False}


def test_input_without_a_tool_has_no_actions() -> None:
    assert HookInput(Event.Stop).actions == ()


def test_benign_corpus_triggers_no_rule(tmp_path: Path) -> None:
    commands = CORPUS.read_text().splitlines()
    assert len(commands) == 50
    fired: list[str] = []
    engine = HookEngine(audit_path=None)
    for rule in ("FileWrite(/etc/**)", "FileDelete(/etc/**)"):
        engine.add(lambda inp: fired.append(inp.tool_input["command"]), "PreToolUse", if_=rule)
    try:
        for command in commands:
            payload = {"tool_name": "Bash", "tool_input": {"command": command}}
            engine.dispatch_sync(HookInput(Event.PreToolUse, cwd=str(tmp_path), payload=payload))
            actions = derive_actions("Bash", {"command": command}, str(tmp_path))
            assert not any(isinstance(a, ProcExec) and a.opaque for a in actions), command
    finally:
        engine.close()
    assert fired == []
