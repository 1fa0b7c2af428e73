"""The headline ratios from bench/results.json, each against the baseline it was measured with
in the same `make bench` run, with its target (none: reported only)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results.json"

#: name -> (baseline, target: the ratio must be at most this; None: reported only)
HEADLINE: dict[str, tuple[str, float | None]] = {
    "dispatch_sync_10_hooks": ("pluggy, 10 implementations", 1.0),
    "dispatch_sync_10_hooks_cpu": ("the same, in CPU time", None),
    "dispatch_sync_audit_10_hooks": ("pluggy, same bursts; audit written between them", 1.2),
    "dispatch_sync_audit_10_hooks_saturated": ("pluggy; audit written within the round", None),
    "audit_append_only_10_hooks_vs_pluggy": ("pluggy; the records appended, nothing encoded", None),
    "rpc_engine_dispatch_vs_pipe_echo": ("bare pipe echo, pinned to one CPU", 2.0),
    "rpc_engine_dispatch_vs_pipe_echo_unpinned": ("the same, unpinned", None),
    "python_hook_warm_vs_spawn": ("the same hook spawned", 0.15),
    "cli_start_vs_python": ("python -c 'import json'", 3.0),
    "daemon_http_vs_true_command": ("a command hook running `true`", 1.0),
    "daemon_client_vs_true_command": ("a command hook running `true`", None),
    "actions_derivation_vs_dispatch_no_hooks": ("a dispatch with no hooks", None),
    "daemon_inprocess_100_vs_http_floor": ("a bare HTTP server, 100 clients (at least)", 0.5),
    "daemon_p99_100_agents_vs_1": ("p99 with one agent at 10 events/s", 2.0),
    "daemon_command_hook_cpu_per_event_100_vs_1": ("the same at one client", 1.2),
    "replay_calls_per_second": ("a rate, not a ratio: recorded calls, one in-process hook", None),
    "install_default_vs_bash_guard": ("a bash+jq guard as a Claude Code command hook", 0.5),
    "install_http_vs_bash_guard": ("the same", None),
    "install_fallback_vs_bash_guard": ("the same", 2.0),
    "warm_python_via_shim_vs_spawn": ("the same hook spawned through the shim", 0.2),
}
#: The ratios whose target is a floor (higher is better); every other target is a ceiling.
AT_LEAST = frozenset({"daemon_inprocess_100_vs_http_floor"})


def main() -> int:
    results = json.loads(RESULTS.read_text())
    width = max(len(name) for name in HEADLINE)
    print(f"\n{'ratio':<{width}}  {'value':>6}  {'target':>6}  baseline")
    for name, (baseline, target) in HEADLINE.items():
        value = results.get(name)
        shown = "  n/a " if value is None else f"{value:6.2f}"
        low = name in AT_LEAST
        missed = (
            value is not None and target is not None and (value < target if low else value > target)
        )
        mark = ("  (under target)" if low else "  (over target)") if missed else ""
        goal = "     -" if target is None else f"{target:6.2f}"
        print(f"{name:<{width}}  {shown}  {goal}  {baseline}{mark}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
