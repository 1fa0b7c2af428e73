"""CLI start-up: `hookwright --version` and `hookwright hooks test` vs `python -c "import json"`.

Each command is started as a fresh process in interleaved rounds (so a slow moment of the
machine hits all three alike); the best round of each counts. The baseline runs on the same
interpreter hookwright runs on. hookwright's bytecode is compiled first, as installing a
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


def run_once(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter_ns()
    done = subprocess.run(
        argv, env=env, cwd=cwd, input=b"", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    elapsed = time.perf_counter_ns() - start
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed: {done.stderr.decode(errors='replace')}")
    return elapsed


def measure(tmp: Path) -> dict[str, float]:
    """Best wall time of each command, in ns."""
    env = {**os.environ, "HOME": str(tmp / "home"), "HOOKWRIGHT_AUDIT_LOG": str(tmp / "a.jsonl")}
    (tmp / "home").mkdir()
    project = tmp / "project"
    project.mkdir()
    cases = {
        "python -c 'import json'": [sys.executable, "-c", "import json"],
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
    for _ in range(ROUNDS):
        for name, argv in cases.items():
            best[name] = min(best[name], run_once(argv, env, project))
    return best


def main() -> int:
    compileall.compile_dir(Path(hookwright.__file__).parent, quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        best = measure(Path(tmp))
    floor = best["python -c 'import json'"]
    table = Table(title=f"CLI start-up (best of {ROUNDS} interleaved rounds)")
    for column in ("command", "ms", "ratio to python"):
        table.add_column(column, justify="right")
    for name, ns in best.items():
        table.add_row(name, f"{ns / 1e6:,.1f}", f"{ns / floor:.2f}")
    Console(width=120).print(table)
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results.update(
        {
            "cli_start_vs_python": max(ns for name, ns in best.items() if "hookwright" in name)
            / floor,
            "cli_version_vs_python": best["hookwright --version"] / floor,
            "cli_hooks_test_vs_python": best["hookwright hooks test PreToolUse"] / floor,
        }
    )
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
