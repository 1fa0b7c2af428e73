"""`quick_deferred`: a deferred module runs its code once, at the first read of a name it does
not hold, in the object every importer holds; a second thread waits for the whole module; a
read from its own code while it runs fails as an unfinished import fails. Each case in a
process of its own (the deferral changes `sys.modules`)."""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from hookwright.bridges import quick_deferred
from hookwright.core.spec import PythonHandler

SLOW_MODULE = """\
import time
with open({runs!r}, "a") as out:
    out.write("run\\n")
FIRST = 1
time.sleep(0.3)
LAST = 2
"""


def run_script(tmp_path: Path, script: str) -> str:
    root = Path(quick_deferred.__file__).parents[2]
    done = subprocess.run(
        [sys.executable, "-I", "-c", textwrap.dedent(script), str(root), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


PRELUDE = """\
import sys
sys.path[0:0] = [sys.argv[1], sys.argv[2]]
from hookwright.bridges.quick_deferred import deferred
"""


def test_the_code_runs_once_at_the_first_read_and_a_second_thread_waits(tmp_path: Path) -> None:
    runs = tmp_path / "runs.txt"
    (tmp_path / "slowmod.py").write_text(SLOW_MODULE.format(runs=str(runs)))
    out = run_script(
        tmp_path,
        PRELUDE
        + """\
import threading
assert deferred("slowmod")
import slowmod
print("before", "FIRST" in vars(slowmod))
seen = []
threads = [threading.Thread(target=lambda: seen.append(slowmod.LAST)) for _ in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print("seen", seen, type(slowmod) is type(sys), sys.modules["slowmod"] is slowmod)
""",
    )
    assert out.split("\n")[:2] == ["before False", "seen [2, 2, 2, 2] True True"]
    assert runs.read_text() == "run\n"


def test_a_read_from_its_own_code_while_it_runs_fails_as_an_unfinished_import(
    tmp_path: Path,
) -> None:
    (tmp_path / "cyclic.py").write_text("import cyclic\nVALUE = getattr(cyclic, 'VALUE', 'no')\n")
    out = run_script(
        tmp_path,
        PRELUDE
        + """\
assert deferred("cyclic")
import cyclic
print(cyclic.VALUE)
""",
    )
    assert out == "no\n"


def test_only_a_module_from_a_file_not_yet_imported_is_deferred(
    tmp_path: Path,
) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    out = run_script(
        tmp_path,
        PRELUDE
        + """\
import json
print(deferred("json"), deferred("os.path"), deferred("sys"), deferred("pkg"),
      deferred("no_such_module_here"), "pkg" in sys.modules)
""",
    )
    assert out == "False False False False False False\n"


async def _async_hook(inp: object) -> None:
    return None


def _state_hook(inp: object, *, state: object) -> None:
    return None


def _positional_state(inp: object, state: object = None) -> None:
    return None


def _after_args(inp: object, *args: object, state: object = None, **kwargs: object) -> None:
    return None


def _positional_only(inp: object, /, *, other: object = None) -> None:
    return None


@pytest.mark.parametrize(
    "func", [_async_hook, _state_hook, _positional_state, _after_args, _positional_only]
)
def test_a_plain_function_hook_is_read_from_its_code_as_inspect_reads_it(
    func: Callable[..., object],
) -> None:
    """The answer reads a plain function's coroutine flag and `state` parameter from its code
    (`inspect` stays unrun); the same answers as `inspect` gives."""
    handler = PythonHandler(func)
    parameter = inspect.signature(func).parameters.get("state")
    wants_state = parameter is not None and parameter.kind is inspect.Parameter.KEYWORD_ONLY
    assert (handler.is_async, handler.wants_state) == (
        inspect.iscoroutinefunction(func),
        wants_state,
    )


def test_a_submodule_is_deferred_as_its_package_attribute(tmp_path: Path) -> None:
    """A submodule is placed in `sys.modules` and on its package (imported for it), its code
    not run; `from package.sub import name` runs it and gets the name."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "sub.py").write_text("VALUE = 'ran'\n")
    out = run_script(
        tmp_path,
        PRELUDE
        + """\
print(deferred("pkg.sub"), "pkg" in sys.modules, "VALUE" in vars(sys.modules["pkg.sub"]))
import pkg.sub
print(pkg.sub is sys.modules["pkg.sub"], "VALUE" in vars(pkg.sub))
from pkg.sub import VALUE
print(VALUE, type(pkg.sub) is type(sys))
""",
    )
    assert out == "True True False\nTrue False\nran True\n"


def test_pathlib_loads_without_running_urllib_parse_and_still_makes_uris(
    tmp_path: Path,
) -> None:
    """`import_pathlib`: `pathlib` binds `quote_from_bytes` from the deferred `urllib.parse`
    without running it; `Path.as_uri` runs it, and every later reader of the name gets the
    module's own function."""
    out = run_script(
        tmp_path,
        PRELUDE
        + """\
from hookwright.bridges.quick_deferred import import_pathlib
assert "pathlib" not in sys.modules and "urllib.parse" not in sys.modules
assert deferred("urllib.parse")
import_pathlib()
parse = sys.modules["urllib.parse"]
print("pathlib" in sys.modules, type(parse) is type(sys), "quote_from_bytes" in vars(parse))
import pathlib
print(pathlib.Path("/a b/c%").as_uri(), type(parse) is type(sys))
from urllib.parse import quote_from_bytes, urlsplit
print(quote_from_bytes.__module__, urlsplit("http://[::1]:80/x").hostname)
""",
    )
    assert out == "True False False\nfile:///a%20b/c%25 True\nurllib.parse ::1\n"
