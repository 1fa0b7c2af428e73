"""`python -m conformance.codex.hosts`: real Codex CLI governed by a project's hooks of other
dialects after `hookwright install codex`.

The project (tests/hosts/project.py) has an OpenHarness YAML hook that blocks `rm -rf`, a
Python hook that adds context to each prompt, and a Claude Code hook adding context to each
tool call. The user's Codex `hooks.json` holds a hook of the user's own; `install codex` adds
hookwright's, and the review entries it prints are added to Codex's `config.toml` (what
accepting them in `/hooks` records). The scripted model asks for `rm -rf build`; the check is
that the folder survives, the model read the OpenHarness reason in Codex's wording, the
Python and Claude Code hooks' context reached it, and `uninstall codex` leaves `hooks.json`
byte for byte as it was. A third scenario (`refused`) has a file an organization requires of
Codex that Codex reads but hookwright will not (the workspace's cached bundle, writable by
others) under a failure policy closing Codex's hooks: the relay refuses the prompt. Prints
SKIP and exits 0 when Codex CLI is unavailable."""

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

from conformance.codex.__main__ import CODEX
from conformance.codex.cases import CLOSED_CODEX
from conformance.codex.cloud import PLAN, REFRESH_TOKEN_URL, write_cloud_cache
from conformance.codex.harness import MODEL, auth_json, config_toml
from conformance.codex.layers import NoNamespace, in_namespace, managed_folder
from conformance.fake_responses import FakeOpenAI, Reply, Shell
from conformance.npm_cli import Unavailable, installed
from hookwright.dialects.codex.layers import MANAGED_DIR_ENV

RUN_TIMEOUT = 180
USER_HOOKS = b'{\n  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}\n}\n'
REFUSAL = "Command blocked by PreToolUse hook: rm -rf is not allowed here. Command: rm -rf build"


def hookwright(env: dict[str, str], *args: str) -> str:
    command = [sys.executable, "-m", "hookwright", *args]
    done = subprocess.run(command, env=env, check=True, timeout=60, capture_output=True)
    return done.stdout.decode()


def texts(body: dict[str, Any]) -> list[str]:
    found: list[str] = []
    for item in body.get("input") or []:
        if item.get("type") == "function_call_output":
            found.append(str(item.get("output")))
        for part in item.get("content") or []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                found.append(part["text"])
    return found


def installed_project(
    root: Path, fake: FakeOpenAI, managed: bool = False
) -> tuple[Path, Path, dict[str, str]]:
    """(home, project, env): the project trusted, the user's own `hooks.json`, hookwright
    installed into Codex (`managed`: into its managed layer, with
    ``allow_managed_hooks_only = true``, and no review) and its hooks reviewed."""
    home, project = root / "home", make_project(root / "project")
    (project / "build").mkdir()
    (project / "build" / "keep.txt").write_text("keep")
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "hooks.json").write_bytes(USER_HOOKS)
    env = {
        **os.environ,
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "SHELL": "/bin/bash",
        "LOCAL_API_KEY": "sk-conformance",
        "CODEX_REFRESH_TOKEN_URL_OVERRIDE": REFRESH_TOKEN_URL,
        MANAGED_DIR_ENV: str(managed_folder(root)),
    }
    hookwright(env, "trust", str(project))
    if managed:
        (root / "etc" / "work").mkdir(parents=True)
        managed_folder(root).mkdir(parents=True)
        (managed_folder(root) / "requirements.toml").write_text("allow_managed_hooks_only = true\n")
    flags = ["--managed"] if managed else []
    printed = hookwright(env, "install", "codex", *flags).splitlines()
    reviews = [
        line.strip() for line in printed if line.strip().startswith(("[hooks.state", "trusted"))
    ]
    config = config_toml(fake, [], "") + "\n" + "\n".join(reviews) + "\n"
    (home / ".codex" / "config.toml").write_text(config)
    return home, project, env


