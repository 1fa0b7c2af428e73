"""The chat page in headless Chromium (Debian's ``chromium`` + ``chromium-driver``, via Selenium).

Nothing is downloaded: the browser and driver are the system's. Without them the test is
skipped locally and fails under CI (``CI`` set), where ``make browser`` installs them.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from hookwright.runtime.models.scripted import ScriptedModel

from .conftest import LiveServer, ServerFactory

WAIT = 30.0
REMEMBER = {"role": "system", "content": "H:remember"}

# Records what #log shows after every change while a request is running, so the test can tell
# what streamed in before the done frame re-rendered the history.
WATCH_LOG = """
window.__running = [];
new MutationObserver(() => {
  if (document.body.dataset.state === "running") {
    window.__running.push(document.getElementById("log").textContent);
  }
}).observe(document.getElementById("log"), {childList: true, subtree: true, characterData: true});
"""


def wait_idle(driver: webdriver.Chrome, text: str) -> None:
    """Wait until no request is running and the log shows ``text``."""

    def ready(d: Any) -> bool:
        body = d.find_element(By.TAG_NAME, "body")
        log = d.find_element(By.ID, "log").text
        return body.get_attribute("data-state") == "idle" and text in log

    WebDriverWait(driver, WAIT).until(ready)


def send(driver: webdriver.Chrome, text: str) -> None:
    box = driver.find_element(By.ID, "input")
    box.send_keys(text)
    box.send_keys(Keys.ENTER)


def texts(driver: webdriver.Chrome, css: str) -> list[str]:
    return [element.text for element in driver.find_elements(By.CSS_SELECTOR, css)]


def stored_history(driver: webdriver.Chrome) -> list[dict[str, Any]]:
    raw = driver.execute_script("return localStorage.getItem('hookwright.history');")
    history = json.loads(raw)
    assert isinstance(history, list)
    return history


# Counts the pixels of a PNG screenshot, inside an element's box, close to a colour: the
# browser decodes the PNG itself (a canvas), so the check reads what the screenshot shows.
COUNT_COLOUR = """
const [png, box, colour, done] = arguments;
const image = new Image();
image.onload = () => {
  const canvas = document.createElement("canvas");
  canvas.width = image.width;
  canvas.height = image.height;
  const context = canvas.getContext("2d");
  context.drawImage(image, 0, 0);
  const data = context.getImageData(box.x, box.y, box.width, box.height).data;
  let count = 0;
  for (let i = 0; i < data.length; i += 4) {
    const near = [0, 1, 2].every((c) => Math.abs(data[i + c] - colour[c]) <= 40);
    if (near) count += 1;
  }
  done(count);
};
image.onerror = () => done(-1);
image.src = "data:image/png;base64," + png;
"""


def colour_in_screenshot(
    driver: webdriver.Chrome, png: bytes, element: Any, colour: tuple[int, int, int]
) -> int:
    box = driver.execute_script(
        "const r = arguments[0].getBoundingClientRect(), s = window.devicePixelRatio;"
        "return {x: Math.floor(r.x * s), y: Math.floor(r.y * s),"
        " width: Math.ceil(r.width * s), height: Math.ceil(r.height * s)};",
        element,
    )
    count = driver.execute_async_script(
        COUNT_COLOUR, base64.b64encode(png).decode("ascii"), box, list(colour)
    )
    assert isinstance(count, int) and count >= 0, "the screenshot decodes"
    return count


def test_chat_streams_keeps_history_and_sends_it_back(
    browser: webdriver.Chrome, serve: ServerFactory
) -> None:
    model = ScriptedModel.from_turns([{"content": "Answer one."}, {"content": "Answer two."}])
    server = serve(model=lambda: model, skills=("memory",), trust=True)
    browser.get(server.http_url)
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "idle"
    )
    browser.execute_script(WATCH_LOG)

    send(browser, "hello")
    wait_idle(browser, "Answer one.")

    running: list[str] = browser.execute_script("return window.__running;")
    assert any("H:remember" in snapshot for snapshot in running), running
    assert any("Answer one." in snapshot for snapshot in running), running
    assert any("H:remember" in t for t in texts(browser, ".msg.hook"))
    assert [m["role"] for m in stored_history(browser)] == ["user", "system", "assistant"]
    assert stored_history(browser)[1] == {
        **REMEMBER,
        "_hook": "remember",
        "_hook_file": "skills/memory/hooks/remember.md",
    }

    browser.refresh()
    wait_idle(browser, "Answer one.")
    assert texts(browser, ".msg.user .body") == ["hello"]
    assert texts(browser, ".msg.hook .body") == ["H:remember"]
    assert texts(browser, ".msg.assistant .body") == ["Answer one."]

    send(browser, "again")
    wait_idle(browser, "Answer two.")
    assert model.calls[-1].messages.count(REMEMBER) == 2
    assert model.calls[-1].messages[1] == {"role": "user", "content": "hello"}
    assert texts(browser, ".msg.hook .body") == ["H:remember", "H:remember"]
    assert len(stored_history(browser)) == 6


# Another origin ----------------------------------------------------------------------------

# The page another local site would serve: it knows the real token (the worst case) and records
# what its WebSocket saw.
FOREIGN_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>elsewhere</title></head><body><script>
window.__ws = {open: false, error: false, closed: false, code: null};
const ws = new WebSocket(%s);
ws.onopen = () => { window.__ws.open = true; };
ws.onerror = () => { window.__ws.error = true; };
ws.onclose = (event) => { window.__ws.closed = true; window.__ws.code = event.code; };
</script></body></html>
"""


