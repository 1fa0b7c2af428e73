"""`hookwright hooks test` through the fast path (`hookwright.cli.quick`, no typer) prints what
the typer command prints, byte for byte, and loads no more than the project needs.

The comparison forks most runs of each entry point from a server of its own that has run the
entry point's import with the runs' environment (`warm_cli.warm_entry`), as a spawned
`python -c "ENTRY; main()"` runs it before calling `main`; one run of each is spawned."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from hookwright.bridges import quick_deferred
from hookwright.cli import hooks_test, project, quick
from hookwright.cli.hooks_test import HooksTest, run
from hookwright.config import code_cache
from hookwright.config.loading import LoadResult
from hookwright.core.events import Event
from hookwright.engine.kernel import HookEngine
from warm_cli import WarmCli, warm_entry

PY = sys.executable
#: The two entry points: the console script's (fast path first) and the typer command line's.
FAST = "from hookwright.cli import main"
FULL = "from hookwright.cli.app import main"


def entry_env(home: Path, pythonpath: str) -> dict[str, str]:
    """The environment of every run of the command line here."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HOOKWRIGHT_", "OTEL_"))}
    env.update(HOME=str(home), COLUMNS="200", PYTHONPATH=pythonpath)
    return env


def hookwright(
    entry: str,
    args: list[str],
    home: Path,
    stdin: str = "",
    pythonpath: str = "",
    warm: WarmCli | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """`python -c "import sys; sys.argv = [...]; ENTRY; main()"` in this folder: forked from
    `warm` (the entry point's server) when it serves the run's environment, else spawned."""
    env = entry_env(home, pythonpath)
    if warm is not None and warm.serves(env):
        return warm.run(args, env, None, stdin.encode(), 120)
    code = f"import sys; sys.argv = ['hookwright', *{args!r}]; {entry}; main()"
    return subprocess.run(
        [PY, "-c", code], input=stdin.encode(), capture_output=True, env=env, timeout=120
    )


def script(path: Path, body: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    return f'"{PY}" "{path}"'


def claude_code(project: Path) -> None:
    context = script(
        project / "hooks" / "context.py",
        "import json, sys\n"
        "data = json.load(sys.stdin)\n"
        "seen = 'claude saw ' + str(data.get('tool_name'))\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
        "    'additionalContext': seen}}))\n",
    )
    block = script(project / "hooks" / "stop.py", "import sys\nprint('not yet', file=sys.stderr)\n")
    settings = {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": context}]}],
            "Stop": [{"hooks": [{"type": "command", "command": block + "; exit 2"}]}],
        }
    }
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))


def native(project: Path) -> None:
    folder = project / ".hookwright"
    folder.mkdir(parents=True)
    (folder / "native_guard.py").write_text(
        "from hookwright import add_context\n"
        "def check(inp):\n"
        "    return add_context('native saw ' + str(inp.payload.get('tool_name')))\n"
    )
    hook = {"name": "guard", "event": "PreToolUse", "call": "native_guard:check"}
    (folder / "hooks.yaml").write_text(json.dumps({"hooks": [hook]}))


def openharness(project: Path) -> None:
    command = script(
        project / ".openharness" / "hooks" / "scripts" / "gate.py",
        "import sys\nsys.stdin.read()\nprint('openharness blocks', file=sys.stderr)\nsys.exit(2)\n",
    )
    (project / ".openharness" / "hooks" / "gate.yaml").write_text(
        json.dumps(
            {
                "name": "gate",
                "events": ["before_tool_dispatch"],
                "matcher": "Write",
                "handler": {"type": "command", "command": command},
            }
        )
    )


def picoclaw(project: Path) -> None:
    (project / "lib").mkdir(exist_ok=True)
    (project / "lib" / "pico_guard.py").write_text(
        "class Guard:\n"
        "    def before_tool(self, params):\n"
        "        return None\n"
        "def make(config):\n"
        "    return Guard()\n"
    )
    hooks = {"builtins": {"guard": {"factory": "pico_guard:make"}}}
    (project / ".picoclaw").mkdir()
    (project / ".picoclaw" / "config.json").write_text(json.dumps({"hooks": hooks}))


def broken(project: Path) -> None:
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text('{"hooks": {"PreToolUse": 3}}')


