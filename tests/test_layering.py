"""The house's one-way import rule, checked over every module of `src/hookwright`.

Each package imports only the packages listed below it (docs/architecture.md, "Layering"):

    cli, server > runtime > bridges > adapters > host > dialects > engine > transports
    > monitor > config > core

`hosts/` (the forwarder at the client's installed path) and `_warm` (the warm server, run as
its own process) stand apart; `wiring.py`, the composition root, stands above them all. The
engine imports only `core`, `config` and the transports' interface (`transports/base.py`).
Imports count at any depth: inside functions and under `TYPE_CHECKING` too.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import hookwright

#: What the kernel may import beyond `core` and `config`: the transports' interface only. The
#: concrete runners and the default monitor a bare `HookEngine()` gets are named once, above
#: every package, by the composition root (`wiring.py`, installed by the package root).
ENGINE_MAY_IMPORT = ("hookwright.core", "hookwright.config", "hookwright.transports.base")

SRC = Path(hookwright.__file__).parent
ORDER = (
    ("cli", "server"),
    ("runtime",),
    ("bridges",),
    ("adapters",),
    ("host",),
    ("dialects",),
    ("engine",),
    ("transports",),
    ("monitor",),
    ("config",),
    ("core",),
)
APART = ("hosts", "_warm")
RANK = {package: rank for rank, level in enumerate(ORDER) for package in level}
TOP_MODULES = {"__init__.py", "__main__.py", "skills.py"}
MAX_PLAIN_MODULES = 3


@functools.cache
def imported_modules(path: Path) -> tuple[str, ...]:
    """`imports_of` a source file, read and parsed once per test process (the tests below
    each walk every module)."""
    return tuple(imports_of(path.read_text(encoding="utf-8"), path.relative_to(SRC).as_posix()))


def imports_of(source: str, file: str) -> list[str]:
    """Every hookwright module an `import` or `from ... import` in `source` names, at any depth
    (functions and `TYPE_CHECKING` blocks too); relative imports resolved as though the source
    were `file` under `src/hookwright`."""
    package = ["hookwright", *Path(file).parent.parts]
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names.append(module)
            if module == "hookwright":
                names.extend(f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
    return [name for name in names if name.startswith("hookwright.")]


def package_of(module: str) -> str:
    return module.split(".")[1]


def modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(SRC.rglob("*.py")):
        yield path.relative_to(SRC).as_posix(), path


def cross_package_imports() -> Iterator[tuple[str, str, str, str]]:
    """(file, its package, imported module, that module's package) for every import that
    crosses from one package of `src/hookwright` to another."""
    for file, path in modules():
        if "/" not in file:
            continue
        own = file.split("/")[0]
        for module in imported_modules(path):
            other = package_of(module)
            if other != own and (SRC / other).is_dir():
                yield file, own, module, other


def test_core_imports_nothing_else_of_hookwright() -> None:
    offending = [(f, m) for f, own, m, _ in cross_package_imports() if own == "core"]
    assert offending == []


def test_the_engine_imports_only_core_config_and_the_transport_interface() -> None:
    offending = [
        (f, m)
        for f, own, m, _ in cross_package_imports()
        if own == "engine" and not m.startswith(ENGINE_MAY_IMPORT)
    ]
    assert offending == []


def test_only_host_open_imports_a_dialect() -> None:
    offending = [
        (f, m)
        for f, own, m, other in cross_package_imports()
        if own == "host" and other == "dialects" and f != "host/open.py"
    ]
    assert offending == []


def test_each_package_imports_only_packages_below_it() -> None:
    offending = [
        (f, m)
        for f, own, m, other in cross_package_imports()
        if own in RANK and other in RANK and RANK[other] <= RANK[own]
        if (own, other) != ("cli", "server")  # one level: `hookwright serve` runs the server
    ]
    assert offending == []


def test_no_package_imports_the_packages_apart() -> None:
    offending = [(f, m) for f, own, m, other in cross_package_imports() if other in APART]
    assert offending == []


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of `graph` (a path whose last node is its first), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def test_no_import_cycle_between_packages() -> None:
    graph: dict[str, set[str]] = {}
    for _, own, _, other in cross_package_imports():
        graph.setdefault(own, set()).add(other)
    assert find_cycle(graph) is None


def test_the_top_of_the_source_holds_packages_and_few_plain_modules() -> None:
    plain = sorted(p.name for p in SRC.glob("*.py") if p.name not in TOP_MODULES)
    packages = {p.name for p in SRC.iterdir() if (p / "__init__.py").is_file()}
    assert len(plain) <= MAX_PLAIN_MODULES, plain
    assert packages <= set(RANK) | set(APART), packages - set(RANK) - set(APART)


#: The reference agent's modules, held to the host rule below.
AGENT_MODULES = (
    "runtime/agent.py",
    "runtime/subagent.py",
    "runtime/tool_step.py",
    "runtime/turn_end.py",
)


def test_the_agent_imports_only_the_host_api_from_the_engine_side() -> None:
    """The reference agent is one host among others: of the engine side it imports only the
    public host API (`hookwright.host`), never the engine, results, dialects or transports."""
    for name in AGENT_MODULES:
        engine_side = imported_modules(SRC / name)
        assert engine_side, f"{name} imports nothing from hookwright?"
        offending = [
            m for m in engine_side if not m.startswith(("hookwright.host", "hookwright.runtime"))
        ]
        assert offending == [], f"{name} imports {offending}"


def test_the_check_sees_imports_inside_functions_and_type_checking() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from hookwright.engine.services import Services\n"
        "def f():\n    from ..host import open\n"
    )
    assert imports_of(source, "core/probe.py") == [
        "hookwright.engine.services",
        "hookwright.host",
    ]


def test_a_cycle_is_found() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}}) is None


#: Where a project's hooks are discovered and bound: the one opening place, and the packages
#: that implement discovery and binding (config, the dialects). Every host, the command line
#: included, goes through the opening place, so its trust and reporting rules hold for all.
OPENING_PLACE = "host/open.py"
OPENING_PACKAGES = ("config", "dialects")
#: The names of discovery and of the trust decision before binding.
OPENING_NAMES = {"discover", "discover_by_dialect", "needing_trust", "binder"}


def opening_steps(source: str) -> list[str]:
    """Each step of opening a project `source` takes itself: a discovery function imported
    or called, or discovered hooks bound (`.bind(policy)`; a socket's `.bind((host, port))`,
    whose one argument is an address tuple, is not)."""
    steps: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("hookwright"):
            steps += [f"import {a.name}" for a in node.names if a.name in OPENING_NAMES]
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            address = len(node.args) == 1 and isinstance(node.args[0], ast.Tuple)
            if name in OPENING_NAMES or (
                isinstance(func, ast.Attribute) and name == "bind" and not address
            ):
                steps.append(f"{name}()")
    return steps


def test_only_the_opening_place_discovers_and_binds_a_project() -> None:
    offending = [
        (file, step)
        for file, path in modules()
        if file != OPENING_PLACE and file.split("/")[0] not in OPENING_PACKAGES
        for step in opening_steps(path.read_text(encoding="utf-8"))
    ]
    assert offending == []


def test_the_opening_check_sees_discovery_and_binding() -> None:
    source = (
        "from hookwright.dialects import discover\n"
        "import hookwright.config.loading as loading\n"
        "def f(ctx, policy, sock):\n"
        "    found = loading.discover_by_dialect(ctx)\n"
        "    sock.bind(('127.0.0.1', 0))\n"
        "    return discover(ctx).bind(policy)\n"
    )
    assert sorted(opening_steps(source)) == [
        "bind()",
        "discover()",
        "discover_by_dialect()",
        "import discover",
    ]
    assert opening_steps((SRC / OPENING_PLACE).read_text(encoding="utf-8")), "the place itself"