@contextmanager
def foreign_site(pages: dict[str, str]) -> Iterator[str]:
    """A second origin: a static HTTP server on another 127.0.0.1 port serving ``pages`` by path.

    Yields its origin; ``pages`` may be filled after it started.
    """

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path, "not here").encode("utf-8")
            self.send_response(200 if self.path in pages else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(
        target=httpd.serve_forever,
        kwargs={"poll_interval": 0.05},
        name="foreign-site",
        daemon=True,
    )
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=30)


def socket_outcome(driver: webdriver.Chrome) -> dict[str, Any]:
    WebDriverWait(driver, WAIT).until(
        lambda d: d.execute_script("return window.__ws.open || window.__ws.closed;")
    )
    outcome: dict[str, Any] = driver.execute_script("return window.__ws;")
    return outcome


def test_a_page_from_another_local_origin_cannot_open_the_socket(
    browser: webdriver.Chrome, serve: ServerFactory
) -> None:
    model = ScriptedModel.from_turns([{"content": "Only for the real page."}])
    server: LiveServer = serve(model=lambda: model, trust=True)
    pages: dict[str, str] = {}
    with foreign_site(pages) as elsewhere:
        assert elsewhere != server.origin
        pages["/attack"] = FOREIGN_PAGE % json.dumps(server.ws_url)
        browser.get(elsewhere + "/attack")
        refused = socket_outcome(browser)

        # The control: the same page opens a socket to a server that allows its origin.
        allowing = serve(allow_origins=(elsewhere,))
        pages["/allowed"] = FOREIGN_PAGE % json.dumps(allowing.ws_url)
        browser.get(elsewhere + "/allowed")
        allowed = socket_outcome(browser)
    assert refused == {"open": False, "error": True, "closed": True, "code": 1006}
    assert allowed["open"] is True
    assert model.calls == []

    browser.get(server.http_url)
    send(browser, "hello")
    wait_idle(browser, "Only for the real page.")
    assert len(model.calls) == 1


def test_the_page_without_its_token_is_only_a_pointer_to_the_printed_url(
    browser: webdriver.Chrome, serve: ServerFactory
) -> None:
    server = serve()
    browser.get(server.origin + "/")
    text = browser.find_element(By.TAG_NAME, "body").text
    assert "Open the URL that hookwright serve printed" in text
    assert browser.find_elements(By.ID, "input") == []


# Hook decisions in the page ----------------------------------------------------------------

GUARDS = """
from hookwright import add_context, deny, rewrite_input
def no_rm(inp):
    return deny('rm is refused here')
def dry(inp):
    return rewrite_input({'command': 'echo rehearsed'}, reason='pushes are rehearsed')
def facts(inp):
    return add_context('FACT: pushes are dry runs')
"""
GUARD_HOOKS = """hooks:
  - {name: no-rm, event: PreToolUse, matcher: Bash, if: 'Bash(rm *)', call: 'guards:no_rm'}
  - {name: dry, event: PreToolUse, matcher: Bash, if: 'Bash(git *)', call: 'guards:dry'}
  - {name: facts, event: SessionStart, call: 'guards:facts'}
"""


