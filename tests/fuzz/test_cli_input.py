"""Fuzz of `hookwright hooks test` stdin, through the real command in-process: whatever the
bytes and the event name, it exits 0 with one JSON verdict or exits 2 with one error line,
never a traceback. The project's native hooks read the input (matcher, `if` rule over the
command, the tool input itself), so hostile input reaches matching and dispatch too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from hookwright.cli.app import app
from hookwright.core.events import ALIASES, Event

from .budget import budget
from .strategies import SYNTAX_TEXT, document_bytes

HOOKS_YAML = """\
hooks:
  - name: guard-push
    event: PreToolUse
    matcher: Bash
    if: "Bash(git push *)"
    call: guards:deny
  - name: echo-input
    event: PreToolUse
    call: guards:echo
  - name: echo-prompt
    event: UserPromptSubmit
    call: guards:echo
"""
GUARDS = """\
from hookwright import add_context, deny as deny_with


def deny(inp):
    return deny_with("no pushes")


def echo(inp):
    return add_context(repr(inp.payload)[:200])
"""
STDIN = {
    "session_id": "s1",
    "cwd": "/tmp",
    "tool_name": "Bash",
    "tool_input": {"command": "git push origin main && rm -rf /"},
    "tool_use_id": "toolu_1",
    "prompt": "hello",
}
EVENTS = st.sampled_from(["PreToolUse", "UserPromptSubmit", "Stop"]) | st.sampled_from(
    [*Event, *ALIASES]
).map(str)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("project")
    (root / ".hookwright").mkdir()
    (root / ".hookwright" / "hooks.yaml").write_text(HOOKS_YAML)
    (root / ".hookwright" / "guards.py").write_text(GUARDS)
    return root


@budget(0.3)
@given(document_bytes(STDIN), EVENTS | SYNTAX_TEXT)
def test_hooks_test_stdin_is_a_verdict_or_one_error_line(
    project: Path, data: bytes, event: str
) -> None:
    args = ["hooks", "test", "--input", "-", "--project", str(project), "--", event]
    result = CliRunner().invoke(app, args, input=data)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    if result.exit_code == 0:
        assert isinstance(json.loads(result.stdout), dict)
    else:
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("hookwright: error: ")
        assert result.stderr.count("\n") == 1, result.stderr
