"""The README and docs/: every install extra is listed, links point at files in the
repository, and nothing names paths outside it or private jargon."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from conformance.__main__ import claude_code
from conformance.npm_cli import Unavailable, installed

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([\w./-]+)(?:#[^)]*)?\)")
OUTSIDE = ("/work/", "/tmp/", "../shared", "shared/spec", "the seed")


def test_every_extra_has_an_install_line() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = set(project["optional-dependencies"]) - {"dev"}
    readme = (ROOT / "README.md").read_text()
    missing = [name for name in sorted(extras) if f"pip install 'hookwright[{name}]'" not in readme]
    assert missing == []


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_links_point_into_the_repository(doc: Path) -> None:
    broken = [
        target
        for target in LINK.findall(doc.read_text())
        if not (doc.parent / target).resolve().exists()
    ]
    assert broken == []


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_no_paths_outside_the_repository_or_private_words(doc: Path) -> None:
    text = doc.read_text()
    assert [word for word in OUTSIDE if word in text] == []
    assert "well under a microsecond per hook" not in text


#: The first line of an adapter example's offline variant in docs/adapters.md.
OFFLINE = "# Offline: the framework's own test model"
#: An adapter section of docs/adapters.md -> the module its framework's extra installs.
FRAMEWORKS = {
    "openai-agents": "agents",
    "LangChain v1": "langchain.agents",
    "pydantic-ai": "pydantic_ai",
    "claude-agent-sdk": "claude_agent_sdk",
    "Google ADK": "google.adk",
}
#: The frameworks whose offline variant runs a tool of the example's own (the rest drive a CLI).
SCRIPTED_IN_PROCESS = sorted(set(FRAMEWORKS) - {"claude-agent-sdk"})
#: The Claude Code the claude-agent-sdk variant drives: the newest `make conformance` compares
#: with, and new enough for the adapter's fail-closed callbacks (2.1.295).
CLAUDE_CODE = "2.1.332"
#: Where the example and `make conformance` read the Claude Code binary from.
CLAUDE_ENV = "HOOKWRIGHT_CONFORMANCE_CLAUDE"
#: What the model got as the call's result: the demo hook's refusal.
REFUSED = "recursive or forced rm is not allowed here: 'rm -rf build/'"


def offline_examples() -> dict[str, str]:
    """The offline variant of each adapter section's example, by section."""
    found: dict[str, str] = {}
    text = (ROOT / "docs" / "adapters.md").read_text()
    for section in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        title = section.splitlines()[0].strip()
        for code in re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL):
            if code.startswith(OFFLINE):
                found[title] = code
    return found


def test_every_adapter_has_an_offline_example() -> None:
    assert sorted(offline_examples()) == sorted(FRAMEWORKS)


def needs_extra(framework: str) -> None:
    module = FRAMEWORKS[framework]
    if importlib.util.find_spec(module.split(".")[0]) is None:
        pytest.skip(f"{framework}: its extra is not installed ({module})")


def run_example(framework: str, folder: Path, cwd: Path, **env: str) -> str:
    """The example's stdout, run as a script in `cwd` with no API key and its own HOME."""
    example = folder / "example.py"
    example.write_text(offline_examples()[framework])
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    clean["HOME"] = str(folder / "home")
    proc = subprocess.run(
        [sys.executable, str(example)],
        cwd=cwd,
        env=clean | env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("framework", SCRIPTED_IN_PROCESS)
def test_an_adapter_examples_offline_variant_runs(framework: str, tmp_path: Path) -> None:
    needs_extra(framework)
    stdout = run_example(framework, tmp_path, ROOT)
    # The model got the demo hook's refusal as the call's result; the tool never ran.
    assert REFUSED in stdout, stdout
    assert "ran: rm -rf build/" not in stdout


@pytest.fixture
def claude_code_cli() -> Iterator[Path]:
    """The Claude Code binary `$HOOKWRIGHT_CONFORMANCE_CLAUDE` names, checked as `make
    conformance` checks it. The unit suite never installs one from npm (no network, no
    minutes of download in `make test`): without the variable the test skips, saying how."""
    given = os.environ.get(CLAUDE_ENV)
    if not given:
        pytest.skip(f"no Claude Code {CLAUDE_CODE} to drive: set {CLAUDE_ENV} to its binary")
    try:
        with installed(claude_code(CLAUDE_CODE), given) as binary:
            yield binary
    except Unavailable as exc:
        pytest.skip(f"no Claude Code {CLAUDE_CODE} to drive: {exc}")


def test_the_claude_agent_sdk_offline_variant_runs_the_real_cli(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    needs_extra("claude-agent-sdk")
    cli: Path = request.getfixturevalue("claude_code_cli")
    demo = tmp_path / "examples" / "demo"
    shutil.copytree(ROOT / "examples" / "demo", demo)
    (demo / "build").mkdir()
    (demo / "build" / "app.bin").write_text("built")
    stdout = run_example(
        "claude-agent-sdk", tmp_path, tmp_path, PYTHONPATH=str(ROOT), **{CLAUDE_ENV: str(cli)}
    )
    # The CLI's Bash call was refused by the demo hook, as the model was told; it never ran.
    assert f"PreToolUse:Bash hook error: {REFUSED}" in stdout, stdout
    assert "build/ is still there: True" in stdout
    assert (demo / "build" / "app.bin").read_text() == "built"


#: A dialect page that shows how the views word a decision -> the dialect it describes.
DECISION_PAGES = {
    "claude-code.md": "claude_code",
    "picoclaw.md": "picoclaw",
    "gemini.md": "gemini",
    "codex.md": "codex",
    "openharness.md": "openharness",
}
DECISION_SECTION = "## How the views word a decision"


def _decision_rows(page: str) -> list[list[str]]:
    """The cells of the page's decision table, without backticks."""
    section = (ROOT / "docs" / page).read_text().split(DECISION_SECTION, 1)[1]
    lines = section.split("\n## ", 1)[0].splitlines()
    table = [line for line in lines if line.startswith("|")][2:]
    return [[cell.strip().strip("`") for cell in line.strip("|").split(" | ")] for line in table]


@pytest.mark.parametrize("page", sorted(DECISION_PAGES))
def test_a_dialect_page_shows_the_decision_words_the_views_print(page: str) -> None:
    """Each row's words are those `effect_words` (the hook's line) and `done_words` (the audit
    viewer, the run summary) give for its canonical effect on each event it names, with the
    word its answer said it in (`own_word`, `—` for none)."""
    from hookwright.core.systems import done_words, effect_words

    dialect = DECISION_PAGES[page]
    rows = _decision_rows(page)
    assert rows, page
    for _answer, events, canonical, word, line, done in rows:
        kept = None if word == "—" else word
        for event in events.split(", "):
            own = None if event == "any method" else event
            said = effect_words(canonical, dialect, own, kept)
            assert said == line, (page, event, canonical, word)
            said_done = done_words(canonical, dialect, own, kept)
            assert said_done == (None if done == "—" else done), (page, event, canonical, word)
