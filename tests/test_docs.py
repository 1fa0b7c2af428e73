"""The README and docs/: every install extra is listed, links point at files in the
repository, and nothing names paths outside it or private jargon."""

from __future__ import annotations

import re
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
