"""The conformance scenario every framework adapter passes: one project, one scripted
conversation, the eleven guarantees of the adapters (docs/adapters.md) asserted on effects.

The project holds four hook dialects, each with real hook code:

* a Claude Code command hook (`.claude/settings.json`): SessionStart context, a PreToolUse
  deny of ``rm -rf`` and an ``ask`` for ``deploy``, PostToolUse context, a Stop block while the
  answer says "not finished", SessionEnd;
* an OpenHarness YAML hook (`.openharness/hooks/`): ``git push`` rewritten to a dry run, and
  ``git tag`` rewritten to an input the tool's schema rejects;
* a PicoClaw JSON-RPC process (`.picoclaw/config.json`, tests/picoclaw/hookproc.py): the
  ``lookup`` tool answered without running, with text for the user a framework cannot show,
  and ``touch vetoed`` refused only through ``approve_tool`` (an approval gate);
* a Python hook (`.hookwright/hooks.yaml`): UserPromptSubmit context;
* a skill's prompt hooks (`skills/conventions/hooks/hooks.json`, loaded with ``skills=``): an
  ``after_user_input`` and a ``before_each_agent`` injection.

Every hook logs what it read; the two tools (``shell(cmd)``, seen by hooks as ``Bash(command)``
through the `ToolMap`, and ``lookup(query)``) log what they ran.

Adding a framework
------------------

Write a driver (an object with the `Driver` attributes) in a module of this package that
imports the framework (its "kit", such as `openai_agents_kit.py`), and subclass
`ConformanceScenario` in a test module that names it through a `DeferredDriver`, so the
framework is imported when the scenario plays, not when each pytest worker collects the tests,
and the tests skip without the framework::

    class OpenAIAgentsDriver:  # in openai_agents_kit.py
        framework = "openai-agents"
        flags_errors = False  # the framework cannot mark a tool result as an error

        def open(self, project: Path, tools: Tools, options: dict[str, Any]) -> DriverSession:
            ...

    class TestOpenAIAgents(ConformanceScenario):  # in test_openai_agents.py
        driver = DeferredDriver(
            "openai-agents", False, "agents", ".openai_agents_kit", "OpenAIAgentsDriver"
        )

`Driver.open` builds the framework's agent with its own fake model and the adapter, opening
the adapter's hook session on `project` with `options` (keyword arguments of
`FrameworkSession.open`: skills, home, trust, tool_map, audit_path, stop_block_cap). The tools are
`tools.shell` and `tools.lookup`, plain typed functions to wrap as the framework's tools under
those names. The returned `DriverSession` has:

* ``hooks``: the adapter's `FrameworkSession` (the scenario breaks its dispatch to check that
  gates fail closed);
* ``turn(prompt, replies) -> list[list[Seen]]``: one user turn in the same framework session
  (conversation history kept between turns is allowed, not required); the fake model answers
  with `replies` in order, then with `EXHAUSTED` forever; the result is what the model saw at
  each call, normalised to `Seen` messages (system prompt, user, assistant text, tool results
  with their call id and error flag where the framework has one; context the adapter inserts
  appears as a user or system message);
* ``close()``: ends the framework session (SessionEnd).
"""

from __future__ import annotations

import importlib
import json
import logging
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

import pytest
import yaml

from hookwright.config.trust import TrustPolicy
from hookwright.core.events import Event, HookInput
from hookwright.host import FrameworkSession, ToolAlias, ToolMap

HOOKPROC = Path(__file__).parent.parent / "picoclaw" / "hookproc.py"
EXHAUSTED = "(the scripted model has no more replies)"
DENY_REASON = "rm -rf is not allowed here"
DRY_RUN = "dry-run: git push origin main"
CACHED = "sunny (cached)"
STOP_REASON = "run the tests too"
VETO_REASON = "touching vetoed files needs a ticket"
#: What the reference agent gives the model for a PicoClaw approval refusal.
VETOED = f"Tool execution denied by approval hook: {VETO_REASON}"
SKILL = "conventions"
SKILL_PROMPT = "Skill prompt: write commit messages in the imperative"
SKILL_STEP = "Skill step prompt: look before you delete"


@dataclass(frozen=True)
class Call:
    """One tool call the fake model makes."""

    id: str
    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    text: str = ""
    calls: tuple[Call, ...] = ()


@dataclass(frozen=True)
class Seen:
    """One message of a model call, as the model saw it."""

    role: str  # system, user, assistant, tool
    text: str
    call_id: str | None = None
    is_error: bool | None = None


class DriverSession(Protocol):
    hooks: FrameworkSession

    def turn(self, prompt: str, replies: Sequence[Reply]) -> list[list[Seen]]: ...

    def close(self) -> None: ...