LAYOUTS = {
    "empty": [],
    "claude_code": [claude_code],
    "every dialect": [claude_code, native, openharness, picoclaw],
    "broken settings": [broken],
}
BASH = json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}, "session_id": "s1"})
WRITE = json.dumps({"tool_name": "Write", "tool_input": {"file_path": "a"}, "session_id": "s1"})


def invocations(project: Path, tmp: Path, errors: bool) -> list[tuple[list[str], str]]:
    """(arguments, stdin) of each `hooks test` run of the matrix; `errors` adds the user
    errors."""
    (tmp / "bash.json").write_text(BASH)
    (tmp / "bad.json").write_text("{not json")
    extra = tmp / "extra.json"
    extra.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [{"type": "command"}]}]}}))
    p = str(project)
    runs = [
        (["hooks", "test", "PreToolUse", "--project", p], ""),
        (["hooks", "test", "PreToolUse", "--project", p, "--input", str(tmp / "bash.json")], ""),
        (["hooks", "test", "before_tool", "-p", p, "-i", "-"], WRITE),
        (["hooks", "test", "PreToolUse", "-i", "-", "-p", p], BASH),
        (["hooks", "test", "Stop", "-p", p], ""),
        (["hooks", "test", "PreToolUse", "-p", p, "-c", str(extra), "-i", "-"], BASH),
    ]
    if not errors:
        return runs
    return [
        *runs,
        (["hooks", "test", "NoSuchEvent", "-p", p], ""),
        (["hooks", "test", "PreToolUse", "-p", p, "-i", str(tmp / "bad.json")], ""),
        (["hooks", "test", "PreToolUse", "-p", p, "-i", "-"], "[1, 2]"),
        (["hooks", "test", "PreToolUse", "-p", str(tmp / "missing")], ""),
        (["hooks", "test", "PreToolUse", "-p", p, "-c", str(tmp / "missing.json")], ""),
    ]


def comparable(done: subprocess.CompletedProcess[bytes]) -> tuple[int, bytes, bytes]:
    """Exit code, stdout and stderr; hook run times (`duration_ms`) are the one varying part."""
    stdout = re.sub(rb'"duration_ms": [0-9.e-]+', b'"duration_ms": 0', done.stdout)
    return done.returncode, stdout, done.stderr


