"""The chat page (headless Chromium, as in test_page.py) on a project holding a Codex hook and
a Gemini CLI hook: each hook's note names its system (in its own colour), its file and its
event in its author's words; the model's tool results are each system's; the Codex hook
nobody reviewed is a notice naming the review it lacks."""

from __future__ import annotations

from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from tests.codex.both import CODEX_BLOCK, GEMINI_CONTEXT, codex_and_gemini_project

from hookwright.dialects.codex.layers import MANAGED_DIR_ENV
from hookwright.runtime.models.scripted import ScriptedModel

from .conftest import ServerFactory
from .test_page import colour_in_screenshot, send, texts, wait_idle

CODEX_TEAL = (15, 118, 110)
GEMINI_BLUE = (26, 86, 196)


def test_codex_and_gemini_hooks_show_their_system_file_and_event_on_the_page(
    browser: webdriver.Chrome,
    serve: ServerFactory,
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home, _ = codex_and_gemini_project(tmp_path)
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    monkeypatch.setenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", str(home / ".gemini/trustedFolders.json"))
    monkeypatch.setenv(MANAGED_DIR_ENV, str(tmp_path / "no-managed-codex"))
    turns = [
        {"tool_calls": [{"name": "Bash", "arguments": {"command": "rm -rf build"}}]},
        {"tool_calls": [{"name": "Bash", "arguments": {"command": "echo hi"}}]},
        {"content": "All done."},
    ]
    model = ScriptedModel.from_turns(turns)
    server = serve(model=lambda: model, trust=True, permission_mode="bypassPermissions")
    browser.set_window_size(1000, 1400)
    browser.get(server.http_url)
    send(browser, "clean up")
    wait_idle(browser, "All done.")

    labels = texts(browser, ".msg.note .label")
    assert "hook Codex .codex/hooks.json" in labels, labels
    assert "hook Gemini CLI .gemini/settings.json" in labels, labels
    bodies = texts(browser, ".msg.note .body")
    assert any(b.startswith("PreToolUse: command:") and "(codex: no deleting)" in b for b in bodies)
    assert "AfterTool (PostToolUse): check → rewrite output" in bodies, bodies
    [notice] = [b for b in bodies if "not reviewed in Codex" in b]
    assert "hook 'command:touch unreviewed-ran.txt" in notice
    assert 'pre_tool_use:1:0"] trusted_hash = "sha256:' in notice
    results = "\n".join(texts(browser, ".msg.tool .body"))
    assert CODEX_BLOCK in results and GEMINI_CONTEXT.strip() in results
    assert (project / "build" / "out.txt").exists()
    assert not (project / "unreviewed-ran.txt").exists()

    [codex] = browser.find_elements(By.CSS_SELECTOR, ".badge.system-codex")
    [gemini] = browser.find_elements(By.CSS_SELECTOR, ".badge.system-gemini-cli")
    screenshot = tmp_path / "systems.png"
    assert browser.save_screenshot(str(screenshot))
    png = screenshot.read_bytes()
    assert colour_in_screenshot(browser, png, codex, CODEX_TEAL) > 20, "Codex badge"
    assert colour_in_screenshot(browser, png, gemini, GEMINI_BLUE) > 20, "Gemini CLI badge"
    assert colour_in_screenshot(browser, png, codex, GEMINI_BLUE) == 0
