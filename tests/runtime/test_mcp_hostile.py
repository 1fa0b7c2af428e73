"""Hostile MCP servers against the real client: `hookwright run` with a real HTTP model server
and a stdio server (`hostile_mcp_server.py`) that misbehaves on purpose.

What is checked is what happened: the tool result the model received (the request the model
server got after the call), the command's stderr, the server's log file, the peak memory of
the `hookwright run` process, and that neither the server nor the child it started is still
running afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claude_pin import MEASURED_ON, PIN_ENV
from cli_runner import run_cli
from hookwright.runtime.mcp.client import McpServers
from hookwright.runtime.mcp.config import ServerConfig
from hookwright.runtime.mcp.stdio import KEEP_BYTES, LineSplitter, Overlong
from procs import running

from .fake_llm_server import FakeLLMServer, FakeReply, FakeToolCall
from .hostile_mcp_server import INPUT_ENDED

SERVER = Path(__file__).with_name("hostile_mcp_server.py")
WAIT = 120
MIB = 1024 * 1024
MAX_MESSAGE = 16 * MIB
# What `hookwright run` may use on top of its usual size while a server attacks it.
MEMORY_BOUND_MIB = 200
MEASURE = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:]).returncode\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024\n"
    "sys.stderr.write(f'\\npeak-rss-mib {peak}\\n')\n"
    "sys.exit(code)\n"
)

#: Runs `hookwright ARGS` in an environment: (args, environment) -> what it did.
Launch = Callable[[list[str], dict[str, str]], subprocess.CompletedProcess[str]]


@dataclass
class Outcome:
    proc: subprocess.CompletedProcess[str]
    requests: list[Any]
    log: Path
    pids: list[int]

    @property
    def peak_rss_mib(self) -> int:
        return int(self.proc.stderr.rsplit("peak-rss-mib ", 1)[1].split()[0])

    @property
    def stderr(self) -> str:
        return self.proc.stderr.rsplit("\npeak-rss-mib ", 1)[0]

    def tool_result(self, index: int = 1) -> dict[str, Any]:
        """The tool result block the model got in its request number ``index``."""
        blocks = [
            block
            for message in self.requests[index].body["messages"]
            if isinstance(message["content"], list)
            for block in message["content"]
            if block.get("type") == "tool_result"
        ]
        return blocks[-1]

    def text(self, index: int = 1) -> str:
        content = self.tool_result(index)["content"]
        if isinstance(content, str):
            return content
        return "\n".join(block["text"] for block in content)


def run(
    tmp_path: Path,
    home: Path,
    model: FakeLLMServer,
    mode: str,
    *replies: FakeReply,
    env: dict[str, str] | None = None,
    project_settings: dict[str, Any] | None = None,
    measure: bool = False,
    launch: Launch | None = None,
) -> Outcome:
    """`hookwright run` on a project whose only MCP server is `evil`, the hostile server;
    `measure`: spawned under a parent that reports its peak memory (`Outcome.peak_rss_mib`),
    else run by `launch`, else forked from the tests' warm command line
    (`cli_runner.run_cli`)."""
    project = tmp_path / "project"
    project.mkdir(parents=True)
    if project_settings is not None:
        (project / ".claude").mkdir()
        (project / ".claude" / "settings.json").write_text(json.dumps(project_settings))
    config = tmp_path / "mcp.json"
    entry = {"command": sys.executable, "args": [str(SERVER), mode]}
    config.write_text(json.dumps({"mcpServers": {"evil": entry}}))
    pids = tmp_path / "pids"
    earlier = len(model.requests_for("anthropic"))
    model.queue_anthropic(*replies)
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    args = ["run", "go", "--project", str(project)]
    args += ["--model", "anthropic:claude-test", "--permission-mode", "bypassPermissions"]
    args += ["--mcp-config", str(config), "--trust"]
    environment = {
        **clean,
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": model.anthropic_base_url,
        "ANTHROPIC_API_KEY": "sk-ant-t",
        "HOSTILE_PIDS": str(pids),
        **(env or {}),
    }
    launch = measured if measure else launch or forked
    try:
        proc = launch(args, environment)
    except subprocess.TimeoutExpired:
        end_server(pids)
        raise
    started = [int(pid) for pid in pids.read_text().split()] if pids.exists() else []
    log = home / ".hookwright" / "logs" / "mcp-evil.log"
    return Outcome(proc, model.requests_for("anthropic")[earlier:], log, started)


def forked(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run_cli(args, env, timeout=WAIT)


def interrupted_when_stopping(log: Path) -> Launch:
    """Spawns `python -m hookwright ARGS` and sends it SIGINT (Ctrl-C) once the server's log
    `log` says the server's input ended: the run is then stopping the server."""

    def launch(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "hookwright", *args]
        with spawned(command, env) as child:
            deadline = time.monotonic() + WAIT
            while INPUT_ENDED not in (log.read_text() if log.exists() else ""):
                assert child.poll() is None, "the run ended before it stopped the server"
                assert time.monotonic() < deadline, "the run never stopped the server"
                time.sleep(0.05)
            child.send_signal(signal.SIGINT)
            stdout, stderr = child.communicate(timeout=WAIT)
        return subprocess.CompletedProcess(command, child.returncode, stdout, stderr)

    return launch