def run_codex(
    codex: Path, root: Path, project: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    command = [str(codex), "exec", "--json", "--skip-git-repo-check"]
    command += ["--dangerously-bypass-approvals-and-sandbox", "--trust", "clean the build"]
    return subprocess.run(
        in_namespace(root, command),
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        start_new_session=True,
    )


def governed(codex: Path, root: Path, fake: FakeOpenAI, managed: bool = False) -> list[str]:
    """Run the scenario under `root`; the problems found (none: it holds). `managed`:
    installed into Codex's managed layer (``/etc/codex``, overlaid for Codex alone) with
    ``allow_managed_hooks_only = true``, and no review."""
    home, project, env = installed_project(root, fake, managed)
    script = fake.load([Reply(calls=[Shell("call_rm", "rm -rf build")]), Reply("done")])
    run_codex(codex, root, project, env)
    seen = [text for r in script.requests if r.loop for text in texts(r.body)]
    problems = []
    if not (project / "build" / "keep.txt").exists():
        problems.append("rm -rf build ran: the folder is gone")
    for wanted in (REFUSAL, "HOUSE-RULES: answer in one line.", "CLAUDE-HOOK-TWICE"):
        if not any(wanted in text for text in seen):
            problems.append(f"the model never read {wanted!r}")
    flags = ["--managed"] if managed else []
    hookwright(env, "uninstall", "codex", *flags)
    if (home / ".codex" / "hooks.json").read_bytes() != USER_HOOKS:
        problems.append("uninstall did not restore hooks.json byte for byte")
    if (managed_folder(root) / "hooks.json").exists():
        problems.append("uninstall --managed left the managed hooks.json")
    return problems


def refused(codex: Path, root: Path, fake: FakeOpenAI, managed: bool = False) -> list[str]:
    """A Business sign-in whose cached bundle Codex uses, but others may write (mode 666: Codex
    reads and trusts it, hookwright does not), under a failure policy closing Codex's hooks:
    the relay refuses the prompt, Codex's first gated event (Codex shows no reason: the line
    itself is checked in tests/codex/test_codex_hook_refusal.py), so the model is never asked;
    once the copy is private the project's hooks govern Codex again. The problems found (none:
    it holds)."""
    home, project, env = installed_project(root, fake, managed)
    codex_home = home / ".codex"
    (codex_home / "auth.json").write_text(json.dumps(auth_json(PLAN)))
    write_cloud_cache(codex_home, (), (), "user", "account")
    copy = codex_home / "cloud-config-bundle-cache.json"
    copy.chmod(0o666)
    (home / ".hookwright").mkdir(exist_ok=True)
    (home / ".hookwright" / "policy.yaml").write_text(CLOSED_CODEX)
    script = fake.load([Reply(calls=[Shell("call_rm", "rm -rf build")]), Reply("done")])
    done = run_codex(codex, root, project, env)
    problems = []
    if any(r.loop for r in script.requests):
        problems.append("the model was asked: the prompt was not refused")
    if '"turn.completed"' not in done.stdout:
        problems.append(f"Codex did not run the turn (exit {done.returncode})")
    copy.chmod(0o600)
    script = fake.load([Reply(calls=[Shell("call_rm", "rm -rf build")]), Reply("done")])
    run_codex(codex, root, project, env)
    seen = [text for r in script.requests if r.loop for text in texts(r.body)]
    if not any(REFUSAL in text for text in seen):
        problems.append("with the copy private, the project's guard did not answer Codex")
    if not (project / "build" / "keep.txt").exists():
        problems.append("rm -rf build ran: the folder is gone")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.codex.hosts", description=__doc__)
    parser.add_argument("--codex", default=os.environ.get("HOOKWRIGHT_CONFORMANCE_CODEX"))
    args = parser.parse_args(argv)
    failed = False
    try:
        with installed(CODEX, args.codex) as codex, FakeOpenAI() as fake:
            for managed in (False, True):
                failed |= _scenario(codex, fake, governed, managed)
            failed |= _scenario(codex, fake, refused)
    except Unavailable as exc:
        print(f"SKIP codex hosts: {exc}")
        return 0
    return 1 if failed else 0


def _scenario(
    codex: Path, fake: FakeOpenAI, scenario: Callable[..., list[str]], managed: bool = False
) -> bool:
    """Print the scenario's verdict; True when it failed."""
    what = "refused by" if scenario is refused else "governed by"
    name = f"codex {what} hookwright{' (managed layer)' if managed else ''} ({MODEL})"
    root = Path(tempfile.mkdtemp(prefix="hw-codex-host-")).resolve()
    try:
        problems = scenario(codex, root, fake, managed)
    except NoNamespace as exc:
        print(f"SKIP {name}: {exc}")
        return False
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{'FAIL' if problems else 'PASS'} {name}")
    for problem in problems:
        print(f"  {problem}")
    return bool(problems)


if __name__ == "__main__":
    sys.exit(main())
