"""Two sessions in one process never share services: each session's prompt and agent hooks ask
its own model, its async hooks deliver into its own context and audit, and its hook processes
run on its own I/O loop (the engine's `Services`)."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hookwright import Event, HookEngine, HookInput
from hookwright.config.loading import LoadContext
from hookwright.config.trust import TrustPolicy
from hookwright.dialects import picoclaw
from hookwright.dialects.claude_code.loader import discover
from hookwright.engine.services import Services
from hookwright.runtime.models.scripted import ScriptedModel
from hookwright.runtime.opening import SessionOptions, SessionSetup, open_session
from hookwright.transports.ioloop import IoLoop

WAIT = 20.0


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def user_prompts(model: ScriptedModel) -> list[str]:
    """The texts of the hook calls: one user message, no tools."""
    return [
        str(c.messages[0]["content"])
        for c in model.calls
        if c.tools is None and len(c.messages) == 1 and c.messages[0]["role"] == "user"
    ]


def tool_results(model: ScriptedModel, index: int) -> list[str]:
    return [str(m["content"]) for m in model.calls[index].messages if m["role"] == "tool"]


async def until(predicate: Callable[[], bool], timeout: float = WAIT) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


async def close(setup: SessionSetup) -> None:
    try:
        await setup.agent.close("other")
    finally:
        await setup.engine.aclose()


# Prompt hooks ask their own session's model ----------------------------------------------------


def guarded_project(root: Path, name: str) -> Path:
    """A Claude Code prompt hook on Bash and an OpenHarness prompt hook on Write."""
    hook = {"type": "prompt", "prompt": f"Guard {name}: $ARGUMENTS", "continueOnBlock": True}
    write_json(
        root / ".claude" / "settings.json",
        {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}},
    )
    review = {
        "name": "review",
        "events": ["before_tool_dispatch"],
        "matcher": "Write",
        "handler": {"type": "prompt", "prompt": {"inline": f"OpenHarness guard {name}."}},
    }
    write_json(root / ".openharness" / "hooks" / "review.yaml", review)
    return root


def guard_script(name: str) -> ScriptedModel:
    """The agent's turns interleaved with the answers the session's hooks get."""
    return ScriptedModel.from_turns(
        [
            {"tool_calls": [call("Bash", command=f"echo {name} > {name}-bash.txt")]},
            {"content": json.dumps({"ok": False, "reason": f"{name}: no shell"})},
            {"tool_calls": [call("Write", file_path=f"{name}-write.txt", content=name)]},
            {"content": json.dumps({"decision": "block", "reason": f"{name}: no writes"})},
            {"content": f"{name} done"},
            {"tool_calls": [call("Bash", command=f"echo {name} > {name}-again.txt")]},
            {"content": json.dumps({"ok": False, "reason": f"{name}: still no shell"})},
            {"content": f"{name} done again"},
        ]
    )


async def test_each_sessions_prompt_hooks_ask_its_own_model(
    tmp_path: Path, isolated_home: Path
) -> None:
    projects = {n: guarded_project(tmp_path / n, n) for n in ("A", "B")}
    models = {n: guard_script(n) for n in projects}
    setups = {
        n: await open_session(
            SessionOptions(
                projects[n],
                home=isolated_home,
                model=models[n],
                trust=True,
                permission_mode="bypassPermissions",
            )
        )
        for n in projects
    }
    a, b = setups["A"], setups["B"]
    assert a.engine.services.evaluator is not b.engine.services.evaluator
    try:
        results = await asyncio.gather(a.agent.run("go A"), b.agent.run("go B"))
        assert [r.final_text for r in results] == ["A done", "B done"]
        for name, model in models.items():
            other = other_name(name)
            prompts = user_prompts(model)
            assert [p.split(":", 1)[0].split(".", 1)[0] for p in prompts] == [
                f"Guard {name}",
                f"OpenHarness guard {name}",
            ]
            assert f"echo {name} > {name}-bash.txt" in prompts[0]
            assert f"{name}-write.txt" in prompts[1]
            assert all(str(projects[name]) in p for p in prompts)
            assert not any(str(projects[other]) in p for p in prompts)
            assert not any(setups[other].agent.session_id in p for p in prompts)
            assert f"{name}: no shell" in tool_results(model, 2)[0]
            assert f"{name}: no writes" in tool_results(model, 4)[1]
            assert not (projects[name] / f"{name}-bash.txt").exists()
            assert not (projects[name] / f"{name}-write.txt").exists()
        await close(a)
        again = await b.agent.run("again B")
        assert again.final_text == "B done again"
        assert user_prompts(models["B"])[-1].startswith("Guard B: ")
        assert "B: still no shell" in tool_results(models["B"], 7)[-1]
        assert not (projects["B"] / "B-again.txt").exists(), "B's guard failed open"
        assert len(models["A"].calls) == 5, "A's model was asked after A closed"
    finally:
        await close(a)
        await close(b)


async def test_a_prompt_hook_without_a_model_fails_open_with_an_error(tmp_path: Path) -> None:
    """A bare engine has no model: the dialect's unavailable-model rule, never another's."""
    project = guarded_project(tmp_path / "A", "A")
    engine = HookEngine(audit_path=None)
    try:
        discovery = discover(LoadContext(project, tmp_path / "home"))
        for spec in discovery.bind(TrustPolicy(everything=True)).specs:
            engine.register(spec)
        inp = HookInput(
            Event.PreToolUse,
            session_id="s",
            payload={"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t"},
        )
        verdict = await engine.dispatch(inp)
        assert verdict.decision is None
        [result] = verdict.results
        assert result.error == "no model configured for prompt hooks"
    finally:
        await engine.aclose()


# Async hooks deliver into their own session ---------------------------------------------------


def async_project(root: Path, name: str) -> Path:
    """An async UserPromptSubmit hook that reports the session it saw, and an asyncRewake hook
    that exits 2."""
    script = root / "hooks" / "report.py"
    script.parent.mkdir(parents=True)
    script.write_text(
        "import json, sys\n"
        "data = json.load(sys.stdin)\n"
        "out = {'hookSpecificOutput': {'hookEventName': 'UserPromptSubmit',\n"
        f"    'additionalContext': '{name}-async saw ' + data['session_id']}}}}\n"
        "print(json.dumps(out))\n"
    )
    wake = root / "hooks" / "wake.py"
    wake.write_text(
        f"import sys\nsys.stdin.read()\nprint('{name}-rewake', file=sys.stderr)\nsys.exit(2)\n"
    )
    hooks = [
        {"type": "command", "command": f"{sys.executable} {script}", "async": True},
        {"type": "command", "command": f"{sys.executable} {wake}", "asyncRewake": True},
    ]
    write_json(
        root / ".claude" / "settings.json", {"hooks": {"UserPromptSubmit": [{"hooks": hooks}]}}
    )
    return root


def audit_records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_async_hooks_deliver_into_their_own_sessions_context_and_audit(
    tmp_path: Path, isolated_home: Path
) -> None:
    loop = asyncio.get_running_loop()
    names = ("A", "B")
    models = {
        n: ScriptedModel.from_turns([{"content": f"{n} 1"}, {"content": f"{n} 2"}]) for n in names
    }
    audits = {n: tmp_path / f"audit-{n}.jsonl" for n in names}
    setups = {
        n: await open_session(
            SessionOptions(
                async_project(tmp_path / n, n),
                home=isolated_home,
                model=models[n],
                trust=True,
                engine=HookEngine(audit_path=audits[n], services=Services(io=IoLoop(loop))),
            )
        )
        for n in names
    }
    a, b = setups["A"], setups["B"]
    assert a.engine.services.inbox is not b.engine.services.inbox
    try:
        await asyncio.gather(a.agent.run("first A"), b.agent.run("first B"))
        for setup in setups.values():
            assert await setup.engine.services.inbox.wait(WAIT)
        await asyncio.gather(a.agent.run("second A"), b.agent.run("second B"))
        for setup in setups.values():
            assert await setup.engine.services.inbox.wait(WAIT)
        for name, setup in setups.items():
            other = other_name(name)
            sid = setup.agent.session_id
            sent = str(models[name].calls[1].messages[-1]["content"])
            assert f"{name}-async saw {sid}" in sent
            assert f"{name}-rewake" in sent
            assert setups[other].agent.session_id not in sent
            assert f"{other}-async" not in sent and f"{other}-rewake" not in sent
            history = setup.engine.services.inbox.history
            assert len(history) == 4 and {d.session_id for d in history} == {sid}
            setup.engine.audit.flush()
            ids = {r["session_id"] for r in audit_records(audits[name])}
            assert ids == {sid}, f"{name}'s audit has another session's records"
    finally:
        await close(a)
        await close(b)


def other_name(name: str) -> str:
    return "B" if name == "A" else "A"


# PicoClaw hook processes run on their own session's I/O loop ----------------------------------

PROCESS = r"""
import json, os, sys

