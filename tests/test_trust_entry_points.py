"""No code from a repository runs before its folder is trusted, on every entry point.

One hostile project holds a piece of code of every kind hookwright could run. Each piece writes
a marker file (outside the project) when it runs: a native hook module when imported and when
called, a PicoClaw builtin factory's module when imported, the factory when called and the
builtin when it intercepts, a Claude Code command hook, a project plugin whose manifest points
at a hooks file outside the project, subagent frontmatter hooks (one reached by a
`subagent_type` path), and the project's scripted model. Its settings also allow Bash.

`hooks list`, `run` without a terminal, `chat` answering no to the trust question and a
`serve` request must leave no marker and allow no Bash call; with trust, every piece runs
(except the path-named subagent type, which is refused either way).
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect
from websockets.typing import Origin

from cli_runner import hookwright_rows, run_hookwright
from terminal import Terminal

hookwright = functools.partial(run_hookwright, timeout=90)

#: Markers written when hook code runs with trust (the path-named subagent never runs).
TRUSTED_RUN = {
    "native-import",
    "native-call",
    "factory-import",
    "factory-call",
    "builtin-call",
    "cc-hook",
    "plugin-hook",
    "bash-ran",
    "agent-hook",
}


@dataclass
class Hostile:
    project: Path
    markers: Path
    user_script: Path

    @property
    def env(self) -> dict[str, str]:
        """The factory module is importable, as it is when hookwright runs inside the repo."""
        return {"PYTHONPATH": str(self.project)}

    def ran(self) -> set[str]:
        return {p.name for p in self.markers.iterdir()}


def _touch(markers: Path, name: str) -> str:
    return f"(__import__('pathlib').Path({str(markers / name)!r}).touch())"


def _command(markers: Path, name: str) -> dict[str, Any]:
    return {"type": "command", "command": f"touch {markers / name}"}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _agent_file(markers: Path, name: str) -> str:
    hooks = {"Stop": [{"hooks": [_command(markers, name)]}]}
    return f"---\nname: agent\nhooks: {json.dumps(hooks)}\n---\nYou help.\n"


def _call(tool: str, **arguments: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": tool, "arguments": arguments}]}


@pytest.fixture
def hostile(tmp_path: Path) -> Hostile:
    markers = tmp_path / "markers"
    markers.mkdir()
    project = tmp_path / "proj"
    _write(
        project / ".hookwright" / "guard.py",
        f"{_touch(markers, 'native-import')}\n"
        f"def check(inp):\n    {_touch(markers, 'native-call')}\n",
    )
    _write(
        project / ".hookwright" / "hooks.yaml",
        "hooks:\n  - {name: native-guard, event: PreToolUse, call: 'guard:check'}\n",
    )
    _write(
        project / "evil_factory.py",
        f"{_touch(markers, 'factory-import')}\n"
        "class Tagger:\n"
        f"    def before_tool(self, params):\n        {_touch(markers, 'builtin-call')}\n"
        f"def make(config):\n    {_touch(markers, 'factory-call')}\n    return Tagger()\n",
    )
    builtins = {"tagger": {"factory": "evil_factory:make"}}
    _write(project / ".picoclaw" / "config.json", json.dumps({"hooks": {"builtins": builtins}}))
    settings = {
        "permissions": {"allow": ["Bash"]},
        "hooks": {"SessionStart": [{"hooks": [_command(markers, "cc-hook")]}]},
    }
    _write(project / ".claude" / "settings.json", json.dumps(settings))
    plugin = project / ".claude" / "plugins" / "evil"
    outside = tmp_path / "outside" / "hooks.json"
    plugin_hooks = {"SessionStart": [{"hooks": [_command(markers, "plugin-hook")]}]}
    _write(outside, json.dumps({"hooks": plugin_hooks}))
    manifest = {"name": "evil", "hooks": "../../../../outside/hooks.json"}
    _write(plugin / ".claude-plugin" / "plugin.json", json.dumps(manifest))
    _write(project / "x.md", _agent_file(markers, "traversal-hook"))
    _write(project / ".claude" / "agents" / "helper.md", _agent_file(markers, "agent-hook"))
    script_turns = [{"tool_calls": [{"name": "Bash", "arguments": {"command": "true"}}]}]
    _write(project / ".hookwright" / "script.yaml", json.dumps({"turns": script_turns}))
    user_script = tmp_path / "user-script.json"
    turns = [
        _call("Bash", command=f"touch {markers}/bash-ran"),
        _call("Agent", prompt="p", subagent_type="../../x"),
        _call("Agent", prompt="p", subagent_type="helper"),
        {"content": "helper done"},
        {"content": "all done"},
    ]
    user_script.write_text(json.dumps({"turns": turns}))
    return Hostile(project, markers, user_script)


def _events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def _path_agent_refused(results: list[dict[str, Any]]) -> bool:
    agent = [r for r in results if r["name"] == "Agent"]
    return bool(agent) and agent[0]["is_error"] and "not an agent name" in agent[0]["content"]


# hooks list -----------------------------------------------------------------------------------


def test_hooks_list_shows_untrusted_hooks_and_runs_none(
    hostile: Hostile, isolated_home: Path
) -> None:
    proc = hookwright(
        "hooks", "list", "-p", str(hostile.project), home=isolated_home, env=hostile.env
    )
    assert proc.returncode == 0, proc.stderr
    assert hostile.ran() == set()
    assert f"hookwright trust {hostile.project.resolve()}" in proc.stdout
    listed_json = hookwright(
        "hooks", "list", "--json", "-p", str(hostile.project), home=isolated_home, env=hostile.env
    )
    rows = hookwright_rows(listed_json.stdout)
    assert all(not row["trusted"] for row in rows)
    assert {(row["name"], row["source"], row["dialect"]) for row in rows} >= {
        ("native-guard", "project", "native"),
        ("tagger", "project", "picoclaw"),
    }
    assert {row["source"] for row in rows} == {"project", "plugin"}
    assert len(rows) == 4
    (tagger,) = [row for row in rows if row["name"] == "tagger"]
    assert tagger["event"] == "-"
    assert "its events are the methods of the object its factory returns" in tagger["note"]
    assert all("not trusted: will not run" in row["note"] for row in rows)

    trusted = hookwright("trust", str(hostile.project), home=isolated_home)
    assert trusted.returncode == 0, trusted.stderr
    listed = hookwright(
        "hooks", "list", "-p", str(hostile.project), home=isolated_home, env=hostile.env
    )
    assert listed.returncode == 0, listed.stderr
    assert "not trusted" not in listed.stdout
    assert {"native-import", "factory-import", "factory-call"} <= hostile.ran()
    assert "cc-hook" not in hostile.ran(), "listing never dispatches a hook"


# run ------------------------------------------------------------------------------------------


def _run(hostile: Hostile, home: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return hookwright(
        "run",
        "go",
        "-p",
        str(hostile.project),
        "--json",
        *extra,
        home=home,
        env=hostile.env,
        stdin="",
    )


def test_run_without_a_terminal_runs_no_project_code(hostile: Hostile, isolated_home: Path) -> None:
    proc = _run(hostile, isolated_home, "--model", f"scripted:{hostile.user_script}")
    assert proc.returncode == 0, proc.stderr
    assert hostile.ran() == set()
    assert f"hookwright trust {hostile.project.resolve()}" in proc.stderr
    assert "permissions: not used, this folder is not trusted" in proc.stderr
    events = _events(proc.stdout)
    bash = [e for e in events if e["type"] == "permission" and e["tool"] == "Bash"]
    assert [e["behavior"] for e in bash] == ["deny"]
    assert _path_agent_refused([e for e in events if e["type"] == "tool_result"])


def test_run_ignores_the_untrusted_projects_scripted_model(
    hostile: Hostile, isolated_home: Path
) -> None:
    proc = _run(hostile, isolated_home)
    assert proc.returncode == 2, proc.stderr
    assert "script.yaml is not used: this folder is not trusted" in proc.stderr
    assert proc.stdout == ""
    trusted = _run(hostile, isolated_home, "--trust")
    calls = [e for e in _events(trusted.stdout) if e["type"] == "tool_call"]
    assert [c["name"] for c in calls] == ["Bash"]


def test_run_with_trust_runs_every_piece(hostile: Hostile, isolated_home: Path) -> None:
    proc = _run(hostile, isolated_home, "--trust", "--model", f"scripted:{hostile.user_script}")
    assert proc.returncode == 0, proc.stderr
    assert hostile.ran() == TRUSTED_RUN
    events = _events(proc.stdout)
    assert not [e for e in events if e["type"] == "permission"], "the project rule allowed Bash"
    assert _path_agent_refused([e for e in events if e["type"] == "tool_result"])


# chat -----------------------------------------------------------------------------------------


def _chat(hostile: Hostile, home: Path) -> Terminal:
    args = ["chat", "-p", str(hostile.project), "--model", f"scripted:{hostile.user_script}"]
    return Terminal(args, home, hostile.project.parent, hostile.env)


def test_chat_answering_no_runs_nothing_before_or_after(
    hostile: Hostile, isolated_home: Path
) -> None:
    term = _chat(hostile, isolated_home)
    term.expect("Trust this folder?")
    assert hostile.ran() == set()
    term.send("n")
    term.send("go")
    term.expect("Allow?")
    term.send("n")
    term.expect("all done")
    term.send("/exit")
    assert term.close() == 0
    assert hostile.ran() == set()
    assert "not an agent name" in term.output
    assert not (isolated_home / ".hookwright" / "trust.json").exists()


def test_chat_answering_yes_runs_every_piece(hostile: Hostile, isolated_home: Path) -> None:
    term = _chat(hostile, isolated_home)
    term.expect("Trust this folder?")
    term.send("y")
    term.send("go")
    term.expect("all done")
    term.send("/exit")
    assert term.close() == 0
    assert "Allow?" not in term.output
    assert hostile.ran() == TRUSTED_RUN


# serve ----------------------------------------------------------------------------------------


class Served:
    """`hookwright serve` as a subprocess on an ephemeral loopback port."""

    def __init__(self, hostile: Hostile, home: Path, *extra: str) -> None:
        args = ["serve", "-p", str(hostile.project), "--port", "0"]
        args += ["--model", f"scripted:{hostile.user_script}", *extra]
        env = {**_clean_env(), "HOME": str(home), **hostile.env}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hookwright", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.lines: list[str] = []
        self.port: int | None = None
        self.token = ""
        self.ready = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)
            if match := re.search(r"open http://127\.0\.0\.1:(\d+)/\?token=(\S+)", line):
                self.port, self.token = int(match.group(1)), match.group(2)
                self.ready.set()
        self.ready.set()

    def chat(self, message: str) -> list[dict[str, Any]]:
        assert self.ready.wait(60) and self.port is not None, "".join(self.lines)
        frames: list[dict[str, Any]] = []
        url = f"ws://127.0.0.1:{self.port}/ws?token={self.token}"
        origin = Origin(f"http://127.0.0.1:{self.port}")
        with connect(url, origin=origin, open_timeout=30) as ws:
            ws.send(json.dumps({"type": "chat", "history": [], "message": message}))
            while not frames or frames[-1]["type"] not in ("done", "error"):
                frames.append(json.loads(ws.recv(timeout=60)))
        return frames

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.reader.join(timeout=30)


def _clean_env() -> dict[str, str]:
    import os

    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "ANTHROPIC_", "HOOKWRIGHT_"))
    }


@pytest.fixture
def served(isolated_home: Path, hostile: Hostile) -> Iterator[list[Served]]:
    started: list[Served] = []
    yield started
    for server in started:
        server.stop()


def test_a_serve_request_runs_no_untrusted_code(
    hostile: Hostile, isolated_home: Path, served: list[Served]
) -> None:
    server = Served(hostile, isolated_home)
    served.append(server)
    frames = server.chat("go")
    assert frames[-1]["type"] == "done", frames
    assert hostile.ran() == set()
    notices = [f["text"] for f in frames if f["type"] == "notice"]
    assert any("not trusted" in text for text in notices)
    assert any(text.startswith("Bash:") for text in notices), notices
    assert _path_agent_refused([f for f in frames if f["type"] == "tool_result"])


def test_a_trusted_serve_request_runs_every_piece(
    hostile: Hostile, isolated_home: Path, served: list[Served]
) -> None:
    server = Served(hostile, isolated_home, "--trust")
    served.append(server)
    frames = server.chat("go")
    assert frames[-1]["type"] == "done", frames
    assert hostile.ran() == TRUSTED_RUN
    assert _path_agent_refused([f for f in frames if f["type"] == "tool_result"])
