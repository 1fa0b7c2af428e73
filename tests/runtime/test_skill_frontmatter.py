"""What a skill's or command's frontmatter and folder change in the reference agent, through
`python -m hookwright run` and `chat` against a fake Anthropic API on 127.0.0.1 (as measured in
Claude Code 2.1.240 and 2.1.332): a command in a subfolder is ``sub:name``; ``model`` is the
model of the requests of the turn that typed the skill only; ``disable-model-invocation`` makes
the ``Skill`` tool refuse before any hook runs; a skill invoked again replaces its hooks (a
spent ``once`` hook runs again, none runs twice); ``--fork-session`` goes on in a new session
whose SessionStart says ``fork``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_hookwright

from . import skill_project
from .fake_llm_server import FakeLLMServer, FakeReply, FakeToolCall
from .skill_project import SCOPED, hooks_ran, log_env, skill_hook_calls

EVENTS = ("SessionStart", "UserPromptExpansion", "PreToolUse", "PostToolUse", "PostToolBatch")
COMMAND = """---
description: Says hello
allowed-tools: Bash(echo:*)
---
Hello $ARGUMENTS.
"""


def project(tmp_path: Path, files: dict[str, str]) -> Path:
    """A project whose settings log every event of `EVENTS` (label ``settings``)."""
    return skill_project.project(tmp_path, files, EVENTS)


def agent(
    tmp_path: Path,
    home: Path,
    server: FakeLLMServer,
    *args: str,
    stdin: str | None = None,
    model: str = "claude-opus-5",
    version: str = "2.1.332",
) -> list[dict[str, Any]]:
    """`hookwright <args>` as Claude Code `version` on the fake API with the session on
    `model`; the hooks that ran, in order, with their inputs."""
    done = run_hookwright(
        *args,
        "--project",
        str(tmp_path / "repo"),
        "--trust",
        "--model",
        f"anthropic:{model}",
        "--permission-mode",
        "bypassPermissions",
        "--claude-code-version",
        version,
        home=home,
        stdin=stdin,
        env={
            **log_env(tmp_path),
            "ANTHROPIC_BASE_URL": server.anthropic_base_url,
            "ANTHROPIC_API_KEY": "sk-ant-test",
        },
    )
    assert done.returncode == 0, done.stderr
    return hooks_ran(tmp_path)


def call(use_id: str, name: str, arguments: dict[str, Any]) -> FakeReply:
    return FakeReply(tool_calls=[FakeToolCall(name, json.dumps(arguments), id=use_id)])


def last_blocks(server: FakeLLMServer) -> list[Any]:
    """The content blocks of the last message of the last request."""
    content = server.requests[-1].body["messages"][-1]["content"]
    return content if isinstance(content, list) else [{"type": "text", "text": content}]


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if isinstance(block, dict))


def test_a_command_in_a_subfolder_is_named_by_its_folders(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    project(tmp_path, {".claude/commands/a/b/hello.md": COMMAND})
    server.queue_anthropic("typed")
    hooks = agent(tmp_path, isolated_home, server, "run", "/a:b:hello world")
    texts = [block["text"] for block in last_blocks(server)]
    assert texts[-2:] == [
        "<command-message>a:b:hello</command-message>\n<command-name>/a:b:hello</command-name>\n"
        "<command-args>world</command-args>\n",
        "Hello world.\n",
    ]
    [expansion] = [h["input"] for h in hooks if h["input"]["hook_event_name"] != "SessionStart"]
    assert expansion["command_name"] == "a:b:hello"

    (tmp_path / "hooks.jsonl").unlink()
    server.queue_anthropic(call("toolu_a", "Skill", {"skill": "a:b:hello", "args": "x"}), "done")
    hooks = agent(tmp_path, isolated_home, server, "run", "go")
    post = next(h["input"] for h in hooks if h["input"]["hook_event_name"] == "PostToolUse")
    assert post["tool_response"] == {
        "success": True,
        "commandName": "a:b:hello",
        "allowedTools": ["Bash(echo:*)"],
    }
    assert last_blocks(server)[1]["text"] == "Hello x.\n"


def test_a_skill_s_model_serves_the_turn_that_typed_it_only(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    skill = "---\ndescription: Greets\nmodel: haiku\n---\nGreeting $ARGUMENTS.\n"
    project(tmp_path, {".claude/skills/greet/SKILL.md": skill})
    server.queue_anthropic(
        call("toolu_a", "Bash", {"command": "echo hi"}),
        "one",
        "two",
        call("toolu_b", "Skill", {"skill": "greet", "args": "w"}),
        "three",
    )
    hooks = agent(
        tmp_path, isolated_home, server, "chat", stdin="/greet one\nplain\nagain by the tool\n"
    )
    assert [r.body["model"] for r in server.requests] == [
        "claude-haiku-5-5",  # 2.1.332's haiku, for both requests of the typed turn
        "claude-haiku-5-5",
        "claude-opus-5",
        "claude-opus-5",  # the Skill tool leaves the session's model
        "claude-opus-5",
    ]
    post = [h["input"] for h in hooks if h["input"]["hook_event_name"] == "PostToolUse"][-1]
    assert post["tool_response"] == {
        "success": True,
        "commandName": "greet",
        "model": "claude-haiku-5-5",
    }


@dataclass(frozen=True)
class PlainRun:
    """What one `run go` on a project without skills showed: the model calls Bash once, then
    answers."""

    hooks: list[dict[str, Any]]
    bodies: list[dict[str, Any]]


class PlainRuns:
    """`PlainRun` per (version, session model), each run once for the module's tests that read
    it (whichever comes first runs it), on its own project and home."""

    def __init__(self, root: Path, server: FakeLLMServer) -> None:
        self.root = root
        self.server = server
        self.done: dict[tuple[str, str], PlainRun] = {}

    def __call__(self, version: str, model: str) -> PlainRun:
        if (version, model) not in self.done:
            self.done[version, model] = self.run(version, model)
        return self.done[version, model]

    def run(self, version: str, model: str) -> PlainRun:
        where = self.root / f"{version}-{model}"
        (where / "home").mkdir(parents=True)
        project(where, {})
        earlier = len(self.server.requests)
        self.server.queue_anthropic(call("toolu_a", "Bash", {"command": "echo hi"}), "done")
        hooks = agent(where, where / "home", self.server, "run", "go", model=model, version=version)
        return PlainRun(hooks, [r.body for r in self.server.requests[earlier:]])


@pytest.fixture(scope="module")
def plain_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PlainRuns]:
    with FakeLLMServer() as server:
        yield PlainRuns(tmp_path_factory.mktemp("plain"), server)


def pre_tool_efforts(hooks: list[dict[str, Any]]) -> list[Any]:
    """The `effort` each PreToolUse hook read (None: no such field)."""
    inputs = [h["input"] for h in hooks if h["input"]["hook_event_name"] == "PreToolUse"]
    return [data.get("effort") for data in inputs]


@pytest.mark.parametrize(
    ("version", "model", "effort"),
    [
        ("2.1.332", "claude-haiku-5-5", {"level": "medium"}),
        ("2.1.332", "claude-opus-5", {"level": "high"}),
        ("2.1.332", "claude-opus-4-7", {"level": "xhigh"}),
        ("2.1.240", "claude-opus-4-7", {"level": "xhigh"}),
        ("2.1.240", "claude-haiku-5-5", {"level": "high"}),
        ("2.1.240", "claude-haiku-4-5-20251001", None),
    ],
)
def test_the_effort_hooks_read_is_the_version_s_default_for_the_session_model(
    plain_run: PlainRuns, version: str, model: str, effort: dict[str, str] | None
) -> None:
    assert pre_tool_efforts(plain_run(version, model).hooks) == [effort]


@pytest.mark.parametrize(
    ("version", "setting", "efforts"),
    [
        ("2.1.332", None, [{"level": "medium"}, {"level": "high"}]),
        ("2.1.240", None, [None, {"level": "high"}]),
        ("2.1.332", "low", [{"level": "low"}, {"level": "low"}]),
        ("2.1.240", "low", [None, {"level": "low"}]),
    ],
)
def test_a_skill_s_model_sets_the_effort_of_the_turn_that_typed_it(
    server: FakeLLMServer,
    tmp_path: Path,
    isolated_home: Path,
    version: str,
    setting: str | None,
    efforts: list[dict[str, str] | None],
) -> None:
    """`haiku` is `claude-haiku-5-5` (default `medium`) under 2.1.332, `claude-haiku-4-5`
    (no effort at all, whatever the settings say) under 2.1.240."""
    skill = "---\ndescription: Greets\nmodel: haiku\n---\nGreeting $ARGUMENTS.\n"
    files = {".claude/skills/greet/SKILL.md": skill}
    if setting is not None:
        files[".claude/settings.local.json"] = json.dumps({"effortLevel": setting})
    project(tmp_path, files)
    server.queue_anthropic(
        call("toolu_a", "Bash", {"command": "echo one"}),
        "one",
        call("toolu_b", "Bash", {"command": "echo two"}),
        "two",
    )
    hooks = agent(
        tmp_path, isolated_home, server, "chat", stdin="/greet one\nplain\n", version=version
    )
    assert pre_tool_efforts(hooks) == efforts


def test_a_skill_s_model_never_chooses_another_backend(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    skill = "---\ndescription: Greets\nmodel: openai:gpt-elsewhere\n---\nGreeting.\n"
    project(tmp_path, {".claude/skills/greet/SKILL.md": skill})
    server.queue_anthropic("done")
    agent(tmp_path, isolated_home, server, "run", "/greet")
    assert [r.body["model"] for r in server.requests] == ["claude-opus-5"]
    assert {r.api for r in server.requests} == {"anthropic"}


def test_a_skill_the_model_may_not_invoke_is_refused_before_any_hook(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    skill = "---\ndescription: Greets\ndisable-model-invocation: true\n---\nGreeting.\n"
    project(tmp_path, {".claude/skills/greet/SKILL.md": skill})
    server.queue_anthropic(call("toolu_a", "Skill", {"skill": "greet"}), "done")
    hooks = agent(tmp_path, isolated_home, server, "run", "go")
    [result] = last_blocks(server)
    assert result["is_error"] is True
    assert result["content"] == (
        "<tool_use_error>Skill greet cannot be used with Skill tool due to "
        "disable-model-invocation. Ask the user to run /greet themselves \u2014 it cannot be "
        "invoked via the Skill tool. Do not replicate this skill's workflow by other means "
        "\u2014 it is reserved for explicit user invocation.</tool_use_error>"
    )
    events = [h["input"]["hook_event_name"] for h in hooks]
    assert events == ["SessionStart", "PostToolBatch"], "no PreToolUse, no PostToolUse"
    batch = hooks[-1]["input"]["tool_calls"]
    assert batch[0]["tool_response"] == result["content"]


def test_a_skill_typed_again_replaces_its_hooks(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    project(tmp_path, {".claude/skills/greet/SKILL.md": SCOPED})
    server.queue_anthropic(
        *(
            reply
            for use_id in ("toolu_a", "toolu_b", "toolu_c")
            for reply in (call(use_id, "Bash", {"command": "echo hi"}), "done")
        )
    )
    hooks = agent(tmp_path, isolated_home, server, "chat", stdin="/greet one\nplain\n/greet two\n")
    assert skill_hook_calls(hooks) == [
        ("skill-pre", "toolu_a"),
        ("skill-post-once", "toolu_a"),
        ("skill-pre", "toolu_b"),  # the once hook is spent
        ("skill-pre", "toolu_c"),  # typed again: one set of hooks, the once hook armed again
        ("skill-post-once", "toolu_c"),
    ]


def test_a_forked_session_goes_on_under_a_new_id(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    project(tmp_path, {})
    server.queue_anthropic("one", "two")
    first = agent(tmp_path, isolated_home, server, "run", "first")
    session = first[0]["input"]["session_id"]
    hooks = agent(
        tmp_path, isolated_home, server, "run", "second", "--resume", session, "--fork-session"
    )
    start = hooks[-1]["input"]
    assert start["source"] == "fork" and start["session_id"] != session
    assert list(start)[-4:] == [
        "seconds_since_last_response",
        "context_tokens",
        "prompt_cache_likely_expired",
        "estimated_cache_write_usd",
    ]
    said = [(m["role"], text_of(m["content"])) for m in server.requests[-1].body["messages"]]
    assert [turn for turn in said if turn[1] in ("first", "one", "second")] == [
        ("user", "first"),
        ("assistant", "one"),
        ("user", "second"),
    ], "the history goes on"
    old, new = (Path(h["transcript_path"]) for h in (first[0]["input"], start))
    assert old.is_file() and new.is_file() and old != new
    copied = [json.loads(line) for line in new.read_text().splitlines()]
    assert {line["sessionId"] for line in copied if "sessionId" in line} == {start["session_id"]}


NOTE = (
    "When you launch multiple agents for independent work, send them in a single message with "
    "multiple tool uses so they run concurrently."
)


def notes_per_request(bodies: list[dict[str, Any]]) -> list[int]:
    """How often each request's messages hold Claude Code's note on launching subagents."""
    return [
        sum(text_of(message["content"]).count(NOTE) for message in body["messages"])
        for body in bodies
    ]


@pytest.mark.parametrize(
    ("version", "model", "notes"),
    [
        ("2.1.332", "claude-haiku-5-5", [1, 1]),
        ("2.1.332", "claude-opus-4-7", [1, 1]),
        ("2.1.332", "claude-opus-5", [0, 0]),
        ("2.1.240", "claude-sonnet-5-5", [1, 1]),
        ("2.1.240", "claude-opus-5", [0, 0]),
    ],
)
def test_the_note_on_launching_subagents_follows_the_session_model(
    plain_run: PlainRuns, version: str, model: str, notes: list[int]
) -> None:
    """Sent once, after the first prompt, and kept in the history; `claude-opus-5` (its
    prompt bundle) goes without it in both versions."""
    bodies = plain_run(version, model).bodies
    assert notes_per_request(bodies) == notes
    first = bodies[0]["messages"]
    if notes[0]:
        assert [m["role"] for m in first] == ["user", "system"]
        assert text_of(first[1]["content"]) == NOTE, "a system message after the prompt"


def test_a_skill_s_model_for_the_first_turn_does_not_bring_the_note(
    server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    """The session's model decides (measured: a session on `claude-opus-5` typing a
    `model: haiku` skill first gets no note, though its requests go to haiku)."""
    skill = "---\ndescription: Greets\nmodel: haiku\n---\nGreeting $ARGUMENTS.\n"
    project(tmp_path, {".claude/skills/greet/SKILL.md": skill})
    server.queue_anthropic("one")
    agent(tmp_path, isolated_home, server, "run", "/greet one")
    assert [r.body["model"] for r in server.requests] == ["claude-haiku-5-5"]
    assert notes_per_request([r.body for r in server.requests]) == [0]


@pytest.mark.parametrize(
    ("version", "model", "effort"),
    [
        ("2.1.332", "claude-sonnet-5-5", {"level": "medium"}),
        ("2.1.240", "claude-sonnet-5-5", {"level": "high"}),
        ("2.1.332", "claude-haiku-4-5", None),
    ],
)
def test_after_a_model_switch_the_hooks_read_the_new_model_s_effort(
    server: FakeLLMServer,
    tmp_path: Path,
    isolated_home: Path,
    version: str,
    model: str,
    effort: dict[str, str] | None,
) -> None:
    project(tmp_path, {})
    server.queue_anthropic(call("toolu_a", "Bash", {"command": "echo hi"}), "done")
    stdin = f"/model {model}\ngo\n"
    hooks = agent(tmp_path, isolated_home, server, "chat", stdin=stdin, version=version)
    assert [r.body["model"] for r in server.requests] == [model, model]
    assert pre_tool_efforts(hooks) == [effort]


@pytest.mark.parametrize(
    ("version", "definition", "model", "effort"),
    [
        ("2.1.332", None, "claude-haiku-5-5", {"level": "medium"}),
        ("2.1.240", None, "claude-haiku-4-5-20251001", None),
        ("2.1.332", "sonnet", "claude-sonnet-5-5", {"level": "medium"}),
        ("2.1.240", "sonnet", "claude-sonnet-5", {"level": "high"}),
    ],
)
def test_a_subagent_on_its_own_model_runs_with_that_model_s_effort(
    server: FakeLLMServer,
    tmp_path: Path,
    isolated_home: Path,
    version: str,
    definition: str | None,
    model: str,
    effort: dict[str, str] | None,
) -> None:
    """The `Agent` call's `model` (`haiku`), or its definition's (`sonnet`): the version's
    model for that family gets the subagent's requests, its hooks read that model's effort,
    and the parent's hooks after it read the session's again."""
    arguments: dict[str, Any] = {"prompt": "echo sub"}
    files = {}
    if definition is None:
        arguments["model"] = "haiku"
    else:
        arguments["subagent_type"] = "helper"
        files[".claude/agents/helper.md"] = f"---\nname: helper\nmodel: {definition}\n---\nHi\n"
    project(tmp_path, files)
    server.queue_anthropic(
        call("toolu_a", "Agent", arguments),
        call("toolu_s", "Bash", {"command": "echo sub"}),
        "sub done",
        call("toolu_b", "Bash", {"command": "echo main"}),
        "main done",
    )
    hooks = agent(tmp_path, isolated_home, server, "run", "go", version=version)
    models = [r.body["model"] for r in server.requests]
    assert models == ["claude-opus-5", model, model, "claude-opus-5", "claude-opus-5"]
    high = {"level": "high"}
    assert pre_tool_efforts(hooks) == [high, effort, high]
