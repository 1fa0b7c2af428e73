"""End to end: `hookwright run` as a real process (`cli_runner.run_cli`) on a temporary project.

Each test writes `.claude/settings.json` (or `~/.claude/settings.json` under a temporary HOME)
with hook scripts in the styles people publish, each style in Python and in bash, and a
scripted model (`--model scripted:PATH`). It then runs `python -m hookwright run PROMPT
--project P --trust --json` and checks the JSON event stream, files on disk, the transcript and
the audit JSONL (`$HOME/.hookwright/audit.jsonl`).

What the model saw is checked with the scripted model's `match:` (a regex the messages since its
last reply must contain; a miss crashes the run, which fails the test).

Every hook process carries a marker in its environment; after every run no process with that
marker may be alive (see `conftest.leftover_processes`).

Python hooks run as `python3 <script>` with `python3` pointing at this interpreter, bash hooks as
executable `.sh` files with a `#!/usr/bin/env bash` line; both read stdin and use only what a
stock system has (no jq).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import yaml

from bounds import GENEROUS_BOUND, eventually
from claude_pin import pin_claude_code
from cli_runner import run_cli

from .conftest import MARK, alive, leftover_processes

LANGS = ["python", "bash"]
#: A safety net against a hung run, not a performance bound.
RUN_TIMEOUT = 120.0
#: How long hook processes may take to disappear after the run exited.
REAP_GRACE = GENEROUS_BOUND

# Claude Code's input fields (spec §5, §6): what a hook may see on each event.
COMMON_FIELDS = {
    "session_id",
    "prompt_id",
    "transcript_path",
    "cwd",
    "permission_mode",
    "effort",
    "hook_event_name",
    "agent_id",
    "agent_type",
}
EVENT_FIELDS: dict[str, set[str]] = {
    "SessionStart": {"source", "model", "session_title"},
    "UserPromptSubmit": {"prompt", "session_title"},
    "PreToolUse": {"tool_name", "tool_input", "tool_use_id"},
    "PermissionRequest": {"tool_name", "tool_input", "permission_suggestions"},
    "PostToolUse": {"tool_name", "tool_input", "tool_use_id", "tool_response", "duration_ms"},
    "PostToolUseFailure": {
        "tool_name",
        "tool_input",
        "tool_use_id",
        "error",
        "is_interrupt",
        "duration_ms",
    },
    "PostToolBatch": {"tool_calls"},
    "Stop": {"stop_hook_active", "last_assistant_message", "background_tasks", "session_crons"},
    "SessionEnd": {"reason"},
}


# Hook scripts ---------------------------------------------------------------------------------


class Style(NamedTuple):
    """One hook written twice: a Python body (after `import json, os, sys`) and a bash body."""

    python: str
    bash: str


#: bash: the Bash command from the stdin JSON in `$input`, the jq-free way.
SH_COMMAND = (
    'command=$(printf \'%s\' "$input" | sed -n \'s/.*"command": *"\\([^"]*\\)".*/\\1/p\')\n'
)


def sh_reading(body: str) -> str:
    return "input=$(cat)\n" + SH_COMMAND + body


# 1. exit 2 + stderr blocks.
GUARD_EXIT2 = Style(
    python=(
        "data = json.load(sys.stdin)\n"
        "if 'rm -rf' in data['tool_input'].get('command', ''):\n"
        "    print('Dangerous command blocked', file=sys.stderr)\n"
        "    sys.exit(2)\n"
    ),
    bash=sh_reading(
        'if echo "$command" | grep -q "rm -rf"; then\n'
        '  echo "Dangerous command blocked" >&2\n'
        "  exit 2\n"
        "fi\n"
        "exit 0\n"
    ),
)

# 2. legacy top-level decision: approve / block.
LEGACY_DECISION = Style(
    python=(
        "command = json.load(sys.stdin)['tool_input']['command']\n"
        "if 'approved' in command:\n"
        "    print(json.dumps({'decision': 'approve'}))\n"
        "elif 'forbidden' in command:\n"
        "    reason = 'legacy hook says no: ' + command\n"
        "    print(json.dumps({'decision': 'block', 'reason': reason}))\n"
    ),
    bash=sh_reading(
        'case "$command" in\n'
        '  *approved*) echo \'{"decision": "approve"}\' ;;\n'
        '  *forbidden*) printf \'{"decision": "block", "reason": "legacy hook says no: %s"}\\n\''
        ' "$command" ;;\n'
        "esac\n"
    ),
)

# 3. hookSpecificOutput.permissionDecision: deny / ask / allow + updatedInput.
PERMISSION_DECISION = Style(
    python=(
        "data = json.load(sys.stdin)\n"
        "command = data['tool_input']['command']\n"
        "\n"
        "def decide(decision, reason, updated=None):\n"
        "    out = {'hookEventName': 'PreToolUse', 'permissionDecision': decision,\n"
        "           'permissionDecisionReason': reason}\n"
        "    if updated is not None:\n"
        "        out['updatedInput'] = updated\n"
        "    print(json.dumps({'hookSpecificOutput': out}))\n"
        "\n"
        "if 'deny-me' in command:\n"
        "    decide('deny', 'deny-me is on the blocklist')\n"
        "elif 'ask-me' in command:\n"
        "    decide('ask', 'ask-me needs a human')\n"
        "elif 'rewrite-me' in command:\n"
        "    decide('allow', 'rewritten to a safe command',\n"
        "           {**data['tool_input'], 'command': 'touch rewritten.txt'})\n"
    ),
    bash=sh_reading(
        "specific() {\n"
        '  printf \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", %s}}\\n\' "$1"\n'
        "}\n"
        'case "$command" in\n'
        '  *deny-me*) specific \'"permissionDecision": "deny", '
        '"permissionDecisionReason": "deny-me is on the blocklist"\' ;;\n'
        '  *ask-me*) specific \'"permissionDecision": "ask", '
        '"permissionDecisionReason": "ask-me needs a human"\' ;;\n'
        '  *rewrite-me*) specific \'"permissionDecision": "allow", '
        '"permissionDecisionReason": "rewritten to a safe command", '
        '"updatedInput": {"command": "touch rewritten.txt"}\' ;;\n'
        "esac\n"
    ),
)

# 4. PermissionRequest decision.behavior: allow / deny + message.
PERMISSION_REQUEST = Style(
    python=(
        "data = json.load(sys.stdin)\n"
        "if 'allow-me' in data['tool_input']['command']:\n"
        "    decision = {'behavior': 'allow'}\n"
        "else:\n"
        "    decision = {'behavior': 'deny', 'message': 'only allow-me commands may run'}\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PermissionRequest',\n"
        "                                         'decision': decision}}))\n"
    ),
    bash=sh_reading(
        'case "$command" in\n'
        '  *allow-me*) decision=\'{"behavior": "allow"}\' ;;\n'
        '  *) decision=\'{"behavior": "deny", "message": "only allow-me commands may run"}\' ;;\n'
        "esac\n"
        'printf \'{"hookSpecificOutput": {"hookEventName": "PermissionRequest", '
        '"decision": %s}}\\n\' "$decision"\n'
    ),
)

# 5. Stop hook that keeps Claude going once (checks stop_hook_active), logging its inputs.
STOP_ONCE = Style(
    python=(
        "raw = sys.stdin.read()\n"
        "log = os.path.join(os.environ['CLAUDE_PROJECT_DIR'], 'stop-inputs.jsonl')\n"
        "with open(log, 'a') as fh:\n"
        "    fh.write(raw)\n"
        "if not json.loads(raw).get('stop_hook_active'):\n"
        "    print(json.dumps({'decision': 'block', 'reason': 'Run the tests first'}))\n"
    ),
    bash=(
        "input=$(cat)\n"
        'printf \'%s\\n\' "$input" >> "$CLAUDE_PROJECT_DIR/stop-inputs.jsonl"\n'
        'if echo "$input" | grep -q \'"stop_hook_active": *false\'; then\n'
        '  echo \'{"decision": "block", "reason": "Run the tests first"}\'\n'
        "fi\n"
    ),
)

# 6. SessionStart context.
SESSION_CONTEXT = Style(
    python=(
        "json.load(sys.stdin)\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'SessionStart',\n"
        "    'additionalContext': 'Current branch is feature-x'}}))\n"
    ),
    bash=(
        "cat >/dev/null\n"
        'echo \'{"hookSpecificOutput": {"hookEventName": "SessionStart", '
        '"additionalContext": "Current branch is feature-x"}}\'\n'
    ),
)

# 7. Silent logger: every input appended to a file, nothing printed.
SILENT_LOGGER = Style(
    python=(
        "with open(os.path.join(os.environ['CLAUDE_PROJECT_DIR'], 'events.jsonl'), 'a') as fh:\n"
        "    fh.write(sys.stdin.read())\n"
    ),
    bash='cat >> "$CLAUDE_PROJECT_DIR/events.jsonl"\n',
)

# 8. Stateful hook under $HOME: counts Bash calls, denies from the third on.
CALL_BUDGET = Style(
    python=(
        "json.load(sys.stdin)\n"
        "path = os.path.join(os.environ['HOME'], '.hook-state.json')\n"
        "state = json.load(open(path)) if os.path.exists(path) else {'count': 0}\n"
        "state['count'] += 1\n"
        "with open(path, 'w') as fh:\n"
        "    json.dump(state, fh)\n"
        "if state['count'] > 2:\n"
        "    print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
        "        'permissionDecision': 'deny',\n"
        "        'permissionDecisionReason': f\"Bash budget spent ({state['count']} calls)\"}}))\n"
    ),
    bash=(
        "cat >/dev/null\n"
        'state="$HOME/.hook-state.json"\n'
        "n=0\n"
        'if [ -f "$state" ]; then n=$(tr -dc 0-9 < "$state"); fi\n'
        "n=$((n + 1))\n"
        'printf \'{"count": %d}\\n\' "$n" > "$state"\n'
        'if [ "$n" -gt 2 ]; then\n'
        '  printf \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
        '"permissionDecision": "deny", '
        '"permissionDecisionReason": "Bash budget spent (%d calls)"}}\\n\' "$n"\n'
        "fi\n"
    ),
)

# Faults.
HANGS = Style(
    python=(
        "import subprocess, time\n"
        "sys.stdin.read()\n"
        "child = subprocess.Popen(['sleep', '60'])\n"
        "with open(os.path.join(os.environ['CLAUDE_PROJECT_DIR'], 'hook.pids'), 'w') as fh:\n"
        "    fh.write(f'{os.getpid()} {child.pid}\\n')\n"
        "time.sleep(60)\n"
    ),
    bash=('cat >/dev/null\nsleep 60 &\necho "$$ $!" > "$CLAUDE_PROJECT_DIR/hook.pids"\nwait\n'),
)
HELD_STDOUT = Style(
    python=(
        "import subprocess\n"
        "sys.stdin.read()\n"
        "child = subprocess.Popen(['sleep', '60'])  # inherits stdout and stderr\n"
        "with open(os.path.join(os.environ['CLAUDE_PROJECT_DIR'], 'hook.pids'), 'w') as fh:\n"
        "    fh.write(str(child.pid))\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
        "    'permissionDecision': 'deny', 'permissionDecisionReason': 'not while I watch'}}))\n"
    ),
    bash=(
        "cat >/dev/null\n"
        "sleep 60 &\n"
        'echo "$!" > "$CLAUDE_PROJECT_DIR/hook.pids"\n'
        'echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
        '"permissionDecision": "deny", "permissionDecisionReason": "not while I watch"}}\'\n'
    ),
)
FLOOD = Style(
    python=(
        "sys.stdin.read()\n"
        "chunk = 'x' * (1 << 20)\n"
        "for _ in range(50):\n"
        "    sys.stdout.write(chunk)\n"
    ),
    bash="cat >/dev/null\nhead -c 52428800 /dev/zero | tr '\\0' x\n",
)
BAD_UTF8_CONTEXT = Style(
    python="sys.stdin.read()\nsys.stdout.buffer.write(b'caf\\xe9 au lait\\n')\n",
    bash="cat >/dev/null\nprintf 'caf\\xe9 au lait\\n'\n",
)
BAD_UTF8_BLOCK = Style(
    python="sys.stdin.read()\nsys.stderr.buffer.write(b'bad \\xff\\xfe bytes\\n')\nsys.exit(2)\n",
    bash="cat >/dev/null\nprintf 'bad \\xff\\xfe bytes\\n' >&2\nexit 2\n",
)
NO_READ_SILENT = Style(python="sys.exit(0)\n", bash="exit 0\n")
NO_READ_BLOCK = Style(
    python="print('blocked without reading', file=sys.stderr)\nsys.exit(2)\n",
    bash='echo "blocked without reading" >&2\nexit 2\n',
)


# Settings and model scripts ---------------------------------------------------------------------


def command(text: str, **fields: Any) -> dict[str, Any]:
    return {"type": "command", "command": text, **fields}


def group(*handlers: dict[str, Any], matcher: str | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"hooks": list(handlers)}
    if matcher is not None:
        entry["matcher"] = matcher
    return entry


def bash_call(command_line: str, **extra: Any) -> dict[str, Any]:
    return {"name": "Bash", "arguments": {"command": command_line, **extra}}


# The project and its runs --------------------------------------------------------------------


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    events: list[dict[str, Any]]
    home: Path

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]

    def hook_results(self, event: str | None = None) -> list[dict[str, Any]]:
        return [e for e in self.of("hook_result") if event is None or e["event"] == event]

    @property
    def tool_results(self) -> list[dict[str, Any]]:
        return self.of("tool_result")

    @property
    def turn_end(self) -> dict[str, Any]:
        [end] = self.of("turn_end")
        return end

    @property
    def session_id(self) -> str:
        return str(self.events[0]["session_id"])

    def audit(self, event: str | None = None) -> list[dict[str, Any]]:
        path = self.home / ".hookwright" / "audit.jsonl"
        records = [json.loads(line) for line in path.read_text().splitlines()]
        mine = [r for r in records if r["session_id"] == self.session_id]
        return [r for r in mine if event is None or r["event"] == event]

    def transcript(self) -> list[dict[str, Any]]:
        path = Path(self.events[0]["transcript"])
        return [json.loads(line) for line in path.read_text().splitlines()]

    def transcript_tool_results(self) -> list[dict[str, Any]]:
        return [
            block
            for line in self.transcript()
            if line["type"] == "user" and isinstance(line["message"]["content"], list)
            for block in line["message"]["content"]
            if block.get("type") == "tool_result"
        ]


@dataclass
class Project:
    tmp: Path
    root: Path
    home: Path
    managed: Path
    bin: Path
    mark: str
    runs: int = 0
    _settings: dict[str, dict[str, Any]] = field(default_factory=dict)

    # Writing hooks and settings -------------------------------------------------------------

    def hook(self, style: Style, lang: str, name: str, *, where: str = "project") -> str:
        """Write `style` in `lang` as `<where>/.claude/hooks/<name>.{py,sh}`; return the settings
        command that runs it the way published hooks do."""
        base, var = (
            (self.root, "$CLAUDE_PROJECT_DIR") if where == "project" else (self.home, "$HOME")
        )
        hooks = base / ".claude" / "hooks"
        hooks.mkdir(parents=True, exist_ok=True)
        if lang == "python":
            (hooks / f"{name}.py").write_text("import json, os, sys\n\n" + style.python)
            return f'python3 "{var}"/.claude/hooks/{name}.py'
        path = hooks / f"{name}.sh"
        path.write_text("#!/usr/bin/env bash\n" + style.bash)
        path.chmod(0o755)
        return f'"{var}"/.claude/hooks/{name}.sh'

    def on(
        self,
        event: str,
        *handlers: dict[str, Any],
        matcher: str | None = None,
        where: str = "project",
    ) -> None:
        """Add a matcher group to the settings file of `where` (project or user)."""
        data = self._settings.setdefault(where, {})
        data.setdefault("hooks", {}).setdefault(event, []).append(group(*handlers, matcher=matcher))
        self._write_settings(where)

    def set(self, where: str = "project", **keys: Any) -> None:
        self._settings.setdefault(where, {}).update(keys)
        self._write_settings(where)

    def _write_settings(self, where: str) -> None:
        base = self.root if where == "project" else self.home
        path = base / ".claude" / "settings.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self._settings[where], indent=2))

    # Running ----------------------------------------------------------------------------------

    def env(self) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("OPENAI_", "ANTHROPIC_", "HOOKWRIGHT_", "CLAUDE_"))
        }
        env.update(
            {
                "HOME": str(self.home),
                "PATH": f"{self.bin}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}",
                "HOOKWRIGHT_CLAUDE_MANAGED_DIR": str(self.managed),
                MARK: self.mark,
            }
        )
        return env

    def run(
        self,
        turns: list[dict[str, Any]],
        *,
        prompt: str = "Please do the task.",
        mode: str = "default",
        returncode: int = 0,
        warnings: int = 0,
    ) -> Run:
        """`hookwright run` with a scripted model playing `turns`; every line of stdout must be
        one JSON event and no hook process may outlive the run. stderr holds exactly
        `warnings` lines, each a `warning:` (no traceback, no other config diagnostic)."""
        self.runs += 1
        script = self.tmp / f"model-{self.runs}.yaml"
        script.write_text(yaml.safe_dump({"turns": turns}, sort_keys=False, allow_unicode=True))
        args = [
            "run",
            prompt,
            "--project",
            str(self.root),
            "--model",
            f"scripted:{script}",
            "--permission-mode",
            mode,
            "--trust",
            "--json",
        ]
        try:
            proc = run_cli(args, self.env(), stdin="", timeout=RUN_TIMEOUT, cwd=self.tmp)
        except subprocess.TimeoutExpired:
            self.reap()
            raise AssertionError(f"hookwright run still going after {RUN_TIMEOUT}s") from None
        self.reap()
        stderr = proc.stderr
        assert proc.returncode == returncode, stderr
        lines = stderr.splitlines()
        assert len(lines) == warnings and all(line.startswith("warning: ") for line in lines), (
            stderr
        )
        events = [json.loads(line) for line in proc.stdout.splitlines()]
        assert events[0]["type"] == "session_start" and events[-1]["type"] == "session_end"
        return Run(proc.returncode, proc.stdout, stderr, events, self.home)

    def reap(self) -> None:
        """Fail if a hook process is still alive (after a grace period); kill what is left, by
        pid, so one failing test does not leak into the next."""
        deadline = time.monotonic() + REAP_GRACE
        while leftover_processes(self.mark) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = {pid: _cmdline(pid) for pid in leftover_processes(self.mark)}
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        assert not left, f"processes left behind: {left}"


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return f"<pid {pid}>"


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    home = tmp_path / "home"
    pin_claude_code(home)
    managed = tmp_path / "managed"
    managed.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    proj = Project(
        tmp=tmp_path,
        root=root,
        home=home,
        managed=managed,
        bin=bin_dir,
        mark=uuid.uuid4().hex,
    )
    try:
        yield proj
    finally:
        proj.reap()


def dead(pidfile: Path) -> bool:
    pids = [int(pid) for pid in pidfile.read_text().split()]
    return bool(pids) and not any(alive(pid) for pid in pids)


# 1-8: the styles people publish ------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_exit_2_with_stderr_blocks_a_bash_call(project: Project, lang: str) -> None:
    guard = project.hook(GUARD_EXIT2, lang, "guard")
    project.on("PreToolUse", command(guard), matcher="Bash")
    run = project.run(
        [
            {
                "content": "Cleaning up.",
                "tool_calls": [
                    bash_call("touch blocked.txt && rm -rf build"),
                    bash_call("touch allowed.txt"),
                ],
            },
            {"match": "Dangerous command blocked", "content": "I will not delete build."},
        ],
        mode="bypassPermissions",
    )
    reason = f"[{guard}]: Dangerous command blocked\n"  # the stderr verbatim
    [deny] = run.hook_results("PreToolUse")
    assert deny["decision"] == "deny" and deny["reason"] == reason
    assert (deny["source"], deny["dialect"], deny["status"]) == ("project", "claude_code", "ok")
    blocked, allowed = run.tool_results
    message = f"PreToolUse:Bash hook error: {reason}"
    assert (blocked["content"], blocked["is_error"], blocked["skipped"]) == (
        message,
        True,
        "denied by hook",
    )
    assert allowed["skipped"] is None and not allowed["is_error"]
    assert not (project.root / "blocked.txt").exists()
    assert (project.root / "allowed.txt").exists()
    assert run.turn_end["status"] == "completed"
    assert run.turn_end["text"] == "I will not delete build."
    records = run.audit("PreToolUse")
    assert [(r["exit_code"], r["decision"]) for r in records] == [(2, "deny"), (0, None)]
    assert records[0]["stderr_tail"] == "Dangerous command blocked\n"
    first = run.transcript_tool_results()[0]
    assert (first["content"], first["is_error"]) == (message, True)


@pytest.mark.parametrize("lang", LANGS)
def test_legacy_approve_and_block(project: Project, lang: str) -> None:
    project.on("PreToolUse", command(project.hook(LEGACY_DECISION, lang, "legacy")), matcher="Bash")
    run = project.run(
        [
            {
                "content": "",
                "tool_calls": [
                    bash_call("touch approved.txt"),
                    bash_call("touch unhooked.txt"),
                    bash_call("touch forbidden.txt"),
                ],
            },
            {
                "match": "(?s)was blocked. For security.*legacy hook says no: touch forbidden.txt",
                "content": "Done what I could.",
            },
        ]
    )
    approved, unhooked, forbidden = run.tool_results
    # approve skips the permission prompt a default-mode, non-interactive run cannot show
    assert approved["skipped"] is None and not approved["is_error"]
    assert unhooked["skipped"] == "permission denied"
    # Claude Code's working-directory check holds back a file-writing command nobody approved
    assert unhooked["content"].startswith(f"touch in '{project.root / 'unhooked.txt'}' was blocked")
    assert unhooked["is_error"]
    assert forbidden["skipped"] == "denied by hook"
    assert forbidden["content"] == "legacy hook says no: touch forbidden.txt"
    assert [p["behavior"] for p in run.of("permission")] == ["deny"]
    assert [(h["decision"], h["reason"]) for h in run.hook_results("PreToolUse")] == [
        ("allow", None),
        ("deny", "legacy hook says no: touch forbidden.txt"),
    ]
    assert (project.root / "approved.txt").exists()
    assert not (project.root / "unhooked.txt").exists()
    assert not (project.root / "forbidden.txt").exists()
    assert run.turn_end["status"] == "completed"
    assert run.turn_end["text"] == "Done what I could."


@pytest.mark.parametrize("lang", LANGS)
def test_permission_decision_deny_ask_and_updated_input(project: Project, lang: str) -> None:
    project.on(
        "PreToolUse", command(project.hook(PERMISSION_DECISION, lang, "policy")), matcher="Bash"
    )
    run = project.run(
        [
            {
                "content": "",
                "tool_calls": [
                    bash_call("touch deny-me.txt"),
                    bash_call("touch ask-me.txt"),
                    bash_call("touch rewrite-me.txt"),
                ],
            },
            {"match": "(?s)deny-me is on the blocklist.*ask-me needs a human", "content": "ok"},
        ]
    )
    denied, asked, rewritten = run.tool_results
    assert (denied["content"], denied["skipped"]) == (
        "deny-me is on the blocklist",
        "denied by hook",
    )
    assert asked["skipped"] == "permission denied"
    assert (asked["content"], asked["is_error"]) == ("ask-me needs a human", True)
    assert rewritten["skipped"] is None and not rewritten["is_error"]
    assert [(h["decision"], h["reason"]) for h in run.hook_results("PreToolUse")] == [
        ("deny", "deny-me is on the blocklist"),
        ("ask", "ask-me needs a human"),
        ("allow", "rewritten to a safe command"),
    ]
    assert sorted(p.name for p in project.root.iterdir() if p.suffix == ".txt") == ["rewritten.txt"]
    tool_uses = [
        block
        for line in run.transcript()
        if line["type"] == "assistant"
        for block in line["message"]["content"]
        if block["type"] == "tool_use"
    ]
    assert tool_uses[2]["input"] == {"command": "touch rewrite-me.txt"}  # the model's own call
    assert run.turn_end["status"] == "completed" and run.turn_end["text"] == "ok"


@pytest.mark.parametrize("lang", LANGS)
def test_permission_request_allow_and_deny(project: Project, lang: str) -> None:
    project.on(
        "PermissionRequest", command(project.hook(PERMISSION_REQUEST, lang, "gate")), matcher="Bash"
    )
    run = project.run(
        [
            {
                "content": "",
                "tool_calls": [bash_call("touch allow-me.txt"), bash_call("touch other.txt")],
            },
            {"match": "only allow-me commands may run", "content": "Understood."},
        ]
    )
    allowed, denied = run.tool_results
    assert allowed["skipped"] is None and not allowed["is_error"]
    assert denied["skipped"] == "permission denied"
    assert denied["content"] == "only allow-me commands may run"  # the hook's message verbatim
    assert [(p["behavior"], p["reason"]) for p in run.of("permission")] == [
        ("allow", "allowed by hook"),
        ("deny", "only allow-me commands may run"),
    ]
    assert [h["decision"] for h in run.hook_results("PermissionRequest")] == ["allow", "deny"]
    assert (project.root / "allow-me.txt").exists()
    assert not (project.root / "other.txt").exists()
    assert run.turn_end["status"] == "completed" and run.turn_end["text"] == "Understood."


@pytest.mark.parametrize("lang", LANGS)
def test_stop_hook_blocks_once_then_lets_the_run_end(project: Project, lang: str) -> None:
    project.on("Stop", command(project.hook(STOP_ONCE, lang, "stop")))
    run = project.run(
        [
            {"content": "All done."},
            {"match": "^Stop hook feedback:\nRun the tests first$", "content": "Tests pass now."},
        ]
    )
    inputs = [
        json.loads(line) for line in (project.root / "stop-inputs.jsonl").read_text().splitlines()
    ]
    assert [i["stop_hook_active"] for i in inputs] == [False, True]
    assert [i["last_assistant_message"] for i in inputs] == ["All done.", "Tests pass now."]
    assert {i["hook_event_name"] for i in inputs} == {"Stop"}
    [block] = run.hook_results("Stop")
    assert (block["decision"], block["reason"]) == ("block", "Run the tests first")
    assert [a["text"] for a in run.of("assistant")] == ["All done.", "Tests pass now."]
    assert run.turn_end["status"] == "completed" and run.turn_end["text"] == "Tests pass now."
    user_texts = [
        line["message"]["content"]
        for line in run.transcript()
        if line["type"] == "user" and isinstance(line["message"]["content"], str)
    ]
    assert user_texts == ["Please do the task.", "Stop hook feedback:\nRun the tests first"]


@pytest.mark.parametrize("lang", LANGS)
def test_session_start_context_reaches_the_first_model_call(project: Project, lang: str) -> None:
    project.on(
        "SessionStart", command(project.hook(SESSION_CONTEXT, lang, "context")), matcher="startup"
    )
    run = project.run([{"match": "Current branch is feature-x", "content": "On feature-x."}])
    [context] = run.hook_results("SessionStart")
    assert (context["effect"], context["status"]) == ("context", "ok")
    lines = run.transcript()
    kinds = [(line["type"], line.get("subtype")) for line in lines]
    assert kinds == [
        ("system", "hookwright_system"),
        ("user", None),
        ("system", "hookwright_system"),
        ("assistant", None),
    ]
    context_line = "SessionStart hook additional context: Current branch is feature-x"
    assert lines[2]["content"] == context_line
    assert run.turn_end["text"] == "On feature-x."


@pytest.mark.parametrize("lang", LANGS)
def test_silent_logger_sees_claude_code_inputs(project: Project, lang: str) -> None:
    logger = command(project.hook(SILENT_LOGGER, lang, "logger"))
    for event in EVENT_FIELDS:
        project.on(event, logger)
    project.set(permissions={"allow": ["Bash(echo *)"]})
    missing = project.root / "missing.txt"
    run = project.run(
        [
            {
                "content": "",
                "tool_calls": [
                    bash_call("echo hello"),
                    {"name": "Read", "arguments": {"file_path": str(missing)}},
                    bash_call("touch nope.txt"),
                ],
            },
            {"content": "done"},
        ]
    )
    assert run.turn_end["status"] == "completed" and run.turn_end["text"] == "done"
    assert run.hook_results() == []  # silent: no effect, nothing reported
    logged = [json.loads(line) for line in (project.root / "events.jsonl").read_text().splitlines()]
    assert [r["hook_event_name"] for r in logged] == [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PreToolUse",
        "PostToolUseFailure",
        "PreToolUse",
        "PermissionRequest",
        "PostToolBatch",
        "Stop",
        "SessionEnd",
    ]
    transcript = run.events[0]["transcript"]
    for record in logged:
        event = record["hook_event_name"]
        assert set(record) <= COMMON_FIELDS | EVENT_FIELDS[event], (event, sorted(record))
        assert record["session_id"] == run.session_id
        assert record["transcript_path"] == transcript
        assert record["cwd"] == str(project.root)
    by_event: dict[str, list[dict[str, Any]]] = {}
    for record in logged:
        by_event.setdefault(record["hook_event_name"], []).append(record)
    ids = [call["id"] for call in run.of("tool_call")]
    pre = by_event["PreToolUse"]
    assert [(p["tool_name"], p["tool_use_id"]) for p in pre] == list(
        zip(["Bash", "Read", "Bash"], ids, strict=True)
    )
    assert pre[0]["tool_input"] == {"command": "echo hello"}
    assert {p["permission_mode"] for p in pre} == {"default"}
    [post] = by_event["PostToolUse"]
    assert post["tool_use_id"] == ids[0]
    assert post["tool_response"] == {
        "stdout": "hello",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    [failure] = by_event["PostToolUseFailure"]
    assert failure["tool_use_id"] == ids[1]
    assert failure["tool_input"] == {"file_path": str(missing)}
    assert "tool_response" not in failure and "does not exist" in failure["error"]
    [request] = by_event["PermissionRequest"]
    assert request["tool_input"] == {"command": "touch nope.txt"}
    assert "tool_use_id" not in request  # Claude Code sends none on PermissionRequest
    assert isinstance(request["permission_suggestions"], list)
    [batch] = by_event["PostToolBatch"]
    assert [c["tool_use_id"] for c in batch["tool_calls"]] == ids
    [start] = by_event["SessionStart"]
    assert start["source"] == "startup"
    [prompt] = by_event["UserPromptSubmit"]
    assert prompt["prompt"] == "Please do the task."
    [stop] = by_event["Stop"]
    assert stop["stop_hook_active"] is False and stop["last_assistant_message"] == "done"
    [end] = by_event["SessionEnd"]
    assert end["reason"] == "other"
    audit = run.audit()
    hook_runs = [r for r in audit if r["event"] != "Permission"]
    assert len(hook_runs) == len(logged)
    assert {(r["status"], r["decision"], r["exit_code"]) for r in hook_runs} == {("ok", None, 0)}
    # Beside the hook runs, each tool call's permission outcome, with who decided it.
    outcomes = [(r["permission"]["by"], r["decision"]) for r in run.audit("Permission")]
    assert len(outcomes) == 3 and outcomes[0][0] == "rule"


@pytest.mark.parametrize("lang", LANGS)
def test_stateful_hook_keeps_its_state_under_home(project: Project, lang: str) -> None:
    budget = project.hook(CALL_BUDGET, lang, "budget", where="user")
    project.on("PreToolUse", command(budget), matcher="Bash", where="user")
    state = project.home / ".hook-state.json"
    first = project.run(
        [
            {"content": "", "tool_calls": [bash_call("touch one.txt"), bash_call("touch two.txt")]},
            {"content": "two done"},
        ],
        mode="bypassPermissions",
    )
    assert json.loads(state.read_text()) == {"count": 2}
    assert first.hook_results() == []
    second = project.run(
        [
            {"content": "", "tool_calls": [bash_call("touch three.txt")]},
            {"match": r"Bash budget spent \(3 calls\)", "content": "out of budget"},
        ],
        mode="bypassPermissions",
    )
    assert json.loads(state.read_text()) == {"count": 3}
    assert first.session_id != second.session_id
    [deny] = second.hook_results("PreToolUse")
    assert (deny["source"], deny["decision"]) == ("user", "deny")
    assert deny["reason"] == "Bash budget spent (3 calls)"
    assert (project.root / "one.txt").exists() and (project.root / "two.txt").exists()
    assert not (project.root / "three.txt").exists()
    assert not (project.root / ".hook-state.json").exists()


# Faults -----------------------------------------------------------------------------------------

#: A Bash call whose file proves the tool ran, then a final answer.
TOOL_THEN_DONE: list[dict[str, Any]] = [
    {"content": "", "tool_calls": [bash_call("touch tool-ran.txt")]},
    {"content": "finished"},
]


def assert_completed(run: Run, text: str = "finished") -> None:
    assert run.turn_end["status"] == "completed", run.turn_end
    assert run.turn_end["text"] == text


@pytest.mark.parametrize("lang", LANGS)
def test_hanging_hook_times_out_and_the_tool_still_runs(project: Project, lang: str) -> None:
    project.on("PreToolUse", command(project.hook(HANGS, lang, "hang"), timeout=1), matcher="Bash")
    run = project.run(TOOL_THEN_DONE, mode="bypassPermissions")
    assert_completed(run)
    assert (project.root / "tool-ran.txt").exists()  # a timeout renders no decision
    [result] = run.hook_results("PreToolUse")
    assert (result["status"], result["decision"]) == ("timeout", None)
    assert result["error"] == "timed out after 1s"
    [record] = run.audit("PreToolUse")
    assert (record["status"], record["error"], record["decision"]) == (
        "timeout",
        "timed out after 1s",
        None,
    )
    assert eventually(lambda: dead(project.root / "hook.pids"))


@pytest.mark.parametrize("lang", LANGS)
def test_background_child_holding_stdout_does_not_hold_the_run(project: Project, lang: str) -> None:
    hook = project.hook(HELD_STDOUT, lang, "held")
    project.on("PreToolUse", command(hook, timeout=30), matcher="Bash")
    run = project.run(
        [
            {"content": "", "tool_calls": [bash_call("touch tool-ran.txt")]},
            {"match": "not while I watch", "content": "finished"},
        ],
        mode="bypassPermissions",
    )
    assert_completed(run)
    # read as soon as the hook itself exited: a wait for EOF would have hit the 30 s timeout
    [result] = run.hook_results("PreToolUse")
    assert (result["status"], result["decision"]) == ("ok", "deny")
    assert result["reason"] == "not while I watch"
    assert not (project.root / "tool-ran.txt").exists()
    assert run.audit("PreToolUse")[0]["status"] == "ok"
    assert eventually(lambda: dead(project.root / "hook.pids"))


@pytest.mark.parametrize("lang", LANGS)
def test_fifty_megabytes_of_output_are_capped(project: Project, lang: str) -> None:
    project.on("UserPromptSubmit", command(project.hook(FLOOD, lang, "flood")))
    run = project.run(
        [
            {"match": r"full output \(10000000 characters\) saved to ", "content": "noted"},
        ]
    )
    assert_completed(run, "noted")
    [saved] = (project.home / ".hookwright" / "hook-output").iterdir()
    assert saved.stat().st_size == 10_000_000
    with saved.open() as fh:
        assert fh.read(1000) == "x" * 1000
    *_, note = [line for line in run.transcript() if line.get("subtype") == "hookwright_system"]
    assert note["content"].startswith("UserPromptSubmit hook success: xxx")
    assert len(note["content"]) < 10_000 and str(saved) in note["content"]
    [record] = run.audit("UserPromptSubmit")
    assert (record["status"], record["exit_code"]) == ("ok", 0)


@pytest.mark.parametrize("lang", LANGS)
def test_invalid_utf8_in_stdout_and_stderr(project: Project, lang: str) -> None:
    project.on("UserPromptSubmit", command(project.hook(BAD_UTF8_CONTEXT, lang, "context")))
    block = project.hook(BAD_UTF8_BLOCK, lang, "block")
    project.on("PreToolUse", command(block), matcher="Bash")
    run = project.run(
        [
            {
                "match": "caf\ufffd au lait",
                "content": "",
                "tool_calls": [bash_call("touch tool-ran.txt")],
            },
            {"match": "bad \ufffd\ufffd bytes", "content": "finished"},
        ],
        mode="bypassPermissions",
    )
    assert_completed(run)
    [deny] = run.hook_results("PreToolUse")
    assert deny["reason"] == f"[{block}]: bad \ufffd\ufffd bytes\n"
    assert not (project.root / "tool-ran.txt").exists()
    [record] = run.audit("PreToolUse")
    assert record["stderr_tail"] == "bad \ufffd\ufffd bytes\n"


@pytest.mark.parametrize("lang", LANGS)
def test_hooks_that_exit_without_reading_stdin(project: Project, lang: str) -> None:
    project.on("PreToolUse", command(project.hook(NO_READ_SILENT, lang, "silent")), matcher="Write")
    blocker = project.hook(NO_READ_BLOCK, lang, "blocker")
    project.on("PreToolUse", command(blocker), matcher="Bash")
    padding = "z" * 1_000_000  # far more than a pipe buffer: the write hits EPIPE
    big = project.root / "big.txt"
    run = project.run(
        [
            {
                "content": "",
                "tool_calls": [
                    {"name": "Write", "arguments": {"file_path": str(big), "content": padding}},
                    bash_call("touch tool-ran.txt", description=padding),
                ],
            },
            {"match": "blocked without reading", "content": "finished"},
        ],
        mode="bypassPermissions",
    )
    assert_completed(run)
    assert big.stat().st_size == 1_000_000
    assert not (project.root / "tool-ran.txt").exists()
    [deny] = run.hook_results("PreToolUse")
    assert deny["reason"] == f"[{blocker}]: blocked without reading\n"
    records = run.audit("PreToolUse")
    assert [(r["status"], r["exit_code"], r["decision"]) for r in records] == [
        ("ok", 0, None),
        ("ok", 2, "deny"),
    ]


def test_missing_script_in_shell_form_does_not_block(project: Project) -> None:
    project.on(
        "PreToolUse", command('"$CLAUDE_PROJECT_DIR"/.claude/hooks/not-there.sh'), matcher="Bash"
    )
    run = project.run(TOOL_THEN_DONE, mode="bypassPermissions", warnings=1)
    assert_completed(run)
    assert (project.root / "tool-ran.txt").exists()  # a non-blocking error, as in Claude Code
    settings = project.root / ".claude" / "settings.json"
    script = project.root / ".claude" / "hooks" / "not-there.sh"
    [warning] = run.stderr.splitlines()
    assert warning.startswith(f"warning: {settings}:hooks.PreToolUse[0].hooks[0]: ")
    assert f"fails when it runs: missing command: {script}; create {script}" in warning
    [result] = run.hook_results("PreToolUse")
    assert (result["status"], result["decision"]) == ("error", None)
    assert result["error"].startswith("command not found (exit 127):")
    assert "not-there.sh" in result["error"]
    said, record = run.audit("PreToolUse")
    assert (said["status"], said["error"], said["reason"]) == (
        "not_run",
        "missing_command",
        warning.removeprefix("warning: "),
    )
    assert (record["status"], record["exit_code"]) == ("error", 127)
    assert record["error"] == result["error"]
    assert "not-there.sh" in record["stderr_tail"] and "not found" in record["stderr_tail"]


def test_python_missing_script_blocks_and_says_the_script_is_missing(project: Project) -> None:
    hook = 'python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/missing.py'
    project.on("PreToolUse", command(hook), matcher="Bash")
    run = project.run(
        [
            {"content": "", "tool_calls": [bash_call("touch tool-ran.txt")]},
            {"match": "can't open file .*missing.py", "content": "finished"},
        ],
        mode="bypassPermissions",
    )
    assert_completed(run)
    assert not (project.root / "tool-ran.txt").exists()  # exit 2 blocks, as in Claude Code
    [result] = run.hook_results("PreToolUse")
    assert (result["status"], result["decision"]) == ("error", "deny")
    assert result["error"].startswith("hook script missing:") and "missing.py" in result["error"]
    assert run.tool_results[0]["skipped"] == "denied by hook"
    [record] = run.audit("PreToolUse")
    assert (record["exit_code"], record["decision"]) == (2, "deny")
    assert record["error"] == result["error"]
    assert "can't open file" in record["stderr_tail"]


# Prompt and agent hooks through the session's model ---------------------------------------------

NOT_OK = json.dumps({"ok": False, "reason": "touching files is not allowed"})


@pytest.mark.parametrize("continue_on_block", [False, True])
def test_prompt_hook_denies_a_bash_call(project: Project, continue_on_block: bool) -> None:
    hook: dict[str, Any] = {"type": "prompt", "prompt": "Is this call safe? $ARGUMENTS"}
    if continue_on_block:
        hook["continueOnBlock"] = True
    project.on("PreToolUse", hook, matcher="Bash")
    turns: list[dict[str, Any]] = [
        {"content": "", "tool_calls": [bash_call("touch tool-ran.txt")]},
        # the same model answers the prompt hook, which got the input JSON
        {"match": r'Is this call safe\? \{.*"command":"touch tool-ran.txt"', "content": NOT_OK},
    ]
    if continue_on_block:
        turns.append({"match": "touching files is not allowed", "content": "finished"})
    run = project.run(turns, mode="bypassPermissions", returncode=0 if continue_on_block else 1)
    assert not (project.root / "tool-ran.txt").exists()
    [deny] = run.hook_results("PreToolUse")
    reason = "[Is this call safe? $ARGUMENTS]: touching files is not allowed"
    assert (deny["decision"], deny["reason"]) == ("deny", reason)
    assert deny["status"] == "ok" and deny["dialect"] == "claude_code"
    if continue_on_block:
        assert_completed(run)
        assert run.tool_results[0]["content"] == f"PreToolUse:Bash hook error: {reason}"
    else:  # by default a PreToolUse prompt hook that says no ends the turn
        assert run.turn_end["status"] == "aborted"
        assert run.turn_end["reason"] == reason
    [record] = run.audit("PreToolUse")
    assert (record["decision"], record["status"]) == ("deny", "ok")


def test_agent_hook_reads_the_project_and_denies(project: Project) -> None:
    policy = project.root / "POLICY.md"
    policy.write_text("Rule 7: never touch files from Bash.\n")
    project.on(
        "PreToolUse",
        {"type": "agent", "prompt": "Check the call against POLICY.md. $ARGUMENTS"},
        matcher="Bash",
    )
    verdict = json.dumps({"ok": False, "reason": "POLICY.md rule 7"})
    run = project.run(
        [
            {"content": "", "tool_calls": [bash_call("touch tool-ran.txt")]},
            # the hook's read-only sub-agent, on the same model
            {
                "match": "Check the call against POLICY.md",
                "content": "",
                "tool_calls": [{"name": "Read", "arguments": {"file_path": str(policy)}}],
            },
            {"match": "never touch files from Bash", "content": verdict},
            # the main agent again: agent hooks let it continue with the reason
            {"match": "POLICY.md rule 7", "content": "finished"},
        ],
        mode="bypassPermissions",
    )
    assert_completed(run)
    assert not (project.root / "tool-ran.txt").exists()
    [deny] = run.hook_results("PreToolUse")
    reason = "Agent hook condition was not met: POLICY.md rule 7"
    assert (deny["decision"], deny["reason"]) == ("deny", reason)
    assert run.tool_results == [
        {
            "type": "tool_result",
            "id": run.of("tool_call")[0]["id"],
            "name": "Bash",
            "content": f"PreToolUse:Bash hook error: {reason}",
            "is_error": True,
            "skipped": "denied by hook",
        }
    ]
