"""`dialects.absent`: discovery leaves a built-in dialect out (and does not import it) only when
that dialect would find nothing. Every file a dialect reads, once present (here: broken), is
noticed both by the dialect's own discovery and by `absent`."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookwright import dialects
from hookwright.config.loading import LoadContext, discover, sources

#: Each file a dialect reads, by where it lies: the home, the project or the managed folder.
READS = {
    "claude_code": [
        ("managed", "managed-settings.json"),
        ("managed", "managed-settings.d/a.json"),
        ("home", ".claude/settings.json"),
        ("project", ".claude/settings.json"),
        ("project", ".claude/settings.local.json"),
        ("home", ".claude/plugins/installed_plugins.json"),
        ("home", ".claude/plugins/tool/hooks/hooks.json"),
        ("project", ".claude/plugins/tool/hooks/hooks.json"),
    ],
    "picoclaw": [("home", ".picoclaw/config.json"), ("project", ".picoclaw/config.json")],
    "native": [("home", ".hookwright/hooks.yaml"), ("project", ".hookwright/hooks.yaml")],
    "openharness": [
        ("project", ".openharness/hooks/gate.yaml"),
        ("project", ".openharness/workspace.yaml"),
    ],
}


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> LoadContext:
    monkeypatch.setenv("HOOKWRIGHT_CLAUDE_MANAGED_DIR", str(tmp_path / "managed"))
    monkeypatch.delenv("HOOKWRIGHT_CLAUDE_EXIT_RULES", raising=False)
    for folder in ("home", "project"):
        (tmp_path / folder).mkdir()
    return LoadContext(project_dir=tmp_path / "project", home=tmp_path / "home")


def test_nothing_there_means_every_dialect_is_absent_and_finds_nothing(ctx: LoadContext) -> None:
    assert dialects.absent(ctx) == set(dialects.BUILTIN)
    for name, discoverer in sources().items():
        if name in dialects.BUILTIN:
            found = discoverer(ctx)
            assert (found.hooks, found.diagnostics) == ([], []), name
    assert discover(ctx).hooks == [] and discover(ctx).diagnostics == []


@pytest.mark.parametrize(
    ("dialect", "where", "file"),
    [(dialect, where, file) for dialect, reads in READS.items() for where, file in reads],
)
def test_each_file_a_dialect_reads_makes_it_present(
    dialect: str, where: str, file: str, ctx: LoadContext, tmp_path: Path
) -> None:
    path = tmp_path / where / file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{")
    found = sources()[dialect](ctx)
    assert found.hooks or found.diagnostics, "the dialect itself must notice the file"
    assert dialect not in dialects.absent(ctx)
    assert any(str(path) in str(d) for d in discover(ctx).diagnostics)


def test_a_setting_the_claude_code_loader_warns_about_makes_it_present(
    ctx: LoadContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOOKWRIGHT_CLAUDE_EXIT_RULES", "sometimes")
    assert sources()["claude_code"](ctx).diagnostics
    assert "claude_code" not in dialects.absent(ctx)
    assert [d.severity for d in discover(ctx).diagnostics] == ["warning"]


def test_a_config_file_on_the_command_line_makes_every_dialect_look(
    ctx: LoadContext, tmp_path: Path
) -> None:
    config = tmp_path / "extra.json"
    config.write_text("{}")
    named = LoadContext(ctx.project_dir, ctx.home, [config])
    assert dialects.absent(named) == set()


def test_the_built_in_dialects_are_discovered_in_a_fixed_order(ctx: LoadContext) -> None:
    """Whatever was imported first: the order orders hooks of equal priority across dialects."""
    assert list(sources())[: len(dialects.BUILTIN)] == list(dialects.BUILTIN)
    assert list(sources(ctx)) == []
