"""The Gemini CLI dialect through `python -m hookwright run` (a scripted model, real hook
processes, real files): what each hook read, what ran, what the model was given."""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_cli
from hookwright.config.loading import LoadContext
from hookwright.config.trust import TrustPolicy
from hookwright.core.events import Event, HookInput
from hookwright.dialects import discover
from hookwright.engine.kernel import HookEngine

HOOK = """\
import json, os, sys
label, answer, code = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = sys.stdin.buffer.read()
with open(os.environ["GEMINI_TEST_LOG"], "a") as log:
    log.write(json.dumps({"label": label, "stdin": data.decode(),
                          "project": os.environ.get("GEMINI_PROJECT_DIR"),
                          "claude": os.environ.get("CLAUDE_PROJECT_DIR")}) + "\\n")
if answer.startswith("sleep"):
    import time; time.sleep(float(answer[5:]))
elif answer.startswith("err:"):
    sys.stderr.write(answer[4:])
else:
    sys.stdout.write(answer)
sys.exit(code)
"""
BASH_CALL = {"name": "Bash", "arguments": {"command": "echo ran > ran.txt"}}
ONE_BASH = [
    {"content": "", "tool_calls": [BASH_CALL]},
    {"content": "done"},
]


class Run:
    def __init__(self, tmp_path: Path) -> None:
        self.home = tmp_path / "home"
        self.project = tmp_path / "project"
        (self.home / ".gemini").mkdir(parents=True)
        (self.project / ".gemini").mkdir(parents=True)
        self.program = tmp_path / "hook.py"
        self.program.write_text(HOOK)
        self.log = tmp_path / "hooks.jsonl"
        self.script = tmp_path / "script.json"
        self.trust_in_gemini(True)

    def trust_in_gemini(self, trusted: bool) -> None:
        rules = {str(self.project): "TRUST_FOLDER"} if trusted else {}
        (self.home / ".gemini" / "trustedFolders.json").write_text(json.dumps(rules))

    def command(self, label: str, answer: str = "", code: int = 0) -> str:
        return f"{sys.executable} {self.program} {label} {shlex.quote(answer)} {code}"

    def settings(self, hooks: Mapping[str, Any], *, where: Path | None = None, **more: Any) -> None:
        path = where or self.project / ".gemini" / "settings.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"hooks": hooks, **more}))

    def run(self, turns: Sequence[Mapping[str, Any]] = ONE_BASH, *, trust: bool = True) -> str:
        self.script.write_text(json.dumps(list(turns)))
        env = {
            **os.environ,
            "HOME": str(self.home),
            "GEMINI_TEST_LOG": str(self.log),
            "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(self.home / "system-settings.json"),
        }
        args = ["run", "go", "--project", str(self.project)]
        args += ["--model", f"scripted:{self.script}", "--permission-mode", "bypassPermissions"]
        done = run_cli([*args, *(["--trust"] if trust else [])], env, stdin="", cwd=self.project)
        return done.stdout + done.stderr

    def hooks(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def labels(self) -> list[str]:
        return [record["label"] for record in self.hooks()]

    def transcript(self) -> str:
        return "\n".join(p.read_text() for p in (self.home / ".hookwright").rglob("*.jsonl"))


def group(command: str, matcher: str | None = None, **fields: Any) -> list[dict[str, Any]]:
    entry: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **fields}]}
    return [entry if matcher is None else {"matcher": matcher, **entry}]


@pytest.fixture
def gemini(tmp_path: Path) -> Run:
    return Run(tmp_path)


def test_a_hook_reads_compact_json_in_gemini_order_with_gemini_tool_names(gemini: Run) -> None:
    gemini.settings({"BeforeTool": group(gemini.command("bt"), "run_shell_command")})
    gemini.run()
    (record,) = gemini.hooks()
    raw = record["stdin"]
    assert not raw.endswith("\n") and ", " not in raw and '": ' not in raw
    body = json.loads(raw)
    assert list(body) == [
        "session_id",
        "transcript_path",
        "cwd",
        "hook_event_name",
        "timestamp",
        "tool_name",
        "tool_input",
    ]
    assert body["hook_event_name"] == "BeforeTool"
    assert body["tool_name"] == "run_shell_command"
    assert body["tool_input"] == {"command": "echo ran > ran.txt"}
    assert body["timestamp"].endswith("Z") and "T" in body["timestamp"]
    assert record["project"] == record["claude"] == str(gemini.project)


def test_a_json_deny_keeps_the_tool_from_running_and_words_the_block_as_gemini(
    gemini: Run,
) -> None:
    deny = json.dumps({"decision": "deny", "reason": "MARK no"})
    gemini.settings({"BeforeTool": group(gemini.command("bt", deny), "run_.*")})
    gemini.run()
    assert not (gemini.project / "ran.txt").exists()
    assert '{\\"error\\": \\"Tool execution blocked: MARK no\\"}' in gemini.transcript()


