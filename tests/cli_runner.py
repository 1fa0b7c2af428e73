"""`python -m hookwright` as a real subprocess, for the command-line tests: an isolated HOME,
no model credentials or hookwright settings from the developer's environment (but the Claude
Code version the tests pin), a wide terminal. Runs are forked from a Python that has the command
line imported already (`warm_cli`): the same process boundary, a fraction of the CPU."""

from __future__ import annotations

import json
import locale
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from claude_pin import PIN_ENV
from warm_cli import warm_cli


def run_hookwright(
    *args: str,
    home: Path,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    full_env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("OPENAI_", "ANTHROPIC_", "HOOKWRIGHT_")) or key == PIN_ENV
    }
    full_env.update({"HOME": str(home), "COLUMNS": "200", **(env or {})})
    return run_cli(list(args), full_env, stdin=stdin, timeout=timeout, cwd=cwd)


def run_cli(
    args: list[str],
    env: dict[str, str],
    stdin: str | None = None,
    timeout: float = 120,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """`run_cli_bytes` as `subprocess.run(text=True)` gives it: `stdin` encoded, the output
    decoded (newlines translated) with the locale's encoding."""
    encoding = locale.getpreferredencoding(False)
    data = None if stdin is None else stdin.encode(encoding)
    done = run_cli_bytes(args, env, data, timeout, cwd)
    stdout, stderr = (_text(stream, encoding) for stream in (done.stdout, done.stderr))
    return subprocess.CompletedProcess(done.args, done.returncode, stdout, stderr)


def run_cli_bytes(
    args: list[str],
    env: dict[str, str],
    stdin: bytes | None = None,
    timeout: float = 120,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """`python -m hookwright ARGS` with exactly `env`, `stdin` on its standard input (None:
    the test's own): forked from the warm server when it can serve that environment, spawned
    otherwise."""
    warm = warm_cli(args, env)
    if warm is not None:
        return warm.run(args, env, cwd, stdin, timeout)
    return subprocess.run(
        [sys.executable, "-m", "hookwright", *args],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=timeout,
        cwd=cwd,
    )


def _text(data: bytes, encoding: str) -> str:
    """What `subprocess.run(text=True)` makes of a stream: decoded, newlines translated."""
    return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")


def run_scripted(
    project: Path,
    script: str | Path,
    *flags: str,
    home: Path,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`hookwright run go` in `project`, trusted, with every permission granted, the model
    playing `script` (a file, or a name relative to the project); `flags` are added."""
    return run_hookwright(
        "run",
        "go",
        "--project",
        str(project),
        "--trust",
        "--model",
        f"scripted:{script}",
        "--permission-mode",
        "bypassPermissions",
        *flags,
        home=home,
        env=env,
    )


def run_settings_project(
    project: Path,
    home: Path,
    hooks: dict[str, list[dict[str, Any]]],
    env: dict[str, str] | None,
    turns: list[dict[str, Any]],
    *flags: str,
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """`hookwright run go --json` (trusted) on `project`, made here with a
    `.claude/settings.json` of `hooks` and `env`, the scripted model answering `turns`; `flags`
    are added. The run and its `--json` events."""
    (project / ".claude").mkdir(parents=True)
    settings = {"env": env or {}, "hooks": hooks}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    script = project / "script.json"
    script.write_text(json.dumps({"turns": turns}))
    proc = run_hookwright(
        "run", "go", "--project", str(project), "--trust", "--json",
        "--model", f"scripted:{script}", *flags, home=home,
    )  # fmt: skip
    return proc, [json.loads(line) for line in proc.stdout.splitlines()]


def logged_inputs(log: Path) -> list[dict[str, Any]]:
    """The hook inputs a logging hook appended to `log`, one JSON line each (none: no run)."""
    lines = log.read_text().splitlines() if log.exists() else []
    return [json.loads(line) for line in lines if line.strip()]


def hookwright_rows(listing_json: str) -> list[dict[str, Any]]:
    """hookwright's own row of each hook in a `hooks list --json` listing, in listed order."""
    listing = json.loads(listing_json)
    return [hook["hookwright"] for hook in listing["hooks"]]
