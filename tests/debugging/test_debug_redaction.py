"""`--debug` never shows a secret: OpenHarness `${secrets.NAME}` values (from the environment
and from the secrets file) are written as `***` in the command line, the stdin, the output and
the results it traces, even where a value is cut to its length limit, and in the audit too."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_hookwright

#: From the environment; quotes and a backslash, so JSON shows it escaped.
FROM_ENV = 'env-tok"en\\9f3b2c7d'
#: From ~/.openharness/secrets.yaml; long, and placed across the trace's 600-character cut.
FROM_FILE = "FILE-SECRET-" + "x7Qp" * 10
PADDING = "p" * 560

#: Shows the file secret in its command line (past the padding), prints the environment's to
#: stderr, and answers with the file secret in its reason.
COMMAND = (
    f"printf '%s' '{PADDING} ${{secrets.FILE_TOKEN}}' >/dev/null; "
    "printf '%s' \"$HOOK_TOKEN\" >&2; "
    'echo \'{"decision": "block", "reason": "token ${secrets.FILE_TOKEN}"}\''
)

HOOK = f"""\
name: leaky
events: [before_tool_dispatch]
matcher: "Bash"
handler:
  type: command
  command: {json.dumps(COMMAND)}
  environment: {{HOOK_TOKEN: "${{secrets.ENV_TOKEN}}"}}
  timeout_seconds: 10
"""


def _project(root: Path, home: Path) -> Path:
    (root / ".openharness" / "hooks").mkdir(parents=True)
    (root / ".openharness" / "hooks" / "leaky.yaml").write_text(HOOK)
    secrets = home / ".openharness" / "secrets.yaml"
    secrets.parent.mkdir(parents=True, exist_ok=True)
    secrets.write_text(json.dumps({"FILE_TOKEN": FROM_FILE}) + "\n")
    secrets.chmod(0o600)
    return root


def _absent(secret: str, *texts: str) -> None:
    for text in texts:
        assert secret not in text
        assert json.dumps(secret)[1:-1] not in text
        assert secret[:10] not in text  # nor the part of it before a cut


def test_hooks_test_debug_shows_no_secret(tmp_path: Path, isolated_home: Path) -> None:
    project = _project(tmp_path / "proj", isolated_home)
    payload = {"tool_name": "Bash", "tool_input": {"command": f"deploy --token '{FROM_ENV}'"}}
    done = run_hookwright(
        "--debug",
        *("hooks", "test", "before_tool_dispatch", "-i", "-", "-p", str(project), "--explain"),
        home=isolated_home,
        stdin=json.dumps(payload),
        env={"ENV_TOKEN": FROM_ENV},
    )
    assert done.returncode == 0, done.stderr
    verdict = json.loads(done.stdout)
    assert verdict["decision"] == "deny" and verdict["reason"] == "token ***"
    spawn = next(line for line in done.stderr.splitlines() if "] spawn: " in line)
    assert "***" in spawn and "stdin: " in spawn
    process = next(line for line in done.stderr.splitlines() if "] process: " in line)
    assert process.endswith("stderr: ***")  # the hook printed the secret its environment had
    assert "] result: " in done.stderr
    audit = (isolated_home / ".hookwright" / "audit.jsonl").read_text()
    for secret in (FROM_ENV, FROM_FILE):
        _absent(secret, done.stdout, done.stderr, audit)


def test_hookwright_debug_variable_redacts_too(tmp_path: Path, isolated_home: Path) -> None:
    project = _project(tmp_path / "proj", isolated_home)
    payload = {"tool_name": "Bash", "tool_input": {"command": "ls"}}
    done = run_hookwright(
        *("hooks", "test", "before_tool_dispatch", "-i", "-", "-p", str(project)),
        home=isolated_home,
        stdin=json.dumps(payload),
        env={"ENV_TOKEN": FROM_ENV, "HOOKWRIGHT_DEBUG": "1"},
    )
    assert done.returncode == 0, done.stderr
    assert "] spawn: " in done.stderr
    for secret in (FROM_ENV, FROM_FILE):
        _absent(secret, done.stdout, done.stderr)
