"""The differential suite's own parts: the fake API, the harness (hookwright side), the
normaliser and the SKIP path. Claude Code itself only runs under `make conformance`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from conformance.__main__ import runs_on
from conformance.cases import CASES, bash
from conformance.codex.view import view as codex_view
from conformance.compare import Normaliser, differences, view
from conformance.fake_api import FakeAnthropic, ToolUse, Turn
from conformance.harness import Action, Case, Hook, Observation, cleanup, run, run_agent
from conformance.hook_server import HookServer

ROOT = Path(__file__).resolve().parents[2]

CASE = Case(
    "machinery",
    "go",
    [
        Turn(tools=[ToolUse("toolu_a", "Bash", {"command": "echo hi > {project}/f.txt"})]),
        Turn("ok"),
    ],
    [
        Hook("PreToolUse", "pre", matcher="Bash"),
        Hook("PostToolUse", "post", Action(stderr="MARK post", exit=2), matcher="Bash"),
    ],
)


@pytest.fixture(scope="module")
def observed() -> Iterator[Observation]:
    """One hookwright run of CASE, read (never changed) by the tests that look at a run."""
    with FakeAnthropic() as fake:
        observation = run("hookwright", CASE, fake)
    yield observation
    cleanup(observation)


def test_hookwright_run_is_observed_through_the_fake_api(observed: Observation) -> None:
    observation = observed
    assert observation.returncode == 0, observation.stderr
    assert [r["label"] for r in observation.hooks] == ["pre", "post"]
    pre = json.loads(observation.hooks[0]["stdin"])
    assert pre["tool_input"] == {"command": f"echo hi > {observation.project}/f.txt"}
    assert observation.hooks[0]["stdin"].endswith("\n")
    assert len(observation.requests) == 2
    assert observation.files == {"f.txt": "hi\n"}
    rendered = view(observation, CASE.compare)
    assert rendered["order"] == ["PreToolUse pre", "PostToolUse post"]
    assert any("MARK post" in item for item in rendered["model"][1])
    assert str(observation.project) not in json.dumps(rendered)


def test_a_differing_byte_is_reported(observed: Observation) -> None:
    first = observed
    with FakeAnthropic() as fake:
        second = run("hookwright", CASE, fake)
    try:
        assert differences(first, second, frozenset({"order", "model", "files"})) == ""
        second.hooks[0]["stdin"] = second.hooks[0]["stdin"].replace('":"', '": "', 1)
        assert '+  "pre cwd=<project> {\\"session_id\\": \\"<id1>' in differences(
            first, second, CASE.compare
        )
    finally:
        cleanup(second)


def test_normaliser_numbers_ids_by_first_sight(observed: Observation) -> None:
    normalise = Normaliser(observed)
    a, b = "0b6f5a1e-0000-4000-8000-000000000001", "0b6f5a1e-0000-4000-8000-000000000002"
    text = f'{{"session_id":"{b}","prompt_id":"{a}","x":"{b}","duration_ms":42}}'
    assert (
        normalise(text)
        == '{"session_id":"<id1>","prompt_id":"<id2>","x":"<id1>","duration_ms":<ms>}'
    )


def test_normaliser_numbers_transcripts_by_first_sight(observed: Observation) -> None:
    """Which hooks read the same transcript is compared: the session's against a subagent's."""
    normalise = Normaliser(observed)
    main, sub = "/h/s.jsonl", "/h/s/subagents/agent-a.jsonl"
    assert normalise(f'{{"transcript_path":"{main}"}}') == '{"transcript_path":"<transcript1>"}'
    assert (
        normalise(f'{{"transcript_path":"{sub}","agent_transcript_path":"{main}"}}')
        == '{"transcript_path":"<transcript2>","agent_transcript_path":"<transcript1>"}'
    )


def test_codex_view_numbers_turns_and_compares_the_spawn_tool(observed: Observation) -> None:
    """Codex's and hookwright's turn ids read `<turnN>` by first sight; the call starting a
    subagent is compared as it is (hookwright shows Codex hooks Codex's `spawn_agent`)."""
    spawn = '"tool_name":"spawn_agent","tool_input":{"message":"go"},"tool_use_id":"c"'
    stdins = [
        f'{{"turn_id":"t-main",{spawn}}}',
        '{"turn_id":"t-sub","hook_event_name":"SubagentStart"}',
        '{"turn_id":"t-main","hook_event_name":"Stop"}',
    ]
    hooks = [{"label": "h", "cwd": "/", "stdin": text} for text in stdins]
    denial = "Tool call blocked by PreToolUse hook: MARK no. Tool: spawn_agent"
    output = {"type": "function_call_output", "call_id": "c", "output": denial}
    seen = replace(observed, hooks=hooks, requests=[{"input": [output]}])
    rendered = codex_view(seen, frozenset({"stdin", "model"}))
    assert [line.split(" ", 2)[2] for line in rendered["stdin"]] == [
        f'{{"turn_id":"<turn1>",{spawn}}}',
        '{"turn_id":"<turn2>","hook_event_name":"SubagentStart"}',
        '{"turn_id":"<turn1>","hook_event_name":"Stop"}',
    ]
    assert rendered["model"] == [[f"tool c: {denial}"]]


def test_without_npm_the_suite_skips_and_succeeds(tmp_path: Path) -> None:
    env = {
        key: value for key, value in os.environ.items() if key != "HOOKWRIGHT_CONFORMANCE_CLAUDE"
    }
    env["PATH"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "conformance"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("SKIP conformance: npm is not on PATH")


def test_a_claude_that_does_not_start_skips(tmp_path: Path) -> None:
    broken = tmp_path / "claude"
    broken.write_text("#!/bin/sh\necho 1.0.0\n")
    broken.chmod(0o755)
    done = subprocess.run(
        [sys.executable, "-m", "conformance", "--claude", str(broken)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "SKIP conformance:" in done.stdout and "1.0.0" in done.stdout


def test_an_http_hook_posts_to_the_hook_server_and_answers_as_told() -> None:
    case = Case(
        "http",
        "go",
        [Turn(tools=[ToolUse("toolu_a", "Bash", {"command": "touch {project}/ran"})]), Turn("ok")],
        [
            Hook(
                "PreToolUse",
                "guard",
                Action(stdout="MARK plain", exit=500),
                "Bash",
                extra={"onFailure": "block"},
                type="http",
            )
        ],
    )
    with FakeAnthropic() as fake, HookServer() as hooks:
        observation = run("hookwright", case, fake, hooks=hooks)
    try:
        assert observation.returncode == 0, observation.stderr
        [record] = observation.hooks
        assert record["label"] == "guard"
        assert json.loads(record["stdin"])["tool_input"]["command"].endswith("/ran")
        assert observation.files == {}
        [result] = view(observation, frozenset({"verdict"}))["verdict"][1][:1]
        assert result == (
            "tool_result toolu_a error=True: PreToolUse:Bash hook error: "
            f'[{hooks.base_url}/guard]: failed; blocking because onFailure is "block"'
        )
    finally:
        cleanup(observation)


def test_an_mcp_tool_hook_calls_the_cases_mcp_server_and_answers_as_told() -> None:
    guard = Hook(
        "PreToolUse",
        "guard",
        Action(stderr="MARK broken", exit=1),
        "Bash",
        extra={"onFailure": "block"},
        type="mcp_tool",
    )
    case = Case("mcp", "go", [Turn(tools=[bash("toolu_a", "touch ran.txt")]), Turn("ok")], [guard])
    with FakeAnthropic() as fake:
        observation = run("hookwright", case, fake)
    try:
        assert observation.returncode == 0, observation.stderr
        [record] = observation.hooks
        assert json.loads(record["stdin"]) == {"label": "guard", "event": "PreToolUse"}
        assert observation.files == {}
        [result] = view(observation, frozenset({"verdict"}))["verdict"][1][:1]
        assert result == (
            "tool_result toolu_a error=True: PreToolUse:Bash hook error: [conf/hook]: failed; "
            'blocking because onFailure is "block" and the hook got no usable answer from its '
            "MCP server. The user needs to fix the cause (in a session, /mcp shows the server's "
            "state) or ask whoever manages the hook; Claude should not change the hook or work "
            "around it."
        )
    finally:
        cleanup(observation)


def test_a_failing_subagent_stop_hook_lets_the_foreground_subagent_stop() -> None:
    [case] = [case for case in CASES if case.name == "fail-subagent-stop-command-block"]
    with FakeAnthropic() as fake:
        observation = run("hookwright", case, fake)
    try:
        assert observation.returncode == 0, observation.stderr
        rendered = view(observation, case.compare)
        assert rendered["order"] == ["SubagentStop h"]
        assert observation.files == {"sub.txt": ""}
        # parent, subagent twice, parent: the hand-back's own framing left out
        assert rendered["handback"] == [
            ["user: go"],
            ["user: touch sub.txt"],
            [
                "tool_result toolu_s error=False: (Bash completed with no output)",
                "user: touch sub.txt",
            ],
            ["tool_result toolu_a error=False: <hand-back>", "user: go"],
        ]
    finally:
        cleanup(observation)


def test_a_teammate_case_runs_hookwright_as_that_teammate() -> None:
    [case] = [case for case in CASES if case.name == "teammate-idle-exit2"]
    with FakeAnthropic() as fake:
        observation = run("hookwright", case, fake)
    try:
        assert observation.returncode == 0, observation.stderr
        idle = [json.loads(r["stdin"]) for r in observation.hooks if r["label"] == "h"]
        assert idle[0]["teammate_name"] == "worker"
        assert idle[0]["team_name"] == "team1"
        assert len(observation.requests) > 1
    finally:
        cleanup(observation)


def test_cases_that_need_a_newer_claude_code_are_skipped(tmp_path: Path) -> None:
    old = tmp_path / "claude"
    old.write_text("#!/bin/sh\necho '2.1.240 (Claude Code)'\n")
    old.chmod(0o755)
    done = subprocess.run(
        [sys.executable, "-m", "conformance", "--claude", str(old), "-k", "fail-exit3-command"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "SKIP fail-exit3-command-block (needs Claude Code 2.1.295 or later)",
        "SKIP fail-exit3-command-continue (needs Claude Code 2.1.295 or later)",
        "0 of 0 cases agree with Claude Code 2.1.240",
    ]
    assert runs_on(CASES[0], "2.1.240") and not runs_on(
        next(case for case in CASES if case.since), "2.1.294"
    )


def test_repeated_k_runs_the_cases_of_every_pattern(tmp_path: Path) -> None:
    old = tmp_path / "claude"
    old.write_text("#!/bin/sh\necho '2.1.240 (Claude Code)'\n")
    old.chmod(0o755)
    patterns = ["-k", "fail-exit3-command-block", "-k", "fail-exit3-command-continue"]
    done = subprocess.run(
        [sys.executable, "-m", "conformance", "--claude", str(old), *patterns],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert [line.split()[1] for line in done.stdout.splitlines()[:2]] == [
        "fail-exit3-command-block",
        "fail-exit3-command-continue",
    ]


#: A stand-in for `claude -p --input-format stream-json`: for each user message it notes
#: whether the next one was already waiting before it answered, then prints a result line.
STREAMED_CLAUDE = """\
import json, os, select, sys
log = open(os.environ["STREAM_LOG"], "a")
for line in sys.stdin:
    waiting = bool(select.select([sys.stdin], [], [], 0.2)[0])
    prompt = json.loads(line)["message"]["content"]
    log.write(json.dumps({"prompt": prompt, "next_already_sent": waiting}) + "\\n")
    log.flush()
    print(json.dumps({"type": "assistant", "text": prompt}), flush=True)
    print(json.dumps({"subtype": "success", "type": "result", "result": prompt}), flush=True)
"""


def test_follow_up_prompts_reach_claude_one_answer_at_a_time(tmp_path: Path) -> None:
    program = tmp_path / "claude.py"
    program.write_text(STREAMED_CLAUDE)
    log = tmp_path / "stream.jsonl"
    env = {**os.environ, "STREAM_LOG": str(log)}
    done = run_agent(
        [sys.executable, str(program)], tmp_path, env, ["one", "two", "three"], streamed=True
    )
    assert done.returncode == 0, done.stderr
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    assert seen == [
        {"prompt": prompt, "next_already_sent": False} for prompt in ("one", "two", "three")
    ]
    assert done.stdout.count('"type": "result"') == 3


def test_a_case_with_follow_ups_runs_hookwright_chat_on_every_prompt() -> None:
    [case] = [case for case in CASES if case.name == "skill-typed-twice"]
    with FakeAnthropic() as fake:
        observation = run("hookwright", case, fake)
    try:
        assert observation.returncode == 0, observation.stderr
        prompts = [
            json.loads(r["stdin"])["prompt"]
            for r in observation.hooks
            if r["label"] == "log-UserPromptSubmit"
        ]
        assert prompts == ["/greet one", "plain two", "/greet three"]
        assert len(observation.requests) == 6
    finally:
        cleanup(observation)


def test_the_agents_own_notes_are_left_out_wrapped_or_after_a_tool_result(
    observed: Observation,
) -> None:
    budget = "\n\n<system-reminder>\n<total_tokens>9 tokens left</total_tokens>\n</system-reminder>"
    body = {
        "model": "claude-sonnet-5",
        "messages": [
            {"role": "system", "content": "<system-reminder>\nToday's date is 2026-11-27."},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_a", "content": "hi" + budget},
                    {"type": "text", "text": "<system-reminder>\nHOOK TEXT\n</system-reminder>"},
                ],
            },
        ],
    }
    rendered = view(replace(observed, requests=[body]), frozenset({"model", "models"}))
    assert rendered["models"] == ["claude-sonnet-5"]
    assert rendered["model"] == [
        [
            "tool_result toolu_a error=False: hi",
            "user: <system-reminder>\nHOOK TEXT\n</system-reminder>",
        ]
    ]