def test_exit_2_blocks_with_stderr_and_claude_permission_decision_is_ignored(
    gemini: Run,
) -> None:
    claude_deny = json.dumps({"hookSpecificOutput": {"permissionDecision": "deny"}})
    gemini.settings({"BeforeTool": group(gemini.command("cc", claude_deny))})
    gemini.run()
    assert (gemini.project / "ran.txt").exists()
    (gemini.project / "ran.txt").unlink()
    gemini.settings({"BeforeTool": group(gemini.command("e2", "err:MARK exit two", 2))})
    gemini.run()
    assert not (gemini.project / "ran.txt").exists()
    assert "Tool execution blocked: MARK exit two" in gemini.transcript()


def test_tool_input_is_merged_into_the_arguments(gemini: Run) -> None:
    rewrite = {"hookSpecificOutput": {"tool_input": {"command": "echo new > new.txt"}}}
    gemini.settings({"BeforeTool": group(gemini.command("rw", json.dumps(rewrite)))})
    gemini.run()
    assert (gemini.project / "new.txt").read_text() == "new\n"
    assert not (gemini.project / "ran.txt").exists()


def test_after_tool_context_is_appended_to_the_tool_output(gemini: Run) -> None:
    context = {"hookSpecificOutput": {"additionalContext": "MARK <b>"}}
    gemini.settings({"AfterTool": group(gemini.command("at", json.dumps(context)), "*")})
    gemini.run()
    assert "\\n\\n<hook_context>MARK &lt;b&gt;</hook_context>" in gemini.transcript()


def test_matchers_are_regexes_on_gemini_names_and_claude_names_match_nothing(
    gemini: Run,
) -> None:
    hooks = [
        *group(gemini.command("exact"), "run_shell_command"),
        *group(gemini.command("regex"), "^run_.*"),
        *group(gemini.command("star"), "*"),
        *group(gemini.command("claude"), "Bash"),
        *group(gemini.command("write"), "write_file"),
    ]
    gemini.settings({"BeforeTool": hooks})
    gemini.run()
    assert sorted(gemini.labels()) == ["exact", "regex", "star"]


def test_a_timeout_in_milliseconds_fails_open(gemini: Run) -> None:
    gemini.settings({"BeforeTool": group(gemini.command("slow", "sleep5"), timeout=300)})
    output = gemini.run()
    assert (gemini.project / "ran.txt").exists()
    assert "Hook timed out after 300ms" in output


def test_plain_stdout_allows(gemini: Run) -> None:
    gemini.settings({"BeforeTool": group(gemini.command("plain", "{not json"))})
    gemini.run()
    assert (gemini.project / "ran.txt").exists()


def test_a_folder_gemini_does_not_trust_runs_no_project_hook_and_says_so(
    gemini: Run,
) -> None:
    gemini.trust_in_gemini(False)
    gemini.settings({"BeforeTool": group(gemini.command("project"))})
    gemini.settings(
        {"BeforeTool": group(gemini.command("user"))},
        where=gemini.home / ".gemini" / "settings.json",
    )
    output = gemini.run()
    assert gemini.labels() == ["user"]
    assert "Gemini CLI does not trust" in output and "exit 55" in output


def test_hooks_config_disables_by_name_and_turns_hooks_off(gemini: Run) -> None:
    hooks = [
        *group(gemini.command("named"), name="guard"),
        *group(gemini.command("other")),
    ]
    gemini.settings({"BeforeTool": hooks}, hooksConfig={"disabled": ["guard"]})
    gemini.run()
    assert gemini.labels() == ["other"]
    system = gemini.home / "system-settings.json"
    system.write_text(json.dumps({"hooksConfig": {"enabled": False}}))
    gemini.log.unlink()
    gemini.run()
    assert gemini.labels() == []


def test_prompt_block_and_session_context(gemini: Run) -> None:
    context = {"hookSpecificOutput": {"additionalContext": "MARK session"}}
    gemini.settings(
        {
            "SessionStart": group(gemini.command("ss", json.dumps(context)), "startup"),
            "BeforeAgent": group(gemini.command("ba", '{"decision":"deny","reason":"MARK"}')),
        }
    )
    gemini.run()
    assert not (gemini.project / "ran.txt").exists()
    assert gemini.labels() == ["ss", "ba"]


def test_model_events_read_the_request_and_the_response(gemini: Run) -> None:
    gemini.settings(
        {"BeforeModel": group(gemini.command("bm")), "AfterModel": group(gemini.command("am"))}
    )
    gemini.run([{"content": "hello"}])
    records = {r["label"]: json.loads(r["stdin"]) for r in gemini.hooks()}
    assert records["bm"]["llm_request"]["messages"][-1] == {"role": "user", "content": "go"}
    assert all(m["role"] != "system" for m in records["bm"]["llm_request"]["messages"])
    assert records["am"]["llm_response"]["text"] == "hello"


