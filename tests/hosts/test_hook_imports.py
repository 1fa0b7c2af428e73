"""One Claude Code event answered by a fresh process (`hook claude-code`, and the client's
in-process fallback) loads only what that event needs: not the command framework, not the
dialects the project has no files of (nor Claude Code's own, which the CLI runs itself), not
pydantic for a plainly written `hooks.yaml` (nor PyYAML once it was read), not SQLite before a
hook touches the state, not the warm runner before a command hook is forked, not the action
derivation without a rule on actions. Each process writes the modules it loaded
(`sys.modules` at exit) next to its answer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hookwright.bridges import claude_client
from hookwright.config.trust import TrustStore

#: Run before the entry point: at exit, the loaded modules go to the file named by argv[1].
LISTING = (
    "import atexit, json, sys\n"
    "listing = sys.argv.pop(1)\n"
    "atexit.register(lambda: open(listing, 'w').write(json.dumps(sorted(sys.modules))))\n"
)
#: The entry points: `hookwright hook claude-code` (the console script's code) and the
#: client's fallback (`claude_client.ANSWER_BOOT`, run as the client runs it).
COMMAND_LINE = "import sys\nsys.argv[0:1] = ['hookwright', 'hook', 'claude-code']\n" + (
    "from hookwright.cli import main\nmain()\n"
)
#: Never needed to answer one event of these projects.
NEVER = {
    "typer",
    "click",
    "rich",
    "pydantic",
    "pathspec",
    "sqlite3",
    "hookwright.cli.app",
    "hookwright.dialects.claude_code.loader",
    "hookwright.dialects.claude_code.schema",
    "hookwright.dialects.picoclaw",
    "hookwright.dialects.openharness",
    "hookwright.dialects.codex",
    "hookwright.dialects.gemini",
    "hookwright.dialects.skills.config",
    "hookwright.dialects.native_schema",
    "hookwright.transports.warm",
    "hookwright.core.tool_actions",
    "hookwright.core.code_actions",
}
GUARD_YAML = (
    "hooks:\n  - name: guard\n    event: PreToolUse\n    matcher: Bash\n    call: guard:guard\n"
)
GUARD_PY = (
    "from hookwright import deny\n\n\n"
    "def guard(inp):\n"
    "    if 'rm -rf' in str((inp.tool_input or {}).get('command', '')):\n"
    "        return deny('rm -rf is not allowed here')\n"
)


def claude_code_only(root: Path) -> Path:
    hook = {"type": "command", "command": "true"}
    (root / ".claude").mkdir(parents=True)
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    return root


def with_native_guard(root: Path) -> Path:
    claude_code_only(root)
    (root / ".hookwright").mkdir()
    (root / ".hookwright" / "hooks.yaml").write_text(GUARD_YAML)
    (root / ".hookwright" / "guard.py").write_text(GUARD_PY)
    return root


def answer(entry: str, project: Path, listing: Path, code: int = 0) -> tuple[bytes, set[str]]:
    """The answer to `rm -rf build` in `project` (stdout, or with a `code` other than 0 the
    stderr), and the modules the process loaded."""
    if entry == "fallback":
        command = claude_client.hookwright_command(sys.executable, boot=ANSWER)
        command.insert(command.index(ANSWER) + 1, str(listing))
    else:
        command = [sys.executable, "-I", "-c", LISTING + COMMAND_LINE, str(listing)]
    hook_input = {
        "session_id": "s1",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf build"},
        "tool_use_id": "toolu_01",
    }
    done = subprocess.run(
        [*command, "--project", str(project)],
        input=json.dumps(hook_input).encode(),
        capture_output=True,
        cwd="/",
        timeout=120,
        check=False,
    )
    assert done.returncode == code, done.stderr.decode(errors="replace")[-2000:]
    out = done.stdout if code == 0 else done.stderr
    return out, set(json.loads(listing.read_text()))


#: The fallback's boot with the listing in front (argv[1] is the listing, then the root).
ANSWER = LISTING + claude_client.ANSWER_BOOT


@pytest.mark.parametrize("entry", ["command line", "fallback"])
def test_a_claude_code_only_project_loads_no_dialect(entry: str, tmp_path: Path) -> None:
    project = claude_code_only(tmp_path / "project")
    TrustStore(Path.home()).trust(project)
    out, modules = answer(entry, project, tmp_path / "modules.json")
    assert json.loads(out) == {}
    assert "hookwright.bridges.claude_hook" in modules
    assert not NEVER & modules
    assert "yaml" not in modules  # no YAML file to read


@pytest.mark.parametrize("entry", ["command line", "fallback"])
def test_a_native_guard_loads_its_dialect_alone_and_no_pydantic(entry: str, tmp_path: Path) -> None:
    project = with_native_guard(tmp_path / "project")
    TrustStore(Path.home()).trust(project)
    out, modules = answer(entry, project, tmp_path / "modules.json")
    decision = json.loads(out)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert decision["permissionDecisionReason"] == "rm -rf is not allowed here"
    assert "hookwright.dialects.native" in modules
    assert not NEVER & modules


def test_a_hooks_yaml_the_plain_reading_leaves_loads_the_schema_and_says_why(
    tmp_path: Path,
) -> None:
    project = with_native_guard(tmp_path / "project")
    (project / ".hookwright" / "hooks.yaml").write_text(GUARD_YAML + "    timout: 5\n")
    TrustStore(Path.home()).trust(project)
    listing = tmp_path / "modules.json"
    said, modules = answer("command line", project, listing, code=1)
    assert "hookwright.dialects.native_schema" in modules and "pydantic" in modules
    assert b"rm -rf is not allowed here" not in said  # the misspelt entry is not run
    assert b"hooks[0].timout: unknown field" in said  # and the command says so


@pytest.mark.parametrize("entry", ["command line", "fallback"])
def test_a_hooks_yaml_read_before_loads_no_yaml_parser(entry: str, tmp_path: Path) -> None:
    project = with_native_guard(tmp_path / "project")
    TrustStore(Path.home()).trust(project)
    _first, modules = answer(entry, project, tmp_path / "first.json")
    assert "yaml" in modules
    out, modules = answer(entry, project, tmp_path / "modules.json")
    decision = json.loads(out)["hookSpecificOutput"]
    assert decision["permissionDecisionReason"] == "rm -rf is not allowed here"
    assert "yaml" not in modules and not NEVER & modules
