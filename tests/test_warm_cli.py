"""The tests' warm command-line servers (`tests/warm_cli.py`): which runs fork from the server
with the model backends loaded, and that each server serves only the environments it may and
leaves no process behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from procs import gone
from warm_cli import BACKEND_MODULES, WarmCli, names_sdk_model


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["run", "go", "--model", "anthropic:claude-test"], {}),
        (["run", "go", "-m", "openai:gpt-4o-mini"], {}),
        (["run", "go", "--model=openai:gpt-4o-mini"], {}),
        (["run", "go", "-manthropic:claude-test"], {}),
        (["run", "go"], {"HOOKWRIGHT_MODEL": "openai:gpt-4o-mini"}),
        (["run", "go"], {"ANTHROPIC_API_KEY": "sk-ant-t"}),
        (["run", "go"], {"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}),
    ],
)
def test_runs_that_name_an_sdk_model_go_to_the_backends_server(
    args: list[str], env: dict[str, str]
) -> None:
    assert names_sdk_model(args, env)


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["run", "go", "--model", "scripted:script.json"], {}),
        (["hooks", "list", "--json"], {}),
        (["run", "compare openai and anthropic"], {"HOOKWRIGHT_MODEL": "scripted:s.json"}),
        (["run", "go"], {"ANTHROPIC_API_KEY": ""}),
    ],
)
def test_other_runs_go_to_the_lean_server(args: list[str], env: dict[str, str]) -> None:
    assert not names_sdk_model(args, env)


def test_both_servers_fork_the_same_runs_and_end_with_no_process_left(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.endswith("_LOG")}
    env.update({"HOME": str(tmp_path), "COLUMNS": "200"})
    lean, backends = WarmCli(env), WarmCli(env, BACKEND_MODULES)
    try:
        assert lean.proc.pid != backends.proc.pid
        for args in (["--version"], ["no-such-command"]):
            one, other = (server.run(args, env, tmp_path, None, 60) for server in (lean, backends))
            assert (one.returncode, one.stdout) == (other.returncode, other.stdout)
        assert (one.returncode, b"No such command" in one.stderr) == (2, True)
        # The SDKs read their logging variables while the server imports them: a run that
        # sets one differently is not forked from a process that kept the server's value.
        noisy = {**env, "ANTHROPIC_LOG": "debug"}
        assert backends.serves(env) and not backends.serves(noisy) and lean.serves(noisy)
    finally:
        lean.close()
        backends.close()
    assert gone(lean.proc.pid) and gone(backends.proc.pid)
