"""Properties of the action derivation: whatever the command or the tool input, it returns
(never raises) and a shell command always has at least one action."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookwright.core.actions import ProcExec
from hookwright.core.matching import IfRule
from hookwright.core.tool_actions import derive_actions

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
WORDS = st.sampled_from(
    [
        "tee",
        "sed",
        "-i",
        "-e",
        "cp",
        "mv",
        "rm",
        "-rf",
        "perl",
        "-pi",
        "python3",
        "-c",
        "bash",
        "sh",
        "env",
        "sudo",
        "xargs",
        "-I{}",
        "{}",
        "find",
        "-delete",
        "-exec",
        ";",
        "cd",
        "eval",
        "curl",
        "-o",
        "https://h.test/x",
        "/etc/x",
        "x",
        "~/y",
        "$D",
        "$(ls)",
        "'a b'",
        '"c"',
        "open('/etc/x','w')",
        "<<EOF",
        "EOF",
        "\n",
        "|",
        "&&",
        "||",
        ">",
        ">>",
        "<",
        "2>&1",
        "(",
        ")",
        "`",
        "\\",
        "=",
        "X=1",
        "#",
        "{",
        "}",
        "--",
        "-",
    ]
)
COMMANDS = st.one_of(st.text(), st.lists(WORDS, max_size=14).map(" ".join))
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
TOOLS = st.sampled_from(
    [
        "Bash",
        "Write",
        "Edit",
        "Read",
        "Glob",
        "exec",
        "write_file",
        "shell",
        "apply_patch",
        "WebFetch",
        "mcp__fs__write_file",
        "mcp__",
        "move_file",
        "read_many_files",
        "Agent",
    ]
)


@FAST
@given(COMMANDS)
def test_a_shell_command_always_has_an_action(command: str) -> None:
    actions = derive_actions("Bash", {"command": command}, "/w", "/h")
    assert actions
    assert isinstance(actions[0], ProcExec)


@FAST
@given(TOOLS, st.dictionaries(st.sampled_from(["command", "path", "file_path", "url"]), JSON))
def test_any_tool_input_derives_without_raising(tool: str, tool_input: dict[str, Any]) -> None:
    actions = derive_actions(tool, tool_input, "/w", "/h")
    assert isinstance(actions, tuple)
    if tool in ("Bash", "exec"):
        assert actions
    rule = IfRule.parse("FileWrite(/etc/**)")
    assert rule.matches(tool, tool_input, cwd="/w", home="/h", actions=actions) in (True, False)


def test_code_points_the_bash_grammar_cannot_read_do_not_crash_the_process() -> None:
    """tree-sitter-bash reads past its tables for code points from U+E0000 up after ``{``
    (a crash, not an exception, and not every time): a model's command holding one must not
    end the process. Many parses in a child process, whose exit status tells."""
    import subprocess
    import sys

    code = (
        "from hookwright.core.tool_actions import derive_actions\n"
        "for cp in (0xE0000, 0xFFFFF, 0x10FFFE, 0x10FFFF):\n"
        "    for n in range(150):\n"
        "        actions = derive_actions('Bash', {'command': '{' + chr(cp) + ' x' + str(n)},"
        " '/w', '/h')\n"
        "        assert actions\n"
        "print('ok')\n"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert (ran.returncode, ran.stdout.strip()) == (0, "ok"), ran.stderr[-500:]
