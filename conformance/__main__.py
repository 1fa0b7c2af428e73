"""`make conformance`: each case in real Claude Code and in `hookwright run`, compared.

Installs the pinned Claude Code (`--claude-code-version`, default `CLAUDE_VERSION`) from npm
into a temporary folder (or uses `--claude PATH` / `HOOKWRIGHT_CONFORMANCE_CLAUDE`, which must
be that version), runs every case in both agents against one scripted fake Anthropic API and
one hook endpoint on 127.0.0.1, and prints PASS or FAIL with a diff per case; a case that needs
a newer Claude Code prints SKIP. Prints SKIP and exits 0 when npm or the CLI is unavailable.
Nothing of Claude Code is kept in the repository.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from conformance.cases import CASES
from conformance.compare import differences, write_views
from conformance.fake_api import FakeAnthropic
from conformance.harness import Case, cleanup, run
from conformance.hook_server import HookServer
from conformance.npm_cli import NpmCli, Unavailable, installed

CLAUDE_VERSION = "2.1.240"


def claude_code(version: str = CLAUDE_VERSION) -> NpmCli:
    """Claude Code `version` (`claude --version` prints `2.1.240 (Claude Code)`)."""
    return NpmCli("@anthropic-ai/claude-code", version, "claude", first_word=True)


def version_key(version: str) -> tuple[int, ...]:
    """``2.1.295`` as ``(2, 1, 295)``, so versions compare as numbers."""
    return tuple(int(part) for part in version.split("."))


def runs_on(case: Case, version: str) -> bool:
    return case.since is None or version_key(version) >= version_key(case.since)


def run_case(
    case: Case,
    fake: FakeAnthropic,
    hooks: HookServer,
    claude: Path,
    keep: Path | None,
    version: str = CLAUDE_VERSION,
) -> str:
    """The case in Claude Code and in `hookwright run` as that same Claude Code `version`."""
    expected = run("claude-code", case, fake, claude, hooks)
    actual = run("hookwright", case, fake, hooks=hooks, version=version)
    try:
        if keep is not None:
            write_views(keep / case.name, expected, actual, aspects=case.compare)
        return differences(expected, actual, case.compare)
    finally:
        cleanup(expected)
        cleanup(actual)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance", description=__doc__)
    parser.add_argument("--claude", default=os.environ.get("HOOKWRIGHT_CONFORMANCE_CLAUDE"))
    parser.add_argument(
        "--claude-code-version", default=CLAUDE_VERSION, help="the Claude Code to compare with"
    )
    parser.add_argument(
        "-k",
        dest="patterns",
        action="append",
        default=[],
        help="run cases whose name has this (repeatable: any of them)",
    )
    parser.add_argument("--keep", type=Path, help="write both views of every case here")
    args = parser.parse_args(argv)
    version = args.claude_code_version
    patterns = args.patterns or [""]
    named = [case for case in CASES if any(pattern in case.name for pattern in patterns)]
    cases = [case for case in named if runs_on(case, version)]
    try:
        with (
            installed(claude_code(version), args.claude) as claude,
            FakeAnthropic() as fake,
            HookServer() as hooks,
        ):
            for case in named:
                if not runs_on(case, version):
                    print(f"SKIP {case.name} (needs Claude Code {case.since} or later)")
            failed = [
                case.name
                for case in cases
                if _report(case, fake, hooks, claude, args.keep, version)
            ]
    except Unavailable as exc:
        print(f"SKIP conformance: {exc}")
        return 0
    print(f"{len(cases) - len(failed)} of {len(cases)} cases agree with Claude Code {version}")
    if failed:
        print("disagree: " + ", ".join(failed))
    return 1 if failed else 0


def _report(
    case: Case,
    fake: FakeAnthropic,
    hooks: HookServer,
    claude: Path,
    keep: Path | None,
    version: str,
) -> bool:
    diff = run_case(case, fake, hooks, claude, keep, version)
    print(f"{'FAIL' if diff else 'PASS'} {case.name}", flush=True)
    if diff:
        print(diff, flush=True)
    return bool(diff)


if __name__ == "__main__":
    sys.exit(main())
