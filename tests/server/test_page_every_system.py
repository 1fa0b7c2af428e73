"""The chat page (headless Chromium, as in test_page.py) on the demo project, which has a hook
of every system (Claude Code, PicoClaw, OpenHarness, skill, Python), plus an OpenHarness hook
that blocks a call: every hook's note (a persistent skill hook's too) carries its system and
file badges, before and after a reload, and when the page redraws a persistent hook's message
from the history alone (what it keeps for the model); the status is right from the first
moment; the block reads in OpenHarness's own word beside the canonical one, as the terminal
says it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from hookwright.runtime.models.scripted import ScriptedModel

from .conftest import ServerFactory
from .test_page import WAIT, colour_in_screenshot, send, texts, wait_idle

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo"
#: An OpenHarness command hook that blocks any Bash call running curl.
NO_NETWORK = {
    "name": "no-network",
    "events": ["before_tool_dispatch"],
    "matcher": "Bash",
    "handler": {
        "type": "command",
        "command": 'python3 -c "import json, sys; e = json.load(sys.stdin); '
        "print(json.dumps({'decision': 'block', 'reason': 'no network from here'} "
        "if 'curl' in json.dumps(e.get('tool_input')) else {}))\"",
    },
}
OPENHARNESS_GREEN = (46, 125, 50)
PICOCLAW_BLUE = (31, 111, 139)
SKILL_OCHRE = (138, 109, 0)


def _bash(command: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "Bash", "arguments": {"command": command}}]}


TURNS = [
    _bash("rm -rf build/"),  # Claude Code denies
    _bash("git push origin main"),  # Python rewrites, OpenHarness notes the dry run
    {"tool_calls": [{"name": "Read", "arguments": {"file_path": "NOTES.md"}}]},  # PicoClaw
    _bash("curl example.com"),  # OpenHarness blocks
    {"content": "All done."},
]
EXPECTED_LABELS = {
    "hook Claude Code .claude/settings.json",
    "hook Python .hookwright/hooks.yaml",
    "hook OpenHarness .openharness/hooks/note-dry-runs.yaml",
    "hook OpenHarness .openharness/hooks/no-network.yaml",
    "hook PicoClaw .picoclaw/config.json",
}


def _every_system_project(project: Path) -> None:
    shutil.copytree(DEMO, project, dirs_exist_ok=True)
    hooks = project / ".openharness" / "hooks"
    (hooks / "no-network.yaml").write_text(json.dumps(NO_NETWORK))


def _badges_shown(driver: webdriver.Chrome) -> set[str]:
    return set(texts(driver, ".msg.note .label")) | set(texts(driver, ".msg.hook .label"))


def test_every_systems_hooks_show_their_badges_and_a_block_its_own_word(
    browser: webdriver.Chrome, serve: ServerFactory, project: Path, tmp_path: Path
) -> None:
    _every_system_project(project)
    model = ScriptedModel.from_turns(TURNS)
    server = serve(model=lambda: model, skills=("careful", "memory"), trust=True,
                   permission_mode="bypassPermissions")  # fmt: skip
    browser.set_window_size(1100, 2400)
    browser.get(server.http_url)
    assert browser.find_element(By.ID, "status").text in ("connecting…", "connected")
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_element(By.ID, "status").text == "connected"
    )
    send(browser, "clean, publish, read the notes, fetch the page")
    wait_idle(browser, "All done.")

    shown = _badges_shown(browser)
    assert shown >= EXPECTED_LABELS, shown
    skill = "hook careful/no-surprises (system, after_user_input, this call only) skill "
    assert f"{skill}skills/careful/hooks/no-surprises.md" in shown, shown
    # a persistent skill hook carries its file as the others do
    assert "hook remember (system) skill skills/memory/hooks/remember.md" in shown, shown
    [kept] = [
        note
        for note in browser.find_elements(By.CSS_SELECTOR, ".msg.hook")
        if "hook remember" in note.text
    ]
    assert kept.find_element(By.CSS_SELECTOR, ".badge.file").text == (
        "skills/memory/hooks/remember.md"
    )
    [blocked] = [
        note
        for note in browser.find_elements(By.CSS_SELECTOR, ".msg.note.decision-deny")
        if "no-network" in note.text
    ]
    body = blocked.find_element(By.CLASS_NAME, "body").text
    assert body == (
        "before_tool_dispatch (PreToolUse): no-network → block (deny) (no network from here)"
    ), body
    sent_back = [m for m in model.calls[-1].messages if m.get("role") == "tool"]
    assert sent_back[-1]["content"] == "no network from here", sent_back[-1]

    screenshot = tmp_path / "every-system.png"
    assert browser.save_screenshot(str(screenshot))
    png = screenshot.read_bytes()
    openharness = blocked.find_element(By.CSS_SELECTOR, ".badge.system-openharness")
    assert colour_in_screenshot(browser, png, openharness, OPENHARNESS_GREEN) > 20
    [picoclaw] = browser.find_elements(By.CSS_SELECTOR, ".badge.system-picoclaw")
    assert colour_in_screenshot(browser, png, picoclaw, PICOCLAW_BLUE) > 20, "PicoClaw badge"
    assert colour_in_screenshot(browser, png, picoclaw, OPENHARNESS_GREEN) == 0
    skill_badge = browser.find_elements(By.CSS_SELECTOR, ".msg.hook .badge.system-skill")[0]
    assert colour_in_screenshot(browser, png, skill_badge, SKILL_OCHRE) > 20, "skill badge"

    browser.refresh()  # the page shows what it showed, badges and all
    wait_idle(browser, "All done.")
    assert _badges_shown(browser) == shown
    reloaded = tmp_path / "reloaded.png"
    assert browser.save_screenshot(str(reloaded))
    [picoclaw] = browser.find_elements(By.CSS_SELECTOR, ".badge.system-picoclaw")
    assert colour_in_screenshot(browser, reloaded.read_bytes(), picoclaw, PICOCLAW_BLUE) > 20

    # redrawn from the history alone (no record of what was shown): the persistent hook's
    # message carries its system and file badges as it did live
    browser.execute_script("localStorage.removeItem('hookwright.display');")
    browser.refresh()
    wait_idle(browser, "All done.")
    [redrawn] = [
        note
        for note in browser.find_elements(By.CSS_SELECTOR, ".msg.hook")
        if "hook remember" in note.text
    ]
    label = redrawn.find_element(By.CLASS_NAME, "label").text
    assert label == "hook remember (system) skill skills/memory/hooks/remember.md", label
    from_history = tmp_path / "from-history.png"
    assert browser.save_screenshot(str(from_history))
    badge = redrawn.find_element(By.CSS_SELECTOR, ".badge.system-skill")
    assert colour_in_screenshot(browser, from_history.read_bytes(), badge, SKILL_OCHRE) > 20
