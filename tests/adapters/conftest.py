from __future__ import annotations

import pytest

from claude_pin import MEASURED_ON, PIN_ENV

from .scenario import ScenarioRun, play


@pytest.fixture(scope="class")
def scenario(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> ScenarioRun:
    """The conformance conversation, played once per framework test class, as the Claude Code
    version the expectations were measured on (set before the per-test pin exists)."""
    driver = request.cls.driver
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(PIN_ENV, MEASURED_ON)
        return play(driver, tmp_path_factory.mktemp(driver.framework.replace("-", "_")))
