"""CLI start-up: `hookwright --version` and `hookwright hooks test` vs `python -c "import json"`.

Each command is started as a fresh process in interleaved rounds (so a slow moment of the
machine hits all three alike); the best round of each counts. The baseline runs on the same
interpreter hookwright runs on. Each run's CPU time (user + system) is recorded too: on a busy
machine it wobbles far less than wall time, so `cli_start_cpu_vs_python` (the same ratio in CPU
time) is written alongside. hookwright's bytecode is compiled first, as installing a
package does (an editable install, with PYTHONDONTWRITEBYTECODE set, would otherwise compile
every module on every start). Merges `cli_start_vs_python` (the slower of the two commands /
the baseline) and one ratio per command into bench/results.json.
"""

from __future__ import annotations

import compileall
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

import hookwright

RESULTS = Path(__file__).resolve().parent / "results.json"
ROUNDS = 15
HOOKWRIGHT = str(Path(sys.executable).with_name("hookwright"))
BASELINE = "python -c 'import json'"


def run_once(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time (user + system, of the child) of one run, in ns."""
    start = time.perf_counter_ns()
    child = subprocess.Popen(
        argv,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter_ns() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{argv} failed with exit code {child.returncode}")
    return elapsed, (usage.ru_utime + usage.ru_stime) * 1e9


def measure(tmp: Path) -> tuple[dict[str, float], dict[str, float]]:
    """Best wall time and best CPU time of each command, in ns."""
    env = {**os.environ, "HOME": str(tmp / "home"), "HOOKWRIGHT_AUDIT_LOG": str(tmp / "a.jsonl")}
    (tmp / "home").mkdir()
    project = tmp / "project"
    project.mkdir()
    cases = {
        BASELINE: [sys.executable, "-c", "import json"],
        "hookwright --version": [HOOKWRIGHT, "--version"],
        "hookwright hooks test PreToolUse": [
            HOOKWRIGHT,
            "hooks",
            "test",
            "PreToolUse",
            "--project",
            str(project),
        ],
    }
    best = {name: float("inf") for name in cases}
    cpu = dict(best)
    for _ in range(ROUNDS):
        for name, argv in cases.items():
            wall, used = run_once(argv, env, project)
            best[name], cpu[name] = min(best[name], wall), min(cpu[name], used)
    return best, cpu


def main() -> int:
    compileall.compile_dir(Path(hookwright.__file__).parent, quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        best, cpu = measure(Path(tmp))
    floor, cpu_floor = best[BASELINE], cpu[BASELINE]
    table = Table(title=f"CLI start-up (best of {ROUNDS} interleaved rounds)")
    for column in ("command", "ms", "ratio to python", "CPU ms", "CPU ratio"):
        table.add_column(column, justify="right")
    for name, ns in best.items():
        ratios = (ns / 1e6, ns / floor, cpu[name] / 1e6, cpu[name] / cpu_floor)
        table.add_row(name, *(f"{value:,.2f}" for value in ratios))
    Console(width=120).print(table)
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results.update(
        {
            "cli_start_vs_python": max(ns for name, ns in best.items() if name != BASELINE) / floor,
            "cli_version_vs_python": best["hookwright --version"] / floor,
            "cli_hooks_test_vs_python": best["hookwright hooks test PreToolUse"] / floor,
            "cli_start_cpu_vs_python": max(ns for name, ns in cpu.items() if name != BASELINE)
            / cpu_floor,
        }
    )
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
