"""`make conformance`: each case in real Claude Code and in `hookwright run`, compared.

Installs the pinned Claude Code from npm into a temporary folder (or uses `--claude PATH` /
`HOOKWRIGHT_CONFORMANCE_CLAUDE`), runs every case in both agents against one scripted fake
Anthropic API on 127.0.0.1, and prints PASS or FAIL with a diff per case. Prints SKIP and exits
0 when npm or the CLI is unavailable. Nothing of Claude Code is kept in the repository.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from conformance.cases import CASES
from conformance.compare import differences, write_views
from conformance.fake_api import FakeAnthropic
from conformance.harness import Case, cleanup, run

CLAUDE_VERSION = "2.1.240"
PACKAGE = f"@anthropic-ai/claude-code@{CLAUDE_VERSION}"
INSTALL_TIMEOUT = 900


class Unavailable(Exception):
    """Claude Code cannot be installed or started here."""


@contextmanager
def claude_binary(given: str | None) -> Iterator[Path]:
    if given:
        yield _checked(Path(given))
        return
    npm = shutil.which("npm")
    if npm is None:
        raise Unavailable("npm is not on PATH")
    with tempfile.TemporaryDirectory(prefix="hw-claude-") as folder:
        command = [npm, "install", "--prefix", folder, "--no-audit", "--no-fund", PACKAGE]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
        except subprocess.TimeoutExpired as exc:
            raise Unavailable(f"npm install {PACKAGE} timed out") from exc
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise Unavailable(f"npm install {PACKAGE} failed: {last}")
        yield _checked(Path(folder) / "node_modules" / ".bin" / "claude")


def _checked(claude: Path) -> Path:
    try:
        done = subprocess.run(
            [str(claude), "--version"], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Unavailable(f"{claude} does not start: {exc}") from exc
    if done.returncode != 0 or CLAUDE_VERSION not in done.stdout:
        raise Unavailable(f"{claude} --version printed {done.stdout.strip()!r}")
    return claude


def run_case(case: Case, fake: FakeAnthropic, claude: Path, keep: Path | None) -> str:
    expected = run("claude-code", case, fake, claude)
    actual = run("hookwright", case, fake)
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
    parser.add_argument("-k", dest="pattern", default="", help="run cases whose name has this")
    parser.add_argument("--keep", type=Path, help="write both views of every case here")
    args = parser.parse_args(argv)
    cases = [case for case in CASES if args.pattern in case.name]
    try:
        with claude_binary(args.claude) as claude, FakeAnthropic() as fake:
            failed = [case.name for case in cases if _report(case, fake, claude, args.keep)]
    except Unavailable as exc:
        print(f"SKIP conformance: {exc}")
        return 0
    print(f"{len(cases) - len(failed)} of {len(cases)} cases agree with Claude Code")
    if failed:
        print("disagree: " + ", ".join(failed))
    return 1 if failed else 0


def _report(case: Case, fake: FakeAnthropic, claude: Path, keep: Path | None) -> bool:
    diff = run_case(case, fake, claude, keep)
    print(f"{'FAIL' if diff else 'PASS'} {case.name}", flush=True)
    if diff:
        print(diff, flush=True)
    return bool(diff)


if __name__ == "__main__":
    sys.exit(main())