class Driver(Protocol):
    framework: str
    flags_errors: bool

    def open(self, project: Path, tools: Tools, options: dict[str, Any]) -> DriverSession: ...


@dataclass(frozen=True)
class DeferredDriver:
    """A driver named by its module, imported when the scenario first plays (skipping without
    `requires`): a framework's import costs seconds, which every pytest worker would otherwise
    pay only to collect the test module. `module` is relative to this package."""

    framework: str
    flags_errors: bool
    requires: str
    module: str
    name: str

    def open(self, project: Path, tools: Tools, options: dict[str, Any]) -> DriverSession:
        pytest.importorskip(self.requires)
        driver: Driver = getattr(importlib.import_module(self.module, __package__), self.name)()
        return driver.open(project, tools, options)


class Tools:
    """The scenario's tools; `executed` is every call that really ran, with its input."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.executed: list[tuple[str, dict[str, Any]]] = []
        self.shell = self._shell()
        self.lookup = self._lookup()

    def _shell(self) -> Callable[[str], str]:
        def shell(cmd: str) -> str:
            """Run a shell command in the project folder."""
            self.executed.append(("shell", {"cmd": cmd}))
            done = subprocess.run(
                cmd, shell=True, cwd=self.cwd, capture_output=True, text=True, timeout=30
            )
            return (done.stdout + done.stderr).strip() or "(no output)"

        return shell

    def _lookup(self) -> Callable[[str], str]:
        def lookup(query: str) -> str:
            """Look something up."""
            self.executed.append(("lookup", {"query": query}))
            return "live: rainy"

        return lookup


# The project ------------------------------------------------------------------------------------

CC_HOOK = """\
import json, sys
data = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(data) + "\\n")
event = data["hook_event_name"]
def say(specific=None, **fields):
    if specific is not None:
        fields["hookSpecificOutput"] = {"hookEventName": event, **specific}
    print(json.dumps(fields))
    sys.exit(0)
command = str(data.get("tool_input", {}).get("command", ""))
if event == "SessionStart":
    say({"additionalContext": "SessionStart context: the build folder is precious"})
if event == "PreToolUse" and command.startswith("rm -rf"):
    say({"permissionDecision": "deny", "permissionDecisionReason": "__DENY__"})
if event == "PreToolUse" and command.startswith("deploy"):
    say({"permissionDecision": "ask", "permissionDecisionReason": "deploying needs a human"})
if event == "PostToolUse":
    say({"additionalContext": "PostToolUse context: checked " + command})
if event == "Stop" and "not finished" in data.get("last_assistant_message", ""):
    say(decision="block", reason="__STOP__")
""".replace("__DENY__", DENY_REASON).replace("__STOP__", STOP_REASON)

OH_HOOK = """\
import json, sys
data = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(data) + "\\n")
command = str(data.get("tool_input", {}).get("command", ""))
patch = None
if command.startswith("git push"):
    patch = {"command": "echo " + "dry-run: " + command}
if command.startswith("git tag"):
    patch = {"command": 12345}
if patch is not None:
    print(json.dumps({"hookSpecificOutput": {"patch": {"tool_input": patch}}}))
"""

PY_HOOK = """\
import json
from hookwright import add_context

def brief(inp):
    with open(__LOG__, "a") as log:
        log.write(json.dumps({"prompt": inp.payload.get("prompt")}) + "\\n")
    return add_context("Python hook context: answer briefly")