#: The layout whose first run of each entry point is spawned (the others are forked).
SPAWNED = "every dialect"


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_fast_path_prints_what_the_typer_command_prints(
    layout: str, tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for build in LAYOUTS[layout]:
        build(project)
    pythonpath = str(project / "lib")
    env = entry_env(isolated_home, pythonpath)
    runs = invocations(project, tmp_path, errors=layout == "every dialect")
    with warm_entry(FAST, env) as fast_cli, warm_entry(FULL, env) as full_cli:
        for number, (args, stdin) in enumerate(runs):
            assert quick.parse(args) is not None, args
            spawn = layout == SPAWNED and number == 0
            warm = (None, None) if spawn else (fast_cli, full_cli)
            with ThreadPoolExecutor(2) as both:
                fast_run = both.submit(
                    hookwright, FAST, args, isolated_home, stdin, pythonpath, warm[0]
                )
                full = hookwright(FULL, args, isolated_home, stdin, pythonpath, warm[1])
                fast = fast_run.result()
            assert comparable(fast) == comparable(full), (layout, args)
            assert b"Traceback" not in fast.stderr, (layout, args, fast.stderr)


def test_the_matrix_exercises_every_dialect_and_both_outcomes(
    tmp_path: Path, isolated_home: Path
) -> None:
    """The layouts above really run hooks of each dialect (so the comparison means something)."""
    project = tmp_path / "project"
    project.mkdir()
    for build in LAYOUTS["every dialect"]:
        build(project)
    args = ["hooks", "test", "PreToolUse", "-p", str(project), "-i", "-"]
    done = hookwright(FAST, args, isolated_home, BASH, str(project / "lib"))
    verdict = json.loads(done.stdout)
    assert done.returncode == 0, done.stderr
    assert [hook["dialect"] for hook in verdict["hooks"]] == ["claude_code", "picoclaw", "native"]
    assert verdict["additional_context"] == ["claude saw Bash", "native saw Bash"]
    write = json.loads(hookwright(FAST, args, isolated_home, WRITE, str(project / "lib")).stdout)
    assert write["hooks"][-1]["dialect"] == "openharness" and write["decision"] == "deny"
    assert "openharness blocks" in write["reason"]


@pytest.mark.parametrize(
    "args",
    [
        ["hooks", "test", "PreToolUse", "--explain"],
        ["hooks", "test", "PreToolUse", "--help"],
        ["hooks", "test", "PreToolUse", "--project=."],
        ["hooks", "test", "PreToolUse", "-p"],
        ["hooks", "test", "PreToolUse", "-p", ".", "-p", "."],
        ["hooks", "test", "PreToolUse", "-p", "--input"],
        ["hooks", "test", "PreToolUse", "-i", "-x"],
        ["hooks", "test", "PreToolUse", "Stop"],
        ["hooks", "test"],
        ["hooks", "test", "--", "PreToolUse"],
        ["hooks", "test", "PreToolUse", "--from-transcript", "t.jsonl"],
        ["--debug", "hooks", "test", "PreToolUse"],
        ["hooks", "list"],
    ],
)
def test_anything_unusual_goes_to_the_typer_command(args: list[str]) -> None:
    assert quick.parse(args) is None


def test_a_project_that_is_a_file_goes_to_the_typer_command(tmp_path: Path) -> None:
    """typer refuses it with its own usage error."""
    (tmp_path / "file").write_text("")
    assert quick.parse(["hooks", "test", "Stop", "-p", str(tmp_path / "file")]) is None
    assert quick.parse(["hooks", "test", "Stop", "-p", str(tmp_path)]) is not None


def test_shell_completion_goes_to_the_typer_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_HOOKWRIGHT_COMPLETE", "bash_complete")
    assert quick.parse(["hooks", "test", "Stop"]) is None


@pytest.mark.parametrize(
    "args",
    [
        ["hook", "claude-code", "--help"],
        ["hook", "claude-code", "--project"],
        ["hook", "claude-code", "--project=."],
        ["hook", "claude-code", "-p", "-x"],
        ["hook", "claude-code", "-p", ""],
        ["hook", "claude-code", "-p", ".", "-p", "."],
        ["hook", "claude-code", "extra"],
        ["--debug", "hook", "claude-code"],
        ["hook", "codex"],
    ],
)
def test_an_unusual_claude_hook_goes_to_the_typer_command(args: list[str]) -> None:
    assert quick.parse_claude_hook(args) is None


def test_a_plain_claude_hook_is_read_as_typer_reads_it(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    assert quick.parse_claude_hook(["hook", "claude-code", "-p", str(tmp_path / "file")]) is None
    assert quick.parse_claude_hook(["hook", "claude-code"]) == quick.ClaudeHook(None)
    for flag in ("-p", "--project"):
        parsed = quick.parse_claude_hook(["hook", "claude-code", flag, str(tmp_path)])
        assert parsed == quick.ClaudeHook(tmp_path)


def test_a_bad_claude_hook_input_fails_as_the_typer_command_does(isolated_home: Path) -> None:
    fast = hookwright(FAST, ["hook", "claude-code"], isolated_home, stdin="not json")
    full = hookwright(FULL, ["hook", "claude-code"], isolated_home, stdin="not json")
    assert (fast.returncode, fast.stdout) == (full.returncode, full.stdout)
    assert fast.stderr == full.stderr
    assert fast.returncode == 1 and fast.stderr.startswith(b"hookwright: error: stdin is not")


def loaded_modules(tmp_path: Path, home: Path, project: Path) -> set[str]:
    listing = tmp_path / "modules.json"
    code = (
        "import json, sys\n"
        f"sys.argv = ['hookwright', 'hooks', 'test', 'PreToolUse', '-p', {str(project)!r}]\n"
        "from hookwright.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"open({str(listing)!r}, 'w').write(json.dumps(sorted(sys.modules)))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKWRIGHT_")}
    done = subprocess.run(
        [PY, "-c", code], env={**env, "HOME": str(home)}, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    names = json.loads(listing.read_text())
    return {*names, *(name.split(".")[0] for name in names)}


FRAMEWORK = {"typer", "click", "rich"}


def test_an_empty_project_loads_neither_the_framework_nor_the_engine(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    modules = loaded_modules(tmp_path, isolated_home, project)
    unwanted = FRAMEWORK | {"pydantic", "httpx", "yaml", "asyncio", "hookwright.engine.kernel"}
    assert not modules & unwanted


def test_a_project_with_hooks_loads_its_dialect_but_not_the_framework(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    claude_code(project)
    modules = loaded_modules(tmp_path, isolated_home, project)
    assert "hookwright.dialects.claude_code.loader" in modules
    assert not modules & (FRAMEWORK | {"httpx", "hookwright.dialects.picoclaw.loader"})


#: What the command line's start never runs (`bridges.lean_start`): the code of `inspect` and
#: what it imports (`dataclasses` imports it) and of `ipaddress` (`urllib.parse` does), both
#: deferred, and OpenSSL (the code cache's file is named with the interpreter's own SHA-256).
NOT_AT_START = {"inspect", "ast", "dis", "tokenize", "ipaddress", "hashlib", "_hashlib"}


def started(tmp_path: Path, home: Path, project: Path) -> dict[str, Any]:
    """`hooks test` on `project` through the console script's code: the modules whose code ran,
    those deferred and never run, and the garbage collector's state when it is done."""
    listing = tmp_path / "started.json"
    code = (
        "import gc, json, sys\n"
        f"sys.argv = ['hookwright', 'hooks', 'test', 'PreToolUse', '-p', {str(project)!r}]\n"
        "from hookwright.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "kinds = {name: type(module).__name__ for name, module in sys.modules.items()}\n"
        f"open({str(listing)!r}, 'w').write(json.dumps({{\n"
        "    'ran': sorted(name for name, kind in kinds.items() if kind != '_Deferred'),\n"
        "    'deferred': sorted(name for name, kind in kinds.items() if kind == '_Deferred'),\n"
        "    'gc': gc.isenabled(), 'frozen': gc.get_freeze_count()}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKWRIGHT_")}
    done = subprocess.run(
        [PY, "-c", code], env={**env, "HOME": str(home)}, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hooks"] == []
    started: dict[str, Any] = json.loads(listing.read_text())
    return started


def test_the_start_defers_inspect_and_compiles_no_record_class_twice(
    tmp_path: Path, isolated_home: Path
) -> None:
    """The command line's start loads as a one-event process does: `inspect` and `ipaddress`
    imported but never run, no OpenSSL, the collector on again with what loaded frozen, and
    the record classes' code compiled once, by the first start, into the user's private
    cache; the next start finds all of it there."""
    project = tmp_path / "project"
    project.mkdir()
    cache = code_cache.cache_file(isolated_home)
    for start in ("first", "again"):
        seen = started(tmp_path, isolated_home, project)
        assert not NOT_AT_START & set(seen["ran"]), sorted(NOT_AT_START & set(seen["ran"]))
        assert seen["deferred"] == sorted(quick_deferred.UNREAD)
        assert seen["gc"] and seen["frozen"] > 0
        assert stat.S_IMODE(cache.stat().st_mode) == 0o600
        if start == "first":
            written = cache.stat().st_mtime_ns
    assert cache.stat().st_mtime_ns == written  # nothing was left to compile and keep


@pytest.mark.parametrize("event", list(Event))
def test_without_hooks_the_answer_is_the_engines_empty_verdict(
    event: Event,
    tmp_path: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With no hook bound no engine is built; an engine dispatching to no hook (forced here by a
    setting it reads) answers the same."""
    built: list[HookEngine] = []

    def engine_for(result: LoadResult) -> HookEngine:
        built.append(project.engine_for(result))
        return built[-1]

    monkeypatch.setattr(hooks_test, "engine_for", engine_for)
    args = HooksTest(event.value, project=tmp_path)
    assert run(args) == 0
    without_engine = capsys.readouterr()
    assert not built
    monkeypatch.setenv("HOOKWRIGHT_AUDIT_KEEP", "5")
    monkeypatch.setenv("HOOKWRIGHT_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    assert run(args) == 0
    with_engine = capsys.readouterr()
    assert len(built) == 1
    assert (without_engine.out, without_engine.err) == (with_engine.out, with_engine.err)
    assert json.loads(with_engine.out)["event"] == event.value
    assert not (tmp_path / "audit.jsonl").exists()