def guarded_turns() -> list[dict[str, Any]]:
    bash = "Bash"
    return [
        {"tool_calls": [{"name": bash, "arguments": {"command": "rm -rf build"}}]},
        {"tool_calls": [{"name": bash, "arguments": {"command": "git push origin main"}}]},
        {"content": "All done."},
        {"content": "Second answer."},
    ]


def test_hook_decisions_stay_styled_and_context_is_a_note_shown_once(
    browser: webdriver.Chrome, serve: ServerFactory, project: Path, tmp_path: Path
) -> None:
    hooks = project / ".hookwright"
    hooks.mkdir()
    (hooks / "guards.py").write_text(GUARDS)
    (hooks / "hooks.yaml").write_text(GUARD_HOOKS)
    model = ScriptedModel.from_turns(guarded_turns())
    server = serve(model=lambda: model, trust=True, permission_mode="bypassPermissions")
    browser.set_window_size(1000, 900)
    browser.get(server.http_url)
    send(browser, "clean and publish")
    wait_idle(browser, "All done.")

    shown = browser.execute_script(
        "return Array.from(document.querySelectorAll('#log > div'))"
        ".map(e => e.className + ' | ' + e.textContent);"
    )
    notes = browser.find_elements(By.CSS_SELECTOR, ".msg.note.decision-deny")
    assert notes, shown
    assert [n.find_element(By.CLASS_NAME, "body").text for n in notes] == [
        "PreToolUse: no-rm → deny (rm is refused here)"
    ]
    red = notes[0].value_of_css_property("color")
    assert red == "rgba(179, 38, 30, 1)", red
    assert texts(browser, ".msg.note.decision-rewrite-input .body") == [
        "PreToolUse: dry → rewrite input (pushes are rehearsed)"
    ]
    assert "rehearsed" in "\n".join(texts(browser, ".msg.tool .body"))
    assert texts(browser, ".msg.context .body") == ["FACT: pushes are dry runs"]
    assert texts(browser, ".msg.context .label") == ["hook context (for the model)"]
    assert texts(browser, ".msg.user .body") == ["clean and publish"]
    screenshot = tmp_path / "page.png"
    assert browser.save_screenshot(str(screenshot))
    png = screenshot.read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
    deny_pixels = colour_in_screenshot(browser, png, notes[0], (179, 38, 30))
    assert deny_pixels > 20, "the screenshot shows the denied call in red"
    [rewrite] = browser.find_elements(By.CSS_SELECTOR, ".msg.note.decision-rewrite-input")
    assert colour_in_screenshot(browser, png, rewrite, (122, 61, 184)) > 20, "rewrite in purple"
    user = browser.find_element(By.CSS_SELECTOR, ".msg.user")
    assert colour_in_screenshot(browser, png, user, (179, 38, 30)) == 0

    send(browser, "and again")
    wait_idle(browser, "Second answer.")
    sent_back = model.calls[-1].messages
    denied = [m for m in sent_back if m.get("role") == "tool" and m.get("is_error")]
    assert [m["content"] for m in denied] == ["rm is refused here"], sent_back
    assert texts(browser, ".msg.context .body") == ["FACT: pushes are dry runs"], "not repeated"
    browser.refresh()
    wait_idle(browser, "Second answer.")
    assert len(browser.find_elements(By.CSS_SELECTOR, ".msg.note.decision-deny")) == 1
    assert texts(browser, ".msg.user .body") == ["clean and publish", "and again"]
    assert texts(browser, ".msg.context .body") == ["FACT: pushes are dry runs"]


# Every system's hooks, named alike -------------------------------------------------------------

CLAUDE_SETTINGS = {
    "hooks": {
        "PostToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "python3 .claude/saw.py"}],
            }
        ]
    }
}
SAW = """import json, sys
json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse",
                                         "additionalContext": "CC: saw the command"}}))
"""