"""


@dataclass
class Project:
    root: Path
    logs: Path
    home: Path

    def log(self, name: str) -> list[dict[str, Any]]:
        path = self.logs / f"{name}.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def cc(self, event: str) -> list[dict[str, Any]]:
        """The stdin of every Claude Code hook run for `event`."""
        return [entry for entry in self.log("cc") if entry["hook_event_name"] == event]


def make_project(base: Path) -> Project:
    project = Project(base / "project", base / "logs", base / "home")
    for folder in (project.root / "build", project.logs, project.home):
        folder.mkdir(parents=True)
    hooks = project.root / "hooks"
    hooks.mkdir()
    (hooks / "cc_hook.py").write_text(CC_HOOK)
    (hooks / "oh_hook.py").write_text(OH_HOOK)
    _claude_code(project)
    _openharness(project)
    _picoclaw(project)
    _python(project)
    _skill(project)
    return project


def _claude_code(project: Project) -> None:
    command = f'"{sys.executable}" hooks/cc_hook.py "{project.logs / "cc.jsonl"}"'

    def entry(matcher: str | None = None) -> list[dict[str, Any]]:
        group: dict[str, Any] = {"hooks": [{"type": "command", "command": command}]}
        return [{"matcher": matcher, **group} if matcher is not None else group]

    hooks = {
        "SessionStart": entry(),
        "PreToolUse": entry("Bash"),
        "PostToolUse": entry("*"),
        "Stop": entry(),
        "SessionEnd": entry(),
    }
    write(project.root / ".claude" / "settings.json", json.dumps({"hooks": hooks}))


def _openharness(project: Project) -> None:
    command = f'"{sys.executable}" hooks/oh_hook.py "{project.logs / "oh.jsonl"}"'
    doc = {
        "name": "dry-run-push",
        "events": ["before_tool_dispatch"],
        "matcher": "Bash",
        "handler": {"type": "command", "command": command},
        "capabilities": ["rewrite_tool_request"],
    }
    write(project.root / ".openharness" / "hooks" / "dry-run-push.yaml", yaml.safe_dump(doc))


def _picoclaw(project: Project) -> None:
    respond = {
        "action": "respond",
        "result": {"for_llm": CACHED, "for_user": "It is sunny.", "silent": False},
    }
    veto = {"approved": False, "reason": VETO_REASON}
    approvals = [
        {"when": {"tool": "Bash", "arguments.command": "touch vetoed"}, "result": veto},
        {"result": {"approved": True}},
    ]
    spec = {
        "methods": {
            "hook.before_tool": [{"when": {"tool": "lookup"}, "result": respond}],
            "hook.approve_tool": approvals,
        }
    }
    process = {
        "command": [sys.executable, str(HOOKPROC)],
        "env": {
            "HOOKPROC_SPEC": json.dumps(spec),
            "HOOKPROC_LOG": str(project.logs / "pico.jsonl"),
        },
        "intercept": ["before_tool", "approve_tool"],
    }
    config = {"hooks": {"processes": {"cache": process}}}
    write(project.root / ".picoclaw" / "config.json", json.dumps(config))


def _python(project: Project) -> None:
    module = PY_HOOK.replace("__LOG__", repr(str(project.logs / "py.jsonl")))
    write(project.root / ".hookwright" / "prompt_hooks.py", module)
    hook = {"name": "brief", "event": "UserPromptSubmit", "call": "prompt_hooks:brief"}
    hooks = {"hooks": [hook]}
    write(project.root / ".hookwright" / "hooks.yaml", yaml.safe_dump(hooks))


def _skill(project: Project) -> None:
    folder = project.root / "skills" / SKILL / "hooks"
    write(folder / "style.md", SKILL_PROMPT)
    write(folder / "step.md", SKILL_STEP)
    hooks = [
        {
            "name": "style",
            "file": "style.md",
            "timing": "after_user_input",
            "role": "system",
            "persistent": False,
        },
        {
            "name": "step",
            "file": "step.md",
            "timing": "before_each_agent",
            "role": "system",
            "persistent": False,
        },
    ]
    write(folder / "hooks.json", json.dumps({"hooks": hooks}))


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def session_options(project: Project) -> dict[str, Any]:
    return {
        "skills": [SKILL],
        "home": project.home,
        "trust": TrustPolicy(everything=True),
        "tool_map": ToolMap([ToolAlias("shell", "Bash", {"cmd": "command"})]),
        "audit_path": project.logs / "audit.jsonl",
        "stop_block_cap": 2,
    }


# The conversation -------------------------------------------------------------------------------

MAIN = (
    Reply(
        "Cleaning up, then publishing.",
        (
            Call("c1", "shell", {"cmd": "rm -rf build"}),
            Call("c2", "shell", {"cmd": "git push origin main"}),
        ),
    ),
    Reply("", (Call("c3", "lookup", {"query": "weather"}),)),
    Reply("All done, but not finished."),
    Reply("Tests pass."),
)
CAPPED = tuple(Reply(f"still not finished ({n})") for n in (1, 2, 3))
GATES = (
    Reply(
        "Deploying.",
        (
            Call("c5", "shell", {"cmd": "touch deployed"}),
            Call("c6", "shell", {"cmd": "deploy now"}),
        ),
    ),
    Reply("Nothing was deployed."),
)
INVALID = (Reply("", (Call("c7", "shell", {"cmd": "git tag v1"}),)), Reply("Tagging failed."))
APPROVAL = (Reply("", (Call("c8", "shell", {"cmd": "touch vetoed"}),)), Reply("Not allowed."))


@dataclass
class ScenarioRun:
    """Everything the scenario observed, for the guarantees to assert on."""

    project: Project
    tools: Tools
    turns: dict[str, list[list[Seen]]]
    warnings: list[str] = field(default_factory=list)


def broken_gates(inp: HookInput) -> bool:
    """hookwright cannot run the PreToolUse hooks of ``touch deployed`` nor any
    PermissionRequest hooks."""
    if inp.event is Event.PermissionRequest:
        return True
    return inp.event is Event.PreToolUse and "touch" in str(inp.tool_input.get("command"))


@contextmanager
def broken_dispatch(hooks: FrameworkSession, when: Callable[[HookInput], bool]) -> Iterator[None]:
    engine = hooks.hooks.session.engine
    real = engine.dispatch

    async def dispatch(inp: HookInput, selected: Any = None) -> Any:
        if when(inp):
            raise RuntimeError("the engine is broken for this test")
        return await real(inp, selected)

    engine.dispatch = dispatch  # type: ignore[method-assign]
    try:
        yield
    finally:
        del engine.dispatch


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.texts: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.texts.append(record.getMessage())


def play(driver: Driver, base: Path) -> ScenarioRun:
    """Run the whole conversation once in one framework session, then close it."""
    project = make_project(base)
    tools = Tools(project.root)
    watcher = _Warnings()
    logger = logging.getLogger("hookwright")
    logger.addHandler(watcher)
    try:
        session = driver.open(project.root, tools, session_options(project))
        try:
            turns = {"main": session.turn("Tidy up and publish.", MAIN)}
            turns["capped"] = session.turn("Keep going.", CAPPED)
            with broken_dispatch(session.hooks, broken_gates):
                turns["gates"] = session.turn("Deploy.", GATES)
            turns["invalid"] = session.turn("Tag it.", INVALID)
            turns["approval"] = session.turn("Touch it.", APPROVAL)
        finally:
            session.close()
    finally:
        logger.removeHandler(watcher)
    return ScenarioRun(project, tools, turns, watcher.texts)


# The guarantees ---------------------------------------------------------------------------------


def result_of(call: list[Seen], call_id: str) -> Seen:
    [seen] = [m for m in call if m.role == "tool" and m.call_id == call_id]
    return seen


def text_of(call: list[Seen]) -> str:
    return "\n".join(m.text for m in call)


def ran(run: ScenarioRun, tool: str) -> list[dict[str, Any]]:
    return [args for name, args in run.tools.executed if name == tool]


class ConformanceScenario:
    """The guarantees; a framework's test class sets `driver` (see the module docstring), and
    `model_calls = False` when the framework has no model-call point of its own (a CLI that
    runs the agent loop)."""

    driver: ClassVar[Driver]
    model_calls: ClassVar[bool] = True

    def test_1_a_denied_call_never_runs_and_the_model_sees_the_reason(
        self, scenario: ScenarioRun
    ) -> None:
        assert (scenario.project.root / "build").is_dir()
        assert not [a for a in ran(scenario, "shell") if a["cmd"].startswith("rm")]
        denied = result_of(scenario.turns["main"][1], "c1")
        assert denied.text == DENY_REASON
        assert denied.is_error is (True if self.driver.flags_errors else None)

    def test_2_the_rewritten_input_is_what_runs(self, scenario: ScenarioRun) -> None:
        shells = [a["cmd"] for a in ran(scenario, "shell")]
        assert f"echo {DRY_RUN}" in shells
        assert "git push origin main" not in shells
        assert result_of(scenario.turns["main"][1], "c2").text == DRY_RUN
        [post] = [e for e in scenario.project.cc("PostToolUse") if e["tool_use_id"] == "c2"]
        assert post["tool_name"] == "Bash"
        assert post["tool_input"] == {"command": f"echo {DRY_RUN}"}
        [seen] = [e for e in scenario.project.log("oh") if "push" in json.dumps(e)]
        assert seen["tool_input"] == {"command": "git push origin main"}

    def test_2_a_rewrite_the_tool_schema_rejects_never_runs(self, scenario: ScenarioRun) -> None:
        assert not [a for a in ran(scenario, "shell") if a["cmd"] in (12345, "12345")]
        assert not [a for a in ran(scenario, "shell") if "tag" in str(a["cmd"])]
        rejected = result_of(scenario.turns["invalid"][1], "c7")
        assert rejected.text
        if self.driver.flags_errors:
            assert rejected.is_error is True

    def test_3_respond_answers_without_running(self, scenario: ScenarioRun) -> None:
        assert ran(scenario, "lookup") == []
        assert result_of(scenario.turns["main"][2], "c3").text == CACHED

    def test_4_post_tool_use_once_per_executed_call_only(self, scenario: ScenarioRun) -> None:
        posted = [e["tool_use_id"] for e in scenario.project.cc("PostToolUse")]
        assert [c for c in posted if c != "c7"] == ["c2"]
        pico = scenario.project.log("pico")
        after = [json.dumps(m["params"]) for m in pico if m.get("method") == "hook.after_tool"]
        assert len([a for a in after if "dry-run" in a]) == 1
        assert not [a for a in after if "weather" in a or "rm -rf" in a or "deploy" in a]
        before = [m["params"]["tool"] for m in pico if m.get("method") == "hook.before_tool"]
        assert "lookup" in before

    def test_5_context_reaches_the_next_model_call(self, scenario: ScenarioRun) -> None:
        first, second = scenario.turns["main"][0], scenario.turns["main"][1]
        assert "SessionStart context: the build folder is precious" in text_of(first)
        assert "Python hook context: answer briefly" in text_of(first)
        post = f"PostToolUse context: checked echo {DRY_RUN}"
        assert post not in text_of(first)
        assert post in text_of(second)

    def test_6_a_stop_block_continues_with_feedback_up_to_the_cap(
        self, scenario: ScenarioRun
    ) -> None:
        main = scenario.turns["main"]
        assert len(main) == 4
        assert f"Stop hook feedback:\n{STOP_REASON}" in text_of(main[3])
        assert f"Stop hook feedback:\n{STOP_REASON}" not in text_of(main[2])
        stops = [e["stop_hook_active"] for e in scenario.project.cc("Stop")]
        assert stops[:2] == [False, True]
        assert len(scenario.turns["capped"]) == 3
        assert stops[2:5] == [False, True, True]
        assert EXHAUSTED not in json.dumps([text_of(c) for c in scenario.turns["capped"]])

    def test_7_gates_fail_closed_when_hooks_cannot_run(self, scenario: ScenarioRun) -> None:
        assert not (scenario.project.root / "deployed").exists()
        assert not [a for a in ran(scenario, "shell") if "deploy" in a["cmd"]]
        after = scenario.turns["gates"][1]
        pre = result_of(after, "c5")
        assert "hookwright could not run the PreToolUse hooks" in pre.text
        permission = result_of(after, "c6")
        assert "hookwright could not run the PermissionRequest hooks" in permission.text

    def test_8_session_start_once_and_session_end_on_close(self, scenario: ScenarioRun) -> None:
        project = scenario.project
        assert [e["source"] for e in project.cc("SessionStart")] == ["startup"]
        assert len(project.cc("SessionEnd")) == 1
        prompts = [entry["prompt"] for entry in project.log("py")]
        assert prompts == ["Tidy up and publish.", "Keep going.", "Deploy.", "Tag it.", "Touch it."]

    def test_9_a_field_the_framework_cannot_express_is_reported(
        self, scenario: ScenarioRun
    ) -> None:
        assert any("for_user" in text for text in scenario.warnings)
        audit = scenario.project.log("audit")
        unexpressed = [r for r in audit if r["status"] == "unexpressed"]
        assert any("for_user" in r["reason"] for r in unexpressed)
        assert all(r["hook"] == self.driver.framework for r in unexpressed)

    def test_10_an_approval_gate_refuses_a_call_the_other_hooks_let_run(
        self, scenario: ScenarioRun
    ) -> None:
        assert not (scenario.project.root / "vetoed").exists()
        assert not [a for a in ran(scenario, "shell") if "vetoed" in a["cmd"]]
        refused = result_of(scenario.turns["approval"][1], "c8")
        assert refused.text == VETOED
        assert refused.is_error is (True if self.driver.flags_errors else None)
        pico = scenario.project.log("pico")
        asked = [m["params"] for m in pico if m.get("method") == "hook.approve_tool"]
        assert [a["arguments"] for a in asked if a["tool"] == "Bash"][-1] == {
            "command": "touch vetoed"
        }
        assert {"command": f"echo {DRY_RUN}"} in [a.get("arguments") for a in asked]

    def test_11_skill_prompt_hooks_reach_the_model(self, scenario: ScenarioRun) -> None:
        for name, calls in scenario.turns.items():
            for call in calls:
                assert SKILL_PROMPT in text_of(call), name
        steps = [SKILL_STEP in text_of(call) for call in scenario.turns["main"]]
        if self.model_calls:
            assert all(steps)
            return
        assert not any(steps)
        audit = scenario.project.log("audit")
        unexpressed = [r["reason"] for r in audit if r["status"] == "unexpressed"]
        assert any(f"{SKILL}/step (before_each_agent" in reason for reason in unexpressed)
        assert any(f"{SKILL}/step (before_each_agent" in text for text in scenario.warnings)