@contextlib.contextmanager
def spawned(command: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    """`command` in a session of its own, killed with its process group on any failure."""
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    ) as child:
        try:
            yield child
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
            raise


def measured(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`python -m hookwright ARGS` spawned under `MEASURE`; killed with its process group
    when it does not end within `WAIT` seconds."""
    command = [sys.executable, "-c", MEASURE, sys.executable, "-m", "hookwright", *args]
    with spawned(command, env) as child:
        stdout, stderr = child.communicate(timeout=WAIT)
    return subprocess.CompletedProcess(command, child.returncode, stdout, stderr)


def end_server(pids: Path) -> None:
    """After a hang: end the hostile server's process group."""
    for pid in pids.read_text().split()[:1] if pids.exists() else []:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(int(pid), signal.SIGKILL)


def assert_clean(outcome: Outcome) -> None:
    """The run ended well, said nothing unexpected, and left no process of the server."""
    assert outcome.proc.returncode == 0, outcome.stderr
    assert "Traceback" not in outcome.stderr, outcome.stderr
    assert len(outcome.pids) == 2, "the server did not start its child"
    assert kill_left(outcome.pids) == [], "the server or its child is still running"


def kill_left(pids: list[int]) -> list[int]:
    """Which of `pids` still run; they are killed, so that a failing test leaves nothing."""
    left = [pid for pid in pids if running(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


def calls_dump(times: int = 1) -> list[FakeReply]:
    """The model calls `dump` ``times`` times, then answers."""
    calls = [
        FakeReply(tool_calls=[FakeToolCall("mcp__evil__dump", "{}", id=f"toolu_{n}")])
        for n in range(times)
    ]
    return [*calls, FakeReply("done")]


@pytest.fixture(scope="module")
def control_peak_mib(tmp_path_factory: pytest.TempPathFactory) -> int:
    """The peak memory of a run against a well-behaved server, the baseline the memory bounds
    are measured from: run once for the module, with the environment a test has
    (tests/conftest.py `isolated_home`), on its own model server and home."""
    root = tmp_path_factory.mktemp("control")
    (root / "home").mkdir()
    with FakeLLMServer() as model, pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOOKWRIGHT_DAEMON_WORKERS", "1")
        patch.setenv(PIN_ENV, MEASURED_ON)
        patch.delenv("HOOKWRIGHT_AUDIT_LOG", raising=False)
        control = run(root, root / "home", model, "well", *calls_dump(), measure=True)
    assert_clean(control)
    return control.peak_rss_mib


def test_control_a_well_behaved_server_answers(
    tmp_path: Path, isolated_home: Path, server: FakeLLMServer
) -> None:
    outcome = run(tmp_path, isolated_home, server, "well", *calls_dump())
    assert_clean(outcome)
    assert outcome.text() == "ok"


def test_a_huge_result_is_cut_with_a_note_and_memory_stays_bounded(
    tmp_path: Path, isolated_home: Path, server: FakeLLMServer, control_peak_mib: int
) -> None:
    outcome = run(tmp_path, isolated_home, server, "huge", *calls_dump(), measure=True)
    assert_clean(outcome)
    text = outcome.text()
    note = (
        f"[hookwright: the MCP server's answer was over {MAX_MESSAGE} bytes, the limit for one "
        "message; only its first 100000 characters are shown]"
    )
    assert text == "A" * 100_000 + "\n" + note
    assert outcome.tool_result().get("is_error") is not True
    assert outcome.peak_rss_mib - control_peak_mib < MEMORY_BOUND_MIB


def test_a_large_result_is_cut_to_the_output_limit(
    tmp_path: Path, isolated_home: Path, server: FakeLLMServer
) -> None:
    outcome = run(
        tmp_path,
        isolated_home,
        server,
        "large",
        *calls_dump(),
        env={"MAX_MCP_OUTPUT_TOKENS": "500"},
    )
    assert_clean(outcome)
    note = (
        f"[hookwright: the MCP tool's answer was {MIB} characters; only the first 2000 are "
        "shown (MAX_MCP_OUTPUT_TOKENS)]"
    )
    assert outcome.text() == "A" * 2000 + "\n" + note


def test_an_endless_result_ends_at_the_message_limit_not_at_the_timeout(
    tmp_path: Path, isolated_home: Path, server: FakeLLMServer, control_peak_mib: int
) -> None:
    outcome = run(
        tmp_path,
        isolated_home,
        server,
        "endless",
        *calls_dump(),
        env={"MCP_TOOL_TIMEOUT": str(10 * WAIT * 1000)},
        measure=True,
    )
    assert_clean(outcome)
    assert outcome.text().startswith("A" * 100_000 + "\n[hookwright: the MCP server's answer")
    assert outcome.peak_rss_mib - control_peak_mib < MEMORY_BOUND_MIB


def test_a_server_that_never_answers_times_out_naming_server_and_tool(
    tmp_path: Path, isolated_home: Path, server: FakeLLMServer
) -> None:
    outcome = run(
        tmp_path,
        isolated_home,
        server,
        "silent",
        *calls_dump(2),
        env={"MCP_TOOL_TIMEOUT": "1500"},
    )
    assert_clean(outcome)
    expected = "Error: MCP server 'evil': tool 'dump': no answer within 1.5 s"
    assert outcome.text(1) == expected
    assert outcome.tool_result(1)["is_error"] is True
    # The agent goes on: the next call is made and times out the same way.
    assert outcome.text(2) == expected
    assert outcome.requests[-1].body["messages"][-1]["role"] == "user"


def test_a_handshake_that_is_never_answered_is_one_line_naming_the_server(
    tmp_path: Path, isolated_home: Path, server: FakeLLMServer
) -> None:
    outcome = run(
        tmp_path,
        isolated_home,
        server,
        "mute-handshake",
        FakeReply("no tools then"),
        env={"MCP_TIMEOUT": "1500"},
    )
    assert_clean(outcome)
    assert outcome.stderr.strip() == (
        f"error: MCP server 'evil' ({tmp_path / 'mcp.json'}) failed to start: "
        "no answer within 1.5 s"
    )
    tools = [tool["name"] for tool in outcome.requests[0].body.get("tools", [])]
    assert not any(name.startswith("mcp__evil") for name in tools)


@pytest.mark.parametrize("mode", ["exit", "exit-held"])
def test_a_server_that_exits_mid_call_is_an_error_and_the_agent_goes_on(
    tmp_path: Path, isolated_home: Path, server: FakeLLMServer, mode: str
) -> None:
    outcome = run(tmp_path, isolated_home, server, mode, *calls_dump(2))
    assert_clean(outcome)
    expected = "Error: MCP server 'evil': tool 'dump': the server exited (code 3)"
    assert outcome.text(1) == expected
    assert outcome.tool_result(1)["is_error"] is True
    assert outcome.text(2) == expected
    assert len(outcome.requests) == 3


def test_garbage_on_stdout_is_skipped_and_logged_within_bounds(
    tmp_path: Path, isolated_home: Path, server: FakeLLMServer
) -> None:
    outcome = run(tmp_path, isolated_home, server, "garbage", *calls_dump())
    assert_clean(outcome)
    assert outcome.text() == "ok"
    assert outcome.stderr == "", outcome.stderr
    log = outcome.log.read_text()
    assert log.startswith("hookwright: skipped a stdout line that is not JSON-RPC: garbage line 0")
    assert outcome.log.stat().st_size < MIB + 200
    assert log.endswith("[hookwright: over 1048576 bytes; the rest is dropped]\n")


def test_a_stderr_flood_is_logged_within_bounds(
    tmp_path: Path, isolated_home: Path, server: FakeLLMServer
) -> None:
    outcome = run(tmp_path, isolated_home, server, "stderr", *calls_dump())
    assert_clean(outcome)
    assert outcome.text() == "ok"
    assert outcome.stderr == ""
    assert outcome.log.stat().st_size < MIB + 200
    assert outcome.log.read_text().endswith(
        "[hookwright: over 1048576 bytes; the rest is dropped]\n"
    )


EXITED = (
    "mcp_tool hook evil/dump: the call failed: MCP server 'evil': tool 'dump': "
    "the server exited (code 3)"
)
# The hook's own deadline and the engine's are both its `timeout`; either may report it.
TIMED_OUT = (
    "mcp_tool hook evil/dump: no answer within 2 s",
    "PreToolUse mcp_tool:evil/dump (Claude Code, .claude/settings.json): timeout",
)


@pytest.mark.parametrize(("mode", "errors"), [("exit-held", (EXITED,)), ("silent", TIMED_OUT)])
def test_mcp_tool_hooks_against_a_hostile_server_fail_without_blocking(
    tmp_path: Path, isolated_home: Path, server: FakeLLMServer, mode: str, errors: tuple[str, ...]
) -> None:
    hook = {"type": "mcp_tool", "server": "evil", "tool": "dump", "timeout": 2}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    bash = FakeToolCall("Bash", json.dumps({"command": "echo still-here"}), id="toolu_b")
    outcome = run(
        tmp_path,
        isolated_home,
        server,
        mode,
        FakeReply(tool_calls=[bash]),
        FakeReply("done"),
        project_settings=settings,
    )
    assert_clean(outcome)
    assert any(error in outcome.proc.stdout for error in errors), outcome.proc.stdout
    assert outcome.text() == "still-here"


@given(
    lines=st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=12),
    cuts=st.lists(st.integers(min_value=0, max_value=600), max_size=12),
    limit=st.integers(min_value=1, max_value=30),
)
def test_stdout_is_split_into_whole_lines_however_it_is_chunked(
    lines: list[bytes], cuts: list[int], limit: int
) -> None:
    stream = b"".join(line + b"\n" for line in lines)
    splitter = LineSplitter(limit)
    out: list[bytes | Overlong] = []
    for start, end in itertools.pairwise([0, *sorted(cuts), len(stream)]):
        out += splitter.feed(stream[start:end])
    assert len(out) == len(lines)
    for line, got in zip(lines, out, strict=True):
        if len(line) <= limit:
            assert got == line
        else:
            # Cut the moment it passed the limit: a prefix of the line, over the limit.
            assert isinstance(got, Overlong)
            assert line.startswith(got.head) and limit < len(got.head) <= KEEP_BYTES


def test_a_server_that_ignores_its_input_ending_and_sigterm_is_killed_before_the_run_ends(
    tmp_path: Path, isolated_home: Path, server: FakeLLMServer
) -> None:
    outcome = run(
        tmp_path,
        isolated_home,
        server,
        "stubborn",
        *calls_dump(),
        env={"MCP_TOOL_TIMEOUT": "1500"},
        measure=True,
    )
    assert_clean(outcome)
    assert outcome.text() == "Error: MCP server 'evil': tool 'dump': no answer within 1.5 s"


def test_an_interrupt_while_a_stubborn_server_is_stopped_still_kills_it_before_the_run_ends(
    tmp_path: Path, isolated_home: Path, server: FakeLLMServer
) -> None:
    log = isolated_home / ".hookwright" / "logs" / "mcp-evil.log"
    outcome = run(
        tmp_path,
        isolated_home,
        server,
        "stubborn",
        *calls_dump(),
        env={"MCP_TOOL_TIMEOUT": "1500"},
        launch=interrupted_when_stopping(log),
    )
    assert len(outcome.pids) == 2, "the server did not start its child"
    assert kill_left(outcome.pids) == [], "the server or its child is still running"
    assert outcome.proc.returncode == 130, outcome.stderr


async def test_a_close_cancelled_half_way_still_ends_only_once_the_server_is_dead(
    tmp_path: Path,
) -> None:
    """The kill does not depend on the close running to its end: cancelled while a server
    that ignores the end of its input and SIGTERM is given its time to exit, the close still
    ends only once the server and its child are dead."""
    pids = tmp_path / "pids"
    evil = ServerConfig(
        name="evil",
        transport="stdio",
        source="test",
        command=sys.executable,
        args=(str(SERVER), "stubborn"),
        env={"HOSTILE_PIDS": str(pids)},
    )
    servers = McpServers(tmp_path / "logs")
    assert await servers.start([evil]) == []
    closing = asyncio.create_task(servers.close())
    log = tmp_path / "logs" / "mcp-evil.log"
    while INPUT_ENDED not in (log.read_text() if log.exists() else ""):
        await asyncio.sleep(0.05)  # then the server is given its time to exit
    started = [int(pid) for pid in pids.read_text().split()]
    assert len(started) == 2
    assert all(running(pid) for pid in started), "the server ended before the close was cut"
    closing.cancel()
    ended = await asyncio.gather(closing, return_exceptions=True)
    assert kill_left(started) == [], "the server or its child is still running"
    assert isinstance(ended[0], asyncio.CancelledError), "the close swallowed its cancellation"
