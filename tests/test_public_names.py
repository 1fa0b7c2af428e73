"""The packages that load their public names on first use (`hookwright.core.lazy_names`):
every name they export loads from the module their table names, and a name they do not
export is an `AttributeError` naming the package."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

import hookwright
import hookwright.dialects.claude_code
import hookwright.host
from hookwright.core.tool_results import tool_result_of
from hookwright.engine.kernel import HookEngine
from hookwright.host.session import HookSession

LAZY_PACKAGES = (hookwright, hookwright.host, hookwright.dialects.claude_code)


@pytest.mark.parametrize("package", LAZY_PACKAGES, ids=lambda p: p.__name__)
def test_every_exported_name_has_a_home_and_loads(package: ModuleType) -> None:
    exported = set(package.__all__) - {"__version__"}
    assert exported == set(package._HOMES)
    for name in sorted(exported):
        assert getattr(package, name) is not None, name


@pytest.mark.parametrize("package", LAZY_PACKAGES, ids=lambda p: p.__name__)
def test_an_unknown_name_is_an_attribute_error_naming_the_package(package: ModuleType) -> None:
    with pytest.raises(AttributeError, match=rf"module '{package.__name__}' has no attribute"):
        _ = package.NoSuchName


def test_names_resolve_to_their_homes_objects() -> None:
    assert hookwright.HookEngine is HookEngine
    assert hookwright.HookSession is HookSession is hookwright.host.HookSession
    assert hookwright.host.tool_result_from_value is tool_result_of
    stdin = importlib.import_module("hookwright.dialects.claude_code.stdin")
    assert hookwright.dialects.claude_code.encode_stdin is stdin.encode_stdin
