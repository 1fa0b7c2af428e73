from __future__ import annotations

import pytest

from .scenario import ScenarioRun, play


@pytest.fixture(scope="class")
def scenario(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> ScenarioRun:
    """The conformance conversation, played once per framework test class."""
    driver = request.cls.driver
    return play(driver, tmp_path_factory.mktemp(driver.framework.replace("-", "_")))
