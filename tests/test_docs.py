"""The README and docs/: every install extra is listed, links point at files in the
repository, and nothing names paths outside it or private jargon."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

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
    "Google ADK": "google.adk",
}


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


def test_every_adapter_but_claude_agent_sdk_has_an_offline_example() -> None:
    assert sorted(offline_examples()) == sorted(FRAMEWORKS)


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
def test_an_adapter_examples_offline_variant_runs(framework: str, tmp_path: Path) -> None:
    module = FRAMEWORKS[framework]
    if importlib.util.find_spec(module.split(".")[0]) is None:
        pytest.skip(f"{framework}: its extra is not installed ({module})")
    example = tmp_path / "example.py"
    example.write_text(offline_examples()[framework])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    env["HOME"] = str(tmp_path / "home")
    proc = subprocess.run(
        [sys.executable, str(example)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    # The model got the demo hook's refusal as the call's result; the tool never ran.
    refused = "recursive or forced rm is not allowed here: 'rm -rf build/'"
    assert refused in proc.stdout, proc.stdout + proc.stderr
    assert "ran: rm -rf build/" not in proc.stdout
