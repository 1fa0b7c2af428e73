"""Permission prompts answered in the chat page (headless Chromium): Allow runs the call, Deny
keeps it from running and the model gets the deny text, no answer in time denies, and a page
that goes away cancels the turn without running the call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from bounds import eventually
from hookwright.runtime.models.scripted import ScriptedModel

from .conftest import ServerFactory
from .test_page import WAIT, send, texts, wait_idle

RECORDER = """
from pathlib import Path
from hookwright import ask
def asks(inp):
    return ask('this writes a file in the project')
def ended(inp):
    (Path(__file__).parent / 'ended.txt').write_text(inp.payload.get('reason', ''))
"""
HOOKS = """hooks:
  - {name: confirm-writes, event: PreToolUse, matcher: Bash, if: 'Bash(touch *)', call: 'rec:asks'}
  - {name: ended, event: SessionEnd, call: 'rec:ended'}
"""


def touching_turns() -> list[dict[str, Any]]:
    return [
        {"tool_calls": [{"name": "Bash", "arguments": {"command": "touch made.txt && echo made"}}]},
        {"content": "Finished."},
    ]


def asking_project(project: Path) -> Path:
    hooks = project / ".hookwright"
    hooks.mkdir()
    (hooks / "rec.py").write_text(RECORDER)
    (hooks / "hooks.yaml").write_text(HOOKS)
    return project


def prompt(driver: webdriver.Chrome) -> WebElement:
    WebDriverWait(driver, WAIT).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, ".msg.permission .answers button")
    )
    [element] = driver.find_elements(By.CSS_SELECTOR, ".msg.permission")
    return element


def tool_results(model: ScriptedModel) -> list[dict[str, Any]]:
    return [m for m in model.calls[-1].messages if m.get("role") == "tool"]


def test_allow_in_the_page_runs_the_call(
    browser: webdriver.Chrome,
    serve: ServerFactory,
    project: Path,
) -> None:
    asking_project(project)
    model = ScriptedModel.from_turns(touching_turns())
    server = serve(model=lambda: model, trust=True)
    browser.get(server.http_url)
    send(browser, "make the file")
    shown = prompt(browser)
    assert shown.find_element(By.CLASS_NAME, "label").text == "permission needed: Bash"
    body = shown.find_element(By.CLASS_NAME, "body").text
    assert json.loads(body.splitlines()[0]) == {"command": "touch made.txt && echo made"}
    assert body.splitlines()[1] == "this writes a file in the project"
    assert not (project / "made.txt").exists(), "nothing runs before the answer"
    shown.find_element(By.CSS_SELECTOR, "button.allow").click()
    wait_idle(browser, "Finished.")
    assert (project / "made.txt").exists()
    [result] = tool_results(model)
    assert result["content"] == "made" and not result.get("is_error")
    assert shown.find_elements(By.CSS_SELECTOR, "button") == []
    assert shown.find_element(By.CLASS_NAME, "body").text.endswith("→ allowed")
    assert "allowed" in shown.get_attribute("class")


def test_deny_in_the_page_keeps_the_call_from_running(
    browser: webdriver.Chrome,
    serve: ServerFactory,
    project: Path,
) -> None:
    asking_project(project)
    model = ScriptedModel.from_turns(touching_turns())
    server = serve(model=lambda: model, trust=True)
    browser.get(server.http_url)
    send(browser, "make the file")
    prompt(browser).find_element(By.CSS_SELECTOR, "button.deny").click()
    wait_idle(browser, "Finished.")
    assert not (project / "made.txt").exists()
    [result] = tool_results(model)
    assert result["content"] == "Permission to use Bash was denied by the user."
    assert result["is_error"] is True
    assert texts(browser, ".msg.permission.denied .body")[0].endswith("→ denied")
    assert "Permission to use Bash was denied by the user." in texts(
        browser, ".msg.tool.failed .body"
    )
    browser.refresh()
    wait_idle(browser, "Finished.")
    assert texts(browser, ".msg.permission.denied .body")[0].endswith("→ denied"), "kept"


def test_rule_asks_show_the_rule_as_the_reason(
    browser: webdriver.Chrome,
    serve: ServerFactory,
    project: Path,
) -> None:
    """No hook: the default mode asks before Bash, as the terminal does."""
    model = ScriptedModel.from_turns(touching_turns())
    server = serve(model=lambda: model, trust=True)
    browser.get(server.http_url)
    send(browser, "make the file")
    shown = prompt(browser)
    assert shown.find_element(By.CLASS_NAME, "body").text.splitlines()[1] == (
        "Bash needs permission"
    )
    shown.find_element(By.CSS_SELECTOR, "button.allow").click()
    wait_idle(browser, "Finished.")
    assert (project / "made.txt").exists()


def test_no_answer_in_time_denies(
    browser: webdriver.Chrome,
    serve: ServerFactory,
    project: Path,
) -> None:
    asking_project(project)
    model = ScriptedModel.from_turns(touching_turns())
    server = serve(model=lambda: model, trust=True, permission_timeout=1.0)
    browser.get(server.http_url)
    send(browser, "make the file")
    wait_idle(browser, "Finished.")
    assert not (project / "made.txt").exists()
    [result] = tool_results(model)
    assert result["content"] == "Permission to use Bash was denied by the user."
    [body] = texts(browser, ".msg.permission.denied .body")
    assert body.endswith("→ denied: no answer in time")
    assert "Bash: no answer within 1 s; denied" in texts(browser, ".msg.note .body")
    assert browser.find_elements(By.CSS_SELECTOR, ".msg.permission button") == []


def test_a_page_that_goes_away_cancels_the_turn_and_nothing_runs(
    browser: webdriver.Chrome,
    serve: ServerFactory,
    project: Path,
) -> None:
    asking_project(project)
    model = ScriptedModel.from_turns(touching_turns())
    server = serve(model=lambda: model, trust=True)
    browser.get(server.http_url)
    send(browser, "make the file")
    prompt(browser)
    browser.get("about:blank")
    ended = project / ".hookwright" / "ended.txt"
    assert eventually(ended.exists, within=WAIT), "the turn did not hang on the prompt"
    assert not (project / "made.txt").exists()
    assert len(model.calls) == 1, "no model request after the prompt"
