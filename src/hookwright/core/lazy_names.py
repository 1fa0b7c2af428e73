"""A package's public names, each imported from its module on first use (PEP 562).

The package root, `hookwright.host` and `hookwright.dialects.claude_code` list where each of
their names lives instead of importing it, so importing them stays cheap: `hookwright
--version` does not load the engine, and answering one Claude Code event does not load the
settings' validation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def lazy_getattr(namespace: dict[str, Any], homes: Mapping[str, str]) -> Callable[[str], Any]:
    """The module `__getattr__` of the package whose globals are `namespace`. `homes` maps
    each name to its module (relative to the package when it starts with a dot), or to
    ``module:attribute`` for a name the package keeps for an attribute named otherwise there.
    A name once loaded is kept in the package's globals, so it is looked up here only once."""
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = home.partition(":")
        value = getattr(import_module(module, package), attribute or name)
        namespace[name] = value
        return value

    return __getattr__