name, log = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    message = json.loads(line)
    with open(log, "a") as fh:
        fh.write(line)
    if "id" not in message:
        continue
    result = {}
    if message["method"] == "hook.before_tool":
        text = f"{name} process {os.getpid()} answered {message['params']['arguments']}"
        result = {"action": "respond", "result": {"for_llm": text, "silent": False}}
    reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
"""


def picoclaw_project(root: Path, name: str, script: Path) -> Path:
    log = root / "process.jsonl"
    process = {
        "command": [sys.executable, str(script), name, str(log)],
        "intercept": ["before_tool"],
        "observe": ["agent.turn.start"],
        "protocol": "current",
    }
    write_json(root / ".picoclaw" / "config.json", {"hooks": {"processes": {"guard": process}}})
    return root


def logged(root: Path, method: str) -> list[dict[str, Any]]:
    path = root / "process.jsonl"
    if not path.exists():
        return []
    messages = [json.loads(line) for line in path.read_text().splitlines()]
    return [m["params"] for m in messages if m.get("method") == method]


def turn_messages(root: Path) -> list[str]:
    return [p["payload"]["UserMessage"] for p in logged(root, "hook.runtime_event")]


class SessionThread:
    """One session on its own event loop in its own thread (as `asyncio.run` per request)."""

    def __init__(self, name: str, project: Path, home: Path, turns: int) -> None:
        self.name = name
        self.project = project
        self.home = home
        self.model = ScriptedModel.from_turns(
            [
                turn
                for n in range(turns)
                for turn in (
                    {"tool_calls": [call("Bash", command=f"touch {name}-{n}.txt")]},
                    {"content": f"{name} turn {n} done"},
                )
            ]
        )
        self.go = [threading.Event() for _ in range(turns)]
        self.ran = [threading.Event() for _ in range(turns)]
        self.opened = threading.Event()
        self.pids: list[int | None] = []
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._main, name=f"session-{name}")

    def _main(self) -> None:
        try:
            asyncio.run(self._session())
        except BaseException as exc:
            self.error = exc
            self.opened.set()
            for event in self.ran:
                event.set()

    async def _session(self) -> None:
        setup = await open_session(
            SessionOptions(
                self.project,
                home=self.home,
                model=self.model,
                trust=True,
                permission_mode="bypassPermissions",
            )
        )
        try:
            self.opened.set()
            for n, (go, ran) in enumerate(zip(self.go, self.ran, strict=True)):
                await asyncio.to_thread(go.wait, WAIT)
                result = await setup.agent.run(f"{self.name} turn {n}")
                assert result.final_text == f"{self.name} turn {n} done"
                observed = f"{self.name} turn {n}"
                assert await until(lambda seen=observed: seen in turn_messages(self.project))
                [process] = picoclaw.registered_processes(setup.engine)
                self.pids.append(process.rpc.pid)
                ran.set()
        finally:
            await close(setup)


async def test_picoclaw_processes_of_two_sessions_use_their_own_loops(
    tmp_path: Path, isolated_home: Path
) -> None:
    script = tmp_path / "process.py"
    script.write_text(PROCESS)
    a = SessionThread("A", picoclaw_project(tmp_path / "A", "A", script), isolated_home, 1)
    b = SessionThread("B", picoclaw_project(tmp_path / "B", "B", script), isolated_home, 2)
    try:
        for session in (b, a):
            session.thread.start()
            assert await asyncio.to_thread(session.opened.wait, WAIT)
        a.go[0].set()
        b.go[0].set()
        for event in (a.ran[0], b.ran[0]):
            assert await asyncio.to_thread(event.wait, WAIT)
        await asyncio.to_thread(a.thread.join, WAIT)
        assert not a.thread.is_alive() and a.error is None, a.error
        b.go[1].set()
        assert await asyncio.to_thread(b.ran[1].wait, WAIT)
    finally:
        for session in (a, b):
            for event in session.go:
                event.set()
            if session.thread.is_alive():
                await asyncio.to_thread(session.thread.join, WAIT)
    assert a.error is None and b.error is None, a.error or b.error
    for session, turns in ((a, 1), (b, 2)):
        name = session.name
        other = other_name(name)
        answered = [p["arguments"]["command"] for p in logged(session.project, "hook.before_tool")]
        assert answered == [f"touch {name}-{n}.txt" for n in range(turns)]
        assert turn_messages(session.project) == [f"{name} turn {n}" for n in range(turns)]
        for n in range(turns):
            result = tool_results(session.model, 2 * n + 1)[-1]
            pid = session.pids[n]
            assert result.startswith(f"{name} process {pid} answered")
            assert other not in result
            assert not (session.project / f"{name}-{n}.txt").exists(), "the tool ran"
    assert b.pids[0] == b.pids[1], "B's process was restarted when A closed"
