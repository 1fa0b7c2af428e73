"""How many inputs each fuzz property gets, and how many ran.

A property's budget is a `share` of the loaded hypothesis profile's `max_examples`: the default
profile (100) keeps `make test` at a few seconds, the `fuzz` profile (registered in
`tests/conftest.py`, used by `make fuzz`) multiplies every budget. Shares reflect cost: a
property that writes a project to disk gets less than one that decodes a string.

Every generated input that reaches a property's body is counted (`RUN_COUNTS`), so `make fuzz`
can report the real total rather than the configured one.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar

from hypothesis import HealthCheck, settings

from bounds import GENEROUS_BOUND

#: Inputs run per property (test function name -> count), for the end-of-run summary.
RUN_COUNTS: Counter[str] = Counter()

#: Each input must be answered within this; a slower one fails the property.
DEADLINE = timedelta(seconds=GENEROUS_BOUND)

Test = TypeVar("Test", bound=Callable[..., Any])


def budget(share: float) -> Callable[[Test], Test]:
    """Run the `@given` test below with `share` x the profile's examples, the per-input
    deadline, no example database, and every input counted."""

    def decorate(test: Test) -> Test:
        inner = test.hypothesis.inner_test  # type: ignore[attr-defined]
        name = test.__name__

        @functools.wraps(inner)
        def counted(*args: Any, **kwargs: Any) -> Any:
            RUN_COUNTS[name] += 1
            return inner(*args, **kwargs)

        test.hypothesis.inner_test = counted  # type: ignore[attr-defined]
        examples = max(1, round(settings.default.max_examples * share))
        return settings(  # type: ignore[no-any-return]
            settings.default,
            max_examples=examples,
            deadline=DEADLINE,
            database=None,
            suppress_health_check=list(HealthCheck),
        )(test)

    return decorate
