"""MCP elicitation requests answered in the chat page (headless Chromium), with a real MCP
server (the official SDK) whose tools elicit: the page builds the form from the requested
schema, an answer the server-side check refuses is shown in the page and never reaches the MCP
server, Accept sends exactly the form's content, Decline declines, and a URL request shows the
URL as a link. The Notification and ElicitationResult hooks fire as in the terminal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select, WebDriverWait

from bounds import eventually
from hookwright.runtime.models.scripted import ScriptedModel

from .conftest import ServerFactory
from .elicitation_project import calling, elicitation_project, hook_events, lines
from .test_page import WAIT, send, texts, wait_idle


def prompt(driver: webdriver.Chrome) -> WebElement:
    WebDriverWait(driver, WAIT).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, ".msg.elicitation .answers button")
    )
    [element] = driver.find_elements(By.CSS_SELECTOR, ".msg.elicitation")
    return element


def tool_result_text(model: ScriptedModel) -> str:
    [result] = [m for m in model.calls[-1].messages if m.get("role") == "tool"]
    content = result["content"]
    return content if isinstance(content, str) else "".join(b["text"] for b in content)


def field(shown: WebElement, name: str) -> WebElement:
    return shown.find_element(By.CSS_SELECTOR, f"[name='{name}']")


def serve_project(serve: ServerFactory, project: Path, tool: str) -> tuple[Any, ScriptedModel]:
    elicitation_project(project)
    model = ScriptedModel.from_turns(calling(tool))
    server = serve(model=lambda: model, trust=True, permission_mode="bypassPermissions")
    return server, model


def test_accept_sends_the_form_content_after_the_server_side_check(
    browser: webdriver.Chrome,
    serve: ServerFactory,
    project: Path,
) -> None:
    server, model = serve_project(serve, project, "profile")
    browser.get(server.http_url)
    send(browser, "fill in my profile")
    shown = prompt(browser)
    assert shown.find_element(By.CLASS_NAME, "label").text == "MCP server forms asks"
    assert shown.find_element(By.CLASS_NAME, "body").text == "Tell me about you"
    titles = [
        label.find_element(By.CLASS_NAME, "field-title").text
        + "".join(mark.text for mark in label.find_elements(By.CLASS_NAME, "required"))
        for label in shown.find_elements(By.CSS_SELECTOR, ".field")
    ]
    assert titles == ["Name*", "Age*", "Height (m)", "Subscribe", "Favourite colour*", "Topics"]
    assert field(shown, "age").get_attribute("type") == "number"
    assert field(shown, "subscribed").get_attribute("type") == "checkbox"
    assert field(shown, "height").get_attribute("value") == "1.5", "the schema's default"
    colours = Select(field(shown, "color"))
    assert [o.text for o in colours.options] == ["red", "green", "blue"]
    assert hook_events(project) == [
        ("Elicitation", ""),
        ("Notification", "elicitation_dialog"),
    ], "the dialog notification fires before the page asks"

    field(shown, "name").send_keys("Ada")
    field(shown, "age").send_keys("2.5")
    shown.find_element(By.CSS_SELECTOR, "button.accept").click()
    problem = shown.find_element(By.CLASS_NAME, "problem")
    WebDriverWait(browser, WAIT).until(lambda d: problem.text)
    assert problem.text == "age: expected an integer, got number 2.5"
    assert lines(project / "calls.jsonl") == [], "a refused answer never reaches the server"
    assert shown.find_element(By.CSS_SELECTOR, "button.accept").is_enabled()

    field(shown, "age").clear()
    field(shown, "age").send_keys("41")
    field(shown, "subscribed").click()
    colours.select_by_visible_text("blue")
    topics = Select(field(shown, "topics"))
    assert topics.is_multiple and [o.text for o in topics.options] == ["docs", "tests", "ci"]
    topics.select_by_visible_text("docs")
    topics.select_by_visible_text("ci")
    shown.find_element(By.CSS_SELECTOR, "button.accept").click()
    wait_idle(browser, "Finished.")
    sent = {
        "name": "Ada",
        "age": 41,
        "height": 1.5,
        "subscribed": True,
        "color": "blue",
        "topics": ["docs", "ci"],
    }
    assert lines(project / "calls.jsonl") == [{"tool": "profile", "action": "accept", "data": sent}]
    assert tool_result_text(model) == f"profile:accept:{json.dumps(sent, sort_keys=True)}"
    [result] = [
        e for e in lines(project / "hooks.jsonl") if e["hook_event_name"] == "ElicitationResult"
    ]
    assert (result["mcp_server_name"], result["action"], result["content"]) == (
        "forms",
        "accept",
        sent,
    )
    assert hook_events(project) == [
        ("Elicitation", ""),
        ("Notification", "elicitation_dialog"),
        ("ElicitationResult", ""),
        ("PostToolUse", "mcp__forms__profile"),
        ("Notification", "elicitation_response"),
        ("SessionEnd", ""),
    ]
    assert shown.find_element(By.CLASS_NAME, "body").text.endswith("→ accepted")
    assert shown.find_elements(By.CSS_SELECTOR, "button, input, select") == []


def test_decline_in_the_page_declines(
    browser: webdriver.Chrome,
    serve: ServerFactory,
    project: Path,
) -> None:
    server, model = serve_project(serve, project, "profile")
    browser.get(server.http_url)
    send(browser, "fill in my profile")
    prompt(browser).find_element(By.CSS_SELECTOR, "button.decline").click()
    wait_idle(browser, "Finished.")
    assert lines(project / "calls.jsonl") == [
        {"tool": "profile", "action": "decline", "data": None}
    ]
    assert tool_result_text(model) == "profile:decline:null"
    [result] = [
        e for e in lines(project / "hooks.jsonl") if e["hook_event_name"] == "ElicitationResult"
    ]
    assert result["action"] == "decline" and "content" not in result
    assert texts(browser, ".msg.elicitation .body")[0].endswith("→ declined")


def test_a_url_request_shows_the_url_as_a_link(
    browser: webdriver.Chrome,
    serve: ServerFactory,
    project: Path,
) -> None:
    server, model = serve_project(serve, project, "visit")
    browser.get(server.http_url)
    send(browser, "sign me in")
    shown = prompt(browser)
    link = shown.find_element(By.CSS_SELECTOR, "a.visit")
    assert link.text == "https://example.test/login?a=1"
    assert link.get_attribute("href") == "https://example.test/login?a=1"
    assert hook_events(project)[-1] == ("Notification", "elicitation_url_dialog")
    shown.find_element(By.CSS_SELECTOR, "button.accept").click()
    wait_idle(browser, "Finished.")
    assert lines(project / "calls.jsonl") == [{"tool": "visit", "action": "accept"}]
    assert tool_result_text(model) == "visited:accept"


def test_a_page_that_goes_away_cancels_the_turn(
    browser: webdriver.Chrome,
    serve: ServerFactory,
    project: Path,
) -> None:
    server, model = serve_project(serve, project, "profile")
    browser.get(server.http_url)
    send(browser, "fill in my profile")
    prompt(browser)
    browser.get("about:blank")
    ended = ("SessionEnd", "")
    assert eventually(lambda: ended in hook_events(project), within=WAIT), "the turn hung"
    assert len(model.calls) == 1, "no model request after the prompt"
    assert lines(project / "calls.jsonl") == [], "no answer reached the server"
    assert ("ElicitationResult", "") not in hook_events(project)
