"""The reference agent is one host among others: from the engine side it imports only the public
host API (`hookwright.host`), never the engine, results, dialects or transports directly."""

from __future__ import annotations

import ast
from pathlib import Path

import hookwright

RUNTIME = Path(hookwright.__file__).parent / "runtime"
AGENT_MODULES = ("agent.py", "subagent.py")
ALLOWED_PREFIXES = ("hookwright.host", "hookwright.runtime")


def imported_modules(path: Path) -> list[str]:
    """Every module an `import` or `from ... import` names, at any depth (functions too)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
    return names


def test_the_agent_imports_only_the_host_api_from_the_engine_side() -> None:
    for name in AGENT_MODULES:
        engine_side = [m for m in imported_modules(RUNTIME / name) if m.startswith("hookwright")]
        assert engine_side, f"{name} imports nothing from hookwright?"
        offending = [m for m in engine_side if not m.startswith(ALLOWED_PREFIXES)]
        assert offending == [], f"runtime/{name} imports {offending}"


def test_the_check_sees_imports_inside_functions(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from hookwright.engine import HookEngine\n", encoding="utf-8")
    assert imported_modules(module) == ["hookwright.engine"]
