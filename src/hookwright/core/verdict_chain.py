"""The chain of a verdict: which hook moved the decision of its dispatch, and how.

Rebuilt from the verdict's runs (never on the dispatch path): the decisions replayed in the
order the engine merged them. A hook whose decision ranks above the verdict so far tightened
it; an `allow` where no hook before had decided loosened it (the call skips the permission
check); anything else left it as it was. A shadow hook's answer was never applied: it is no
link of the chain.
"""

from __future__ import annotations

from collections.abc import Sequence

from hookwright.core.results import DECISION_RANK, Decision, HookRun

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hookwright.core.audit_detail import Change, VerdictLink


def verdict_chain(runs: Sequence[HookRun]) -> tuple[VerdictLink, ...]:
    """One link per applied hook run that decided something, in merge order."""
    from hookwright.core.audit_detail import VerdictLink  # asked for tiered dispatches alone

    links: list[VerdictLink] = []
    current: Decision | None = None
    for spec, result, _duration in runs:
        if result is None or result.decision is None or spec.shadow:
            continue
        decision = result.decision
        change: Change = "kept"
        if current is None:
            change = "loosened" if decision is Decision.allow else "tightened"
            current = decision
        elif DECISION_RANK[decision] > DECISION_RANK[current]:
            change = "tightened"
            current = decision
        links.append(VerdictLink(spec.name, decision.value, change, spec.tier))
    return tuple(links)


def tiered(runs: Sequence[HookRun]) -> bool:
    """Whether any run is of a hook with a policy tier or in shadow mode: its records then
    carry `tier`, `chain` and `shadow`."""
    # A loop, not `any` over a generator: the audit writer asks it of every dispatch, which
    # mostly has one run, where making the generator costs more than the test.
    for spec, _result, _duration in runs:  # noqa: SIM110
        if spec.tier is not None or spec.shadow:
            return True
    return False


__all__ = ["tiered", "verdict_chain"]
