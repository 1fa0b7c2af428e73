"""Actions benchmark: what deriving the canonical actions of a typical Bash call costs, against
a dispatch with no hooks (the cost every tool call pays anyway).

* `actions_derivation_vs_dispatch_no_hooks`: the first derivation for a call (a fresh
  `HookInput`, the shell parse cache cleared), ns per call / a no-hook `dispatch_sync` ns per
  call. It is paid only when a hook or `if` rule of the event reads actions.
* `actions_derivation_after_if_rule_vs_dispatch_no_hooks`: the first derivation once an `if`
  rule of the call's hooks analysed the command: the derivation reads that parse.
* `actions_derivation_cached_vs_dispatch_no_hooks`: the same call again (PreToolUse then
  PostToolUse of one call, or a repeated command): the parse is cached.

Merges both ratios into bench/results.json (lower is better).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hookwright import Event, HookEngine, HookInput
from hookwright.core import bash_syntax, shell_actions
from hookwright.core.matching import split_bash_commands

ROUNDS = 7
NUMBER = 5_000
RESULTS = Path(__file__).resolve().parent / "results.json"
COMMAND = "cd src && grep -rn 'TODO' . | sort | head -20 > todo.txt && git status --short"
PAYLOAD = {"tool_name": "Bash", "tool_input": {"command": COMMAND}}


def best_ns(func: Callable[[], Any]) -> float:
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.perf_counter_ns()
        for _ in range(NUMBER):
            func()
        best = min(best, (time.perf_counter_ns() - start) / NUMBER)
    return best


def derive_cold() -> Any:
    shell_actions._cached.cache_clear()
    bash_syntax.parsed_bash.cache_clear()
    return HookInput(Event.PreToolUse, cwd="/w", payload=PAYLOAD).actions


def derive_after_if_rule() -> Any:
    shell_actions._cached.cache_clear()
    return HookInput(Event.PreToolUse, cwd="/w", payload=PAYLOAD).actions


def derive_cached() -> Any:
    return HookInput(Event.PreToolUse, cwd="/w", payload=PAYLOAD).actions


def main() -> int:
    engine = HookEngine(audit_path=None)
    inp = HookInput(Event.PreToolUse, session_id="s", cwd="/w", payload=PAYLOAD)
    try:
        dispatch = best_ns(lambda: engine.dispatch_sync(inp))
    finally:
        engine.close()
    cold, cached = best_ns(derive_cold), best_ns(derive_cached)
    split_bash_commands(COMMAND)
    after_rule = best_ns(derive_after_if_rule)
    print(f"dispatch, no hooks:             {dispatch:10,.0f} ns")
    print(f"actions of a Bash call, first:  {cold:10,.0f} ns = {cold / dispatch:.1f}x")
    print(f"  ... after an `if` rule:       {after_rule:10,.0f} ns = {after_rule / dispatch:.1f}x")
    print(f"actions of a Bash call, cached: {cached:10,.0f} ns = {cached / dispatch:.1f}x")
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results["actions_derivation_vs_dispatch_no_hooks"] = cold / dispatch
    results["actions_derivation_after_if_rule_vs_dispatch_no_hooks"] = after_rule / dispatch
    results["actions_derivation_cached_vs_dispatch_no_hooks"] = cached / dispatch
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