def _tools(*names: str) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": name}} for name in names]


async def _offered(gemini: Run, answer: Mapping[str, Any]) -> Any:
    gemini.settings({"BeforeToolSelection": group(gemini.command("bts", json.dumps(answer)))})
    ctx = LoadContext(project_dir=gemini.project, home=gemini.home)
    loaded = discover(ctx).bind(TrustPolicy(everything=True))
    engine = HookEngine()
    for spec in loaded.specs:
        engine.register(spec)
    payload = {"model": "m", "messages": [], "tools": _tools("Bash", "Write", "Read")}
    try:
        verdict = await engine.dispatch(HookInput(Event.PreModelCall, payload=payload))
    finally:
        await engine.aclose()
    return verdict.updated_input


async def test_tool_selection_narrows_the_tools_by_gemini_name(
    gemini: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_TEST_LOG", str(gemini.log))
    allowed = {"toolConfig": {"mode": "ANY", "allowedFunctionNames": ["write_file"]}}
    narrowed = await _offered(gemini, {"hookSpecificOutput": allowed})
    assert narrowed == {"tools": _tools("Write")}
    none = await _offered(gemini, {"hookSpecificOutput": {"toolConfig": {"mode": "NONE"}}})
    assert none == {"tools": []}


def test_a_sequential_group_hands_the_rewrite_to_the_next_hook(gemini: Run) -> None:
    rewrite = {"hookSpecificOutput": {"tool_input": {"command": "echo new > new.txt"}}}
    hooks = [
        {"command": gemini.command("first", json.dumps(rewrite)), "type": "command"},
        {"command": gemini.command("second"), "type": "command"},
    ]
    gemini.settings({"BeforeTool": [{"sequential": True, "hooks": hooks}]})
    gemini.run()
    first, second = gemini.hooks()
    assert (first["label"], second["label"]) == ("first", "second")
    assert json.loads(second["stdin"])["tool_input"] == {"command": "echo new > new.txt"}
    assert (gemini.project / "new.txt").exists()


async def test_tool_selections_of_several_hooks_unite_as_gemini_merges_them(
    gemini: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_TEST_LOG", str(gemini.log))

    def answer(label: str, delay: float, **config: Any) -> list[dict[str, Any]]:
        reply = json.dumps({"hookSpecificOutput": {"toolConfig": config}})
        return group(f"sleep {delay}; {gemini.command(label, reply)}")

    async def offered(*groups: list[dict[str, Any]]) -> list[Any]:
        gemini.settings({"BeforeToolSelection": [entry for g in groups for entry in g]})
        ctx = LoadContext(project_dir=gemini.project, home=gemini.home)
        engine = HookEngine()
        for spec in discover(ctx).bind(TrustPolicy(everything=True)).specs:
            engine.register(spec)
        tools = _tools("Bash", "Write", "Read")
        try:
            payload = {"model": "m", "messages": [], "tools": tools}
            verdict = await engine.dispatch(HookInput(Event.PreModelCall, payload=payload))
        finally:
            await engine.aclose()
        selection = verdict.effects.tool_selection
        assert selection is not None
        return selection.narrow(tools)

    # The hook that finishes last allows only read_file: the shell stays, as in Gemini.
    shell = answer("shell", 0, allowedFunctionNames=["run_shell_command"])
    reader = answer("reader", 0.3, mode="ANY", allowedFunctionNames=["read_file", "Bash"])
    assert await offered(shell, reader) == _tools("Bash", "Read")
    # NONE wins whatever finishes last.
    none = answer("none", 0, mode="NONE")
    assert await offered(none, answer("late", 0.3, allowedFunctionNames=["write_file"])) == []


def test_after_agent_reads_the_turn_prompt_and_every_answer_claude_stop_does_not(
    gemini: Run,
) -> None:
    gemini.settings({"AfterAgent": group(gemini.command("aa"))})
    (gemini.project / ".claude").mkdir()
    claude_stop = {"hooks": [{"type": "command", "command": gemini.command("cc")}]}
    (gemini.project / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"Stop": [claude_stop]}})
    )
    said = {"content": "Running it.", "tool_calls": [BASH_CALL]}
    silent = {"content": "", "tool_calls": [BASH_CALL]}
    gemini.run([said, silent, {"content": "Done."}])
    records = {r["label"]: json.loads(r["stdin"]) for r in gemini.hooks()}
    after = records["aa"]
    assert (after["prompt"], after["prompt_response"]) == ("go", "Running it.\nDone.")
    assert not {"prompt", "turn_prompt", "turn_replies"} & set(records["cc"])
    assert records["cc"]["last_assistant_message"] == "Done."
