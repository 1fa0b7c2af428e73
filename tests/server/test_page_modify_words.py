"""A PicoClaw `modify` on the page in headless Chromium, as the terminal says it: the hook's
note reads `modify (rewrite input)` on before_tool and `modify (rewrite output)` on
after_tool; the tool ran the rewritten command and the model was sent the rewritten output."""

from __future__ import annotations

from pathlib import Path

from selenium import webdriver

from hook_programs import write_picoclaw_modify
from hookwright.runtime.models.scripted import ScriptedModel

from .conftest import ServerFactory
from .test_page import send, texts, wait_idle
from .test_server import call


def test_the_page_says_modify_rewrite_input_and_rewrite_output(
    browser: webdriver.Chrome, serve: ServerFactory, project: Path
) -> None:
    write_picoclaw_modify(project)
    model = ScriptedModel.from_turns(
        [
            {"tool_calls": [call("Bash", command="touch made")]},
            {"tool_calls": [call("Bash", command="echo hi")]},
            {"content": "All done."},
        ]
    )
    server = serve(model=lambda: model, trust=True, permission_mode="bypassPermissions")
    browser.get(server.http_url)
    send(browser, "go")
    wait_idle(browser, "All done.")
    notes = texts(browser, ".msg.note.decision-rewrite-input .body")
    assert notes == ["before_tool (PreToolUse): rewriter → modify (rewrite input)"], notes
    notes = texts(browser, ".msg.note.decision-rewrite-output .body")
    assert notes == ["after_tool (PostToolUse): rewriter → modify (rewrite output)"], notes
    assert (project / "made-by-hook").exists() and not (project / "made").exists()
    sent = [m["content"] for m in model.calls[-1].messages if m.get("role") == "tool"]
    assert sent[-1] == "hook-rewrote-this", sent
    assert "hook-rewrote-this" in "\n".join(texts(browser, ".msg.tool .body"))