def test_every_hook_shows_its_system_and_file_and_the_status_is_right_at_once(
    browser: webdriver.Chrome, serve: ServerFactory, project: Path, tmp_path: Path
) -> None:
    hooks = project / ".hookwright"
    hooks.mkdir()
    (hooks / "guards.py").write_text(GUARDS)
    (hooks / "hooks.yaml").write_text(GUARD_HOOKS)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(CLAUDE_SETTINGS))
    (project / ".claude" / "saw.py").write_text(SAW)
    model = ScriptedModel.from_turns(guarded_turns())
    server = serve(
        model=lambda: model, skills=("flow",), trust=True, permission_mode="bypassPermissions"
    )
    browser.set_window_size(1000, 1400)
    browser.get(server.http_url)
    assert browser.find_element(By.ID, "status").text in ("connecting…", "connected")
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_element(By.ID, "status").text == "connected"
    )
    send(browser, "clean and publish")
    wait_idle(browser, "All done.")

    labels = texts(browser, ".msg.note .label")
    assert "hook Python .hookwright/hooks.yaml" in labels, labels
    assert "hook Claude Code .claude/settings.json" in labels, labels
    skill = [t for t in texts(browser, ".msg.hook .label") if "flow/start" in t]
    label = "hook flow/start (system, after_user_input, this call only) skill"
    assert skill == [f"{label} skills/flow/hooks/start.md"], skill
    assert "H:start" in texts(browser, ".msg.hook .body")
    [python] = browser.find_elements(
        By.XPATH, "//div[contains(@class,'decision-deny')]//span[contains(@class,'system-python')]"
    )
    [claude] = browser.find_elements(By.CSS_SELECTOR, ".badge.system-claude-code")[:1]
    screenshot = tmp_path / "systems.png"
    assert browser.save_screenshot(str(screenshot))
    png = screenshot.read_bytes()
    assert colour_in_screenshot(browser, png, python, (60, 90, 153)) > 20, "Python badge"
    assert colour_in_screenshot(browser, png, claude, (181, 82, 46)) > 20, "Claude Code badge"
    assert colour_in_screenshot(browser, png, python, (181, 82, 46)) == 0


# A failure's fix, beside the failure -----------------------------------------------------------

BROKEN_OPENHARNESS = """
name: broken
events: [before_tool_dispatch]
matcher: "Bash"
handler:
  type: command
  command: python3 -c "import sys; sys.stdin.read(); sys.exit('it broke')"
"""
OPENHARNESS_FIX = (
    "fix: exit 0 (with a JSON answer, or none) to go on, or 2 to block (the reason on stderr)"
)


def test_a_failed_hook_shows_its_error_and_fix_and_keeps_them_on_reload(
    browser: webdriver.Chrome, serve: ServerFactory, project: Path, tmp_path: Path
) -> None:
    (project / ".openharness" / "hooks").mkdir(parents=True)
    (project / ".openharness" / "hooks" / "broken.yaml").write_text(BROKEN_OPENHARNESS)
    turns = [{"tool_calls": [{"name": "Bash", "arguments": {"command": "echo hi"}}]},
             {"content": "All done."}]  # fmt: skip
    model = ScriptedModel.from_turns(turns)
    server = serve(model=lambda: model, trust=True, permission_mode="bypassPermissions")
    browser.set_window_size(1000, 900)
    browser.get(server.http_url)
    send(browser, "say hi")
    wait_idle(browser, "All done.")

    [failed] = browser.find_elements(By.CSS_SELECTOR, ".msg.note.decision-failed")
    body = failed.find_element(By.CLASS_NAME, "body").text
    assert body == (
        "before_tool_dispatch (PreToolUse): broken → error "
        "(Command hook exited with code 1: it broke)"
    ), body
    [fix] = failed.find_elements(By.CLASS_NAME, "fix")
    assert fix.text == OPENHARNESS_FIX
    label = failed.find_element(By.CLASS_NAME, "label").text
    assert label == "hook OpenHarness .openharness/hooks/broken.yaml", label
    screenshot = tmp_path / "fix.png"
    assert browser.save_screenshot(str(screenshot))
    png = screenshot.read_bytes()
    assert colour_in_screenshot(browser, png, fix, (11, 110, 79)) > 20, "the fix line in green"
    assert colour_in_screenshot(browser, png, fix, (179, 38, 30)) == 0, "not the failure's red"
    error_body = failed.find_element(By.CLASS_NAME, "body")
    assert colour_in_screenshot(browser, png, error_body, (179, 38, 30)) > 20, "failure in red"

    browser.refresh()
    wait_idle(browser, "All done.")
    assert texts(browser, ".msg.note.decision-failed .fix") == [OPENHARNESS_FIX]
