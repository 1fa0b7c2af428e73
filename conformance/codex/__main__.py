"""`python -m conformance.codex`: each case in real Codex CLI and in `hookwright run`.

Installs the pinned Codex CLI from npm into a temporary folder (or uses `--codex PATH` /
`HOOKWRIGHT_CONFORMANCE_CODEX`), runs every case in both agents against one scripted fake
OpenAI API on 127.0.0.1, and prints PASS or FAIL with a diff per case. Prints SKIP and exits 0
when npm or the CLI is unavailable. Nothing of Codex is kept in the repository.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from conformance.codex.cases import CASES
from conformance.codex.harness import CodexCase, run
from conformance.codex.layers import NoNamespace
from conformance.codex.view import differences
from conformance.fake_responses import FakeOpenAI
from conformance.harness import cleanup
from conformance.npm_cli import NpmCli, Unavailable, installed

CODEX_VERSION = "0.171.0"
CODEX = NpmCli("@openai/codex", CODEX_VERSION, "codex")


def run_case(case: CodexCase, fake: FakeOpenAI, codex: Path) -> str:
    expected = run("codex", case, fake, codex)
    actual = run("hookwright", case, fake)
    try:
        return differences(expected, actual, case.compare)
    finally:
        cleanup(expected)
        cleanup(actual)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.codex", description=__doc__)
    parser.add_argument("--codex", default=os.environ.get("HOOKWRIGHT_CONFORMANCE_CODEX"))
    parser.add_argument("-k", dest="pattern", default="", help="run cases whose name has this")
    args = parser.parse_args(argv)
    cases = [case for case in CASES if args.pattern in case.name]
    try:
        with installed(CODEX, args.codex) as codex, FakeOpenAI() as fake:
            verdicts = {case.name: _report(case, fake, codex) for case in cases}
    except Unavailable as exc:
        print(f"SKIP codex conformance: {exc}")
        return 0
    failed = [name for name, verdict in verdicts.items() if verdict == "FAIL"]
    documented = sum(verdict == "DIFFERS" for verdict in verdicts.values())
    skipped = sum(verdict == "SKIP" for verdict in verdicts.values())
    agree = len(cases) - len(failed) - documented - skipped
    print(
        f"{agree} of {len(cases)} cases agree with Codex CLI {CODEX_VERSION}, "
        f"{documented} differ as documented" + (f", {skipped} skipped" if skipped else "")
    )
    if failed:
        print("disagree: " + ", ".join(failed))
    return 1 if failed else 0


def _report(case: CodexCase, fake: FakeOpenAI, codex: Path) -> str:
    """PASS, FAIL, DIFFERS for a documented difference that shows, or SKIP."""
    try:
        diff = run_case(case, fake, codex)
    except NoNamespace as exc:
        print(f"SKIP {case.name} (managed layers: {exc})", flush=True)
        return "SKIP"
    verdict = "PASS" if not diff else "DIFFERS" if case.differs else "FAIL"
    note = f" (documented: {case.differs})" if verdict == "DIFFERS" else ""
    print(f"{verdict} {case.name}{note}", flush=True)
    if diff:
        print(diff, flush=True)
    return verdict


if __name__ == "__main__":
    sys.exit(main())
