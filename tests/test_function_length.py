"""Functions under `src/hookwright` stay short: at most 60 lines from the `def` line to the
last line of the body, the docstring not counted (a docstring explains; it adds no step).
A longer function is split into named steps."""

from __future__ import annotations

import ast
from pathlib import Path

import hookwright

SRC = Path(hookwright.__file__).parent
MAX_LINES = 60

#: Functions allowed past the limit, each as ``"file:name"`` with the reason beside it (none
#: now: keep it that way).
EXEMPT: set[str] = set()


def function_lengths(source: str) -> list[tuple[str, int, int]]:
    """(name, first line, length) of every function and method in `source`, at any depth."""
    lengths = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        assert node.end_lineno is not None
        length = node.end_lineno - node.lineno + 1
        first = node.body[0]
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            assert first.end_lineno is not None
            length -= first.end_lineno - first.lineno + 1
        lengths.append((node.name, node.lineno, length))
    return lengths


def test_no_function_over_the_limit() -> None:
    long = []
    for path in sorted(SRC.rglob("*.py")):
        file = path.relative_to(SRC).as_posix()
        for name, line, length in function_lengths(path.read_text(encoding="utf-8")):
            if length > MAX_LINES and f"{file}:{name}" not in EXEMPT:
                long.append(f"{file}:{line} {name}: {length} lines")
    assert not long, f"functions over {MAX_LINES} lines (split them into named steps): {long}"


def test_exemptions_are_still_needed() -> None:
    """An exempt function that has become short loses its exemption."""
    for entry in EXEMPT:
        file, name = entry.split(":")
        lengths = function_lengths((SRC / file).read_text(encoding="utf-8"))
        assert any(n == name and length > MAX_LINES for n, _, length in lengths), entry


def test_the_count_runs_from_def_to_the_last_line_without_the_docstring() -> None:
    def lines(indent: str, count: int) -> str:
        return "".join(f"{indent}x{i} = {i}\n" for i in range(count))

    source = (
        'def fits(\n    a: int,\n) -> None:\n    """Said\n    twice."""\n'
        + lines("    ", 57)
        + "class C:\n    async def over(self) -> None:\n"
        + lines("        ", 60)
    )
    lengths = {name: length for name, _, length in function_lengths(source)}
    assert lengths == {"fits": 60, "over": 61}
