"""What `make` says: the first install announces itself, and `make test` says why a test
skipped. Read with `make -n -B` (print every command, run none)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def planned(target: str) -> list[str]:
    """The commands `make TARGET` would run, as a top-level make prints them (under `make
    test` the variables of the outer make are dropped, or it names its directories)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    proc = subprocess.run(
        ["make", "-n", "-B", "--no-print-directory", target],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_the_first_install_says_what_it_does_before_it_starts() -> None:
    first = planned("demo")[0]
    assert first.startswith("echo ") and "installing hookwright" in first


def test_make_test_reports_why_tests_were_skipped() -> None:
    [pytest_line] = [line for line in planned("unit") if "/pytest " in line]
    assert " -rs" in pytest_line


def test_the_tests_run_in_one_worker_more_than_the_machine_has_cores() -> None:
    [pytest_line] = [line for line in planned("unit") if "/pytest " in line]
    assert f" -n {len(os.sched_getaffinity(0)) + 1} " in pytest_line


@pytest.mark.parametrize(
    ("tests", "typecheck", "passes"),
    [("true", "true", True), ("false", "true", False), ("true", "false", False)],
)
def test_make_test_fails_when_pytest_or_mypy_beside_it_fails(
    tests: str, typecheck: str, passes: bool, tmp_path: Path
) -> None:
    """`make test` runs mypy beside pytest; its exit status is still that of both (each stands
    in here as `true` or `false`). The report goes to the test's folder: written to the usual
    one, it would replace the report of a `make test` that runs this test."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    report = f"MYPY_REPORT={tmp_path / 'mypy-report.txt'}"
    proc = subprocess.run(
        [
            "make",
            "-s",
            "--no-print-directory",
            "test",
            f"PYTEST={tests}",
            f"MYPY={typecheck}",
            report,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert (proc.returncode == 0) is passes, proc.stdout + proc.stderr
