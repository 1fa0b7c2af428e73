"""A project's Codex and Gemini CLI hooks inside a framework: pydantic-ai with its own
`FunctionModel`, the host's `shell(cmd)` tool seen by hooks as `Bash(command)`. The Codex guard
keeps the tool from running and the model reads Codex's wording; the Gemini hook's context
follows the tool's output as Gemini places it; the Codex hook nobody reviewed does not run,
and the session says so, naming the review that is missing."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from tests.codex.both import (
    CODEX_BLOCK,
    GEMINI_CONTEXT,
    codex_and_gemini_project,
    gemini_stdin,
    review_entry,
)

from hookwright.config.trust import TrustPolicy
from hookwright.dialects.codex.layers import MANAGED_DIR_ENV
from hookwright.host import ToolAlias, ToolMap

from .scenario import Call, Reply, Tools


@pytest.fixture(scope="module")
def kit() -> ModuleType:
    """The pydantic-ai side (pydantic_ai_kit), imported when the test runs, not when collected."""
    pytest.importorskip("pydantic_ai")
    from . import pydantic_ai_kit

    return pydantic_ai_kit


async def test_codex_and_gemini_hooks_govern_a_pydantic_ai_agent(
    kit: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MANAGED_DIR_ENV, str(tmp_path / "no-managed-codex"))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    home, project = codex_and_gemini_project(tmp_path)
    tools = Tools(project)
    script = kit.ScriptedFunction(
        [
            Reply("", (Call("c1", "shell", {"cmd": "rm -rf build"}),)),
            Reply("", (Call("c2", "shell", {"cmd": "echo hi"}),)),
            Reply("done"),
        ]
    )
    options = {
        "home": home,
        "trust": TrustPolicy(everything=True),
        "tool_map": ToolMap([ToolAlias("shell", "Bash", {"cmd": "command"})]),
        "audit_path": tmp_path / "audit.jsonl",
    }
    async with kit.PydanticAIHooks.open(project, **options) as capability:
        skipped = [(item.hook.dialect, item.detail or "") for item in capability.session.skipped]
        agent = kit.Agent(
            kit.FunctionModel(script), tools=[kit.Tool(tools.shell)], capabilities=[capability]
        )
        assert (await agent.run("clean up")).output == "done"

    assert tools.executed == [("shell", {"cmd": "echo hi"})]
    assert (project / "build" / "out.txt").exists()
    assert not (project / "unreviewed-ran.txt").exists()
    returned = [m.text for m in kit.seen(script.received[-1]) if m.role == "tool"]
    assert returned == [CODEX_BLOCK, "hi" + GEMINI_CONTEXT]
    [seen_by_gemini] = gemini_stdin(project)
    assert seen_by_gemini["tool_name"] == "run_shell_command"
    assert seen_by_gemini["tool_input"] == {"command": "echo hi"}
    [(dialect, why)] = skipped
    assert dialect == "codex" and "not reviewed in Codex" in why
    assert review_entry(project) in why
