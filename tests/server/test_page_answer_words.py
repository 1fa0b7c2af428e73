"""The page is told a decision in the word the hook answered, where its system spells it two
ways, as the terminal says it: a Gemini CLI BeforeTool `decision: "block"` is `block (deny)`
beside a `"deny"`'s `deny`; through a real server on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

from hook_programs import write_gemini_words
from hookwright.runtime.models.scripted import ScriptedModel

from .conftest import ServerFactory
from .test_server import call, client, of_type


def test_the_page_says_a_gemini_block_and_deny_as_answered(
    serve: ServerFactory, project: Path, isolated_home: Path
) -> None:
    write_gemini_words(project, isolated_home)
    (project / "kept").write_text("kept")
    model = ScriptedModel.from_turns(
        [
            {"tool_calls": [call("Bash", command="rm kept")]},
            {"tool_calls": [call("Bash", command="rm block kept")]},
            {"content": "ok"},
        ]
    )
    server = serve(model=lambda: model, trust=True)
    with client(server) as ws:
        frames = ws.chat("go", [])
    said = [(f["event_words"], f["effect_words"]) for f in of_type(frames, "hook_result")]
    before = "BeforeTool (PreToolUse)"
    assert said == [(before, "deny"), (before, "block (deny)")], frames
    assert (project / "kept").read_text() == "kept"
