"""`python -m conformance.gemini.hosts`: real Gemini CLI governed by a project's hooks of
other dialects after `hookwright install gemini --project DIR`.

The project (tests/hosts/project.py) has an OpenHarness YAML hook that blocks `rm -rf`, a
Python hook that adds context to each prompt, and a Claude Code hook; its
`.gemini/settings.json` holds settings of the user's own. Gemini trusts the folder
(`trustedFolders.json`), the scripted model (a fake Gemini API on 127.0.0.1, `HOME` fresh)
asks for `rm -rf build`. Two cases:

* governed: hookwright trusts the project. The folder survives, the model read the
  OpenHarness reason in Gemini's wording and the Python hook's context, and `uninstall
  gemini` leaves `.gemini/settings.json` byte for byte as it was.
* untrusted: hookwright does not trust the project and the user's policy fails every guard
  before a tool call closed. The folder survives, the model read a refusal saying the folder
  is not trusted, and Gemini showed the user how to trust it.

Prints SKIP and exits 0 when Gemini CLI is unavailable."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.hosts.project import make_project

from conformance.fake_api import ToolUse, Turn
from conformance.fake_gemini import FakeGemini
from conformance.gemini.__main__ import GEMINI, MODEL
from conformance.npm_cli import Unavailable, installed

RUN_TIMEOUT = 300
#: The project's own Gemini settings before install (kept byte for byte).
PROJECT_SETTINGS = b'{\n\t"general": {"vimMode": false},\n\t"ui": {"theme": "Default"}\n}\n'
REFUSAL = "Tool execution blocked: rm -rf is not allowed here"
CLOSED_POLICY = "rules:\n  - fail: closed\n    events: [PreToolUse, PermissionRequest]\n"


def hookwright(env: dict[str, str], *args: str) -> str:
    command = [sys.executable, "-m", "hookwright", *args]
    done = subprocess.run(command, env=env, check=True, timeout=60, capture_output=True)
    return done.stdout.decode()


def texts(body: dict[str, Any]) -> list[str]:
    """Every text part and function response of a Gemini API request, as text."""
    found: list[str] = []
    for content in body.get("contents") or []:
        for part in content.get("parts") or []:
            if isinstance(part.get("text"), str):
                found.append(part["text"])
            if isinstance(part.get("functionResponse"), dict):
                found.append(json.dumps(part["functionResponse"].get("response")))
    return found


def prepared(root: Path) -> tuple[Path, Path, dict[str, str]]:
    """A fresh HOME where Gemini trusts the project, and the project."""
    home, project = root / "home", make_project(root / "project")
    (project / "build").mkdir()
    (project / "build" / "keep.txt").write_text("keep")
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_bytes(PROJECT_SETTINGS)
    (home / ".gemini").mkdir(parents=True)
    user = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    (home / ".gemini" / "settings.json").write_text(json.dumps(user))
    (home / ".gemini" / "trustedFolders.json").write_text(
        json.dumps({str(project): "TRUST_FOLDER"})
    )
    env = {
        **os.environ,
        "HOME": str(home),
        "GEMINI_API_KEY": "dummy",
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(root / "system-settings.json"),
    }
    env.pop("HOOKWRIGHT_AUDIT_LOG", None)
    return home, project, env


def run_gemini(gemini: Path, project: Path, env: dict[str, str], fake: FakeGemini) -> str:
    """One headless Gemini run asked to clean the build; its stdout and stderr."""
    command = [str(gemini), "--output-format", "stream-json", "-m", MODEL]
    command += ["--approval-mode", "yolo", "-p", "clean the build"]
    done = subprocess.run(
        command,
        cwd=project,
        env={**env, "GOOGLE_GEMINI_BASE_URL": fake.base_url},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        start_new_session=True,
    )
    return done.stdout + done.stderr


def scenario(
    gemini: Path, root: Path, fake: FakeGemini, trusted: bool
) -> tuple[list[str], str, Path, dict[str, str]]:
    """Install into the project and run Gemini once: what the model read, what Gemini
    printed, the project, the environment."""
    home, project, env = prepared(root)
    if trusted:
        hookwright(env, "trust", str(project))
    else:
        (home / ".hookwright").mkdir()
        (home / ".hookwright" / "policy.yaml").write_text(CLOSED_POLICY)
    hookwright(env, "install", "gemini", "--project", str(project))
    rm = ToolUse("call_rm", "Bash", {"command": "rm -rf build", "description": "clean"})
    script = fake.load([Turn(tools=[rm]), Turn("done")])
    printed = run_gemini(gemini, project, env, fake)
    seen = [text for r in script.requests if r.loop for text in texts(r.body)]
    return seen, printed, project, env


def governed(gemini: Path, root: Path, fake: FakeGemini) -> list[str]:
    seen, printed, project, env = scenario(gemini, root, fake, trusted=True)
    problems = _survived(project, printed)
    for wanted in (REFUSAL, "HOUSE-RULES: answer in one line."):
        if not any(wanted in text for text in seen):
            problems.append(f"the model never read {wanted!r}")
    hookwright(env, "uninstall", "gemini", "--project", str(project))
    if (project / ".gemini" / "settings.json").read_bytes() != PROJECT_SETTINGS:
        problems.append("uninstall did not restore .gemini/settings.json byte for byte")
    return problems


def untrusted(gemini: Path, root: Path, fake: FakeGemini) -> list[str]:
    seen, printed, project, _ = scenario(gemini, root, fake, trusted=False)
    problems = _survived(project, printed)
    if not any("Tool execution blocked" in t and "not trusted" in t for t in seen):
        problems.append("the model never read a refusal saying the folder is not trusted")
    if f"hookwright trust {project}" not in printed:
        problems.append("Gemini never showed how to trust the folder")
    return problems


def _survived(project: Path, printed: str) -> list[str]:
    if (project / "build" / "keep.txt").exists():
        return []
    return [f"rm -rf build ran: the folder is gone; Gemini printed: {printed[-600:]}"]


CASES: dict[str, Callable[[Path, Path, FakeGemini], list[str]]] = {
    "governed": governed,
    "untrusted-fail-closed": untrusted,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.gemini.hosts", description=__doc__)
    parser.add_argument("--gemini", default=os.environ.get("HOOKWRIGHT_CONFORMANCE_GEMINI"))
    args = parser.parse_args(argv)
    failed = 0
    try:
        with installed(GEMINI, args.gemini) as gemini, FakeGemini() as fake:
            for name, case in CASES.items():
                root = Path(tempfile.mkdtemp(prefix="hw-gemini-host-")).resolve()
                try:
                    problems = case(gemini, root, fake)
                finally:
                    shutil.rmtree(root, ignore_errors=True)
                print(f"{'FAIL' if problems else 'PASS'} gemini hosts {name} ({MODEL})", flush=True)
                for problem in problems:
                    print(f"  {problem}")
                failed += bool(problems)
    except Unavailable as exc:
        print(f"SKIP gemini hosts: {exc}")
        return 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
