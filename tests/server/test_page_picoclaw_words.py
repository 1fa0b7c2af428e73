"""The page is told a PicoClaw hook's decision in PicoClaw's own word for its method, as the
terminal says it: a before_tool `deny_tool` is `deny_tool (deny)`, an approve_tool
`"approved": false` is `not approved (deny)`, a `respond` is `respond` and an `abort_turn`
`abort_turn (abort)`; through a real server on 127.0.0.1."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hook_programs import PICOCLAW_ANSWERS, write_picoclaw_gate
from hookwright.runtime.models.scripted import ScriptedModel

from .conftest import ServerFactory
from .test_server import call, client, of_type


def test_the_page_says_deny_tool_and_not_approved(serve: ServerFactory, project: Path) -> None:
    write_picoclaw_gate(project)
    model = ScriptedModel.from_turns(
        [
            {"tool_calls": [call("Bash", command="rm -rf build")]},
            {"tool_calls": [call("Bash", command="touch made")]},
            {"content": "ok"},
        ]
    )
    server = serve(model=lambda: model, trust=True)
    with client(server) as ws:
        frames = ws.chat("go", [])
    said = {(f["hook"], f["effect_words"]) for f in of_type(frames, "hook_result")}
    assert {("gate", "deny_tool (deny)"), ("approver", "not approved (deny)")} <= said, frames
    assert not (project / "made").exists()


def test_the_page_says_respond_and_abort_turn(serve: ServerFactory, project: Path) -> None:
    (project / ".picoclaw").mkdir()
    (project / "answers.py").write_text(PICOCLAW_ANSWERS)
    gate = {"command": [sys.executable, str(project / "answers.py")], "intercept": ["before_tool"]}
    config = {"hooks": {"processes": {"gate": gate}}}
    (project / ".picoclaw" / "config.json").write_text(json.dumps(config))
    model = ScriptedModel.from_turns(
        [
            {"tool_calls": [call("Bash", command="echo hi")]},
            {"tool_calls": [call("Bash", command="rm -rf build")]},
            {"content": "ok"},
        ]
    )
    server = serve(model=lambda: model, trust=True)
    with client(server) as ws:
        frames = ws.chat("go", [])
    said = [(f["hook"], f["effect_words"]) for f in of_type(frames, "hook_result")]
    assert said == [("gate", "respond"), ("gate", "abort_turn (abort)")], frames
    [result] = of_type(frames, "tool_result")
    assert result["content"] == "hook-responded"  # the hook's answer stood in for the tool's
