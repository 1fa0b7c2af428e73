"""The administrator's files of Codex CLI and Gemini CLI on each platform (one table,
`hookwright.dialects.managed_paths.MANAGED`), with the platform injected."""

from __future__ import annotations

from pathlib import Path, PurePosixPath, PureWindowsPath

import pytest

from hookwright.config.loading import LoadContext
from hookwright.dialects.codex.layers import read_layers
from hookwright.dialects.gemini.loader import layers
from hookwright.dialects.managed_paths import (
    CODEX_MANAGED_DIR_ENV,
    GEMINI_SYSTEM_SETTINGS_ENV,
    Platform,
    codex_managed_dir,
    gemini_system_settings,
    platform_of,
)


@pytest.mark.parametrize(
    ("name", "row"),
    [("linux", "unix"), ("freebsd14", "unix"), ("darwin", "darwin"), ("win32", "win32")],
)
def test_each_sys_platform_has_its_row(name: str, row: str) -> None:
    assert platform_of(name) == row


@pytest.mark.parametrize(
    ("platform", "codex", "gemini"),
    [
        ("unix", PurePosixPath("/etc/codex"), PurePosixPath("/etc/gemini-cli/settings.json")),
        (
            "darwin",
            PurePosixPath("/etc/codex"),
            PurePosixPath("/Library/Application Support/GeminiCli/settings.json"),
        ),
        (
            "win32",
            PureWindowsPath(r"C:\ProgramData\OpenAI\Codex"),
            PureWindowsPath(r"C:\ProgramData\gemini-cli\settings.json"),
        ),
    ],
)
def test_each_platform_reads_its_cli_s_own_places(
    platform: Platform, codex: Path, gemini: Path
) -> None:
    assert codex_managed_dir(platform, {}) == codex
    assert gemini_system_settings(platform, {}) == gemini


def test_codex_on_windows_follows_program_data_and_gemini_does_not() -> None:
    """Codex asks Windows for the ProgramData folder; Gemini CLI names C:\\ProgramData."""
    moved = {"ProgramData": r"D:\Data"}
    assert codex_managed_dir("win32", moved) == PureWindowsPath(r"D:\Data\OpenAI\Codex")
    assert gemini_system_settings("win32", moved) == PureWindowsPath(
        r"C:\ProgramData\gemini-cli\settings.json"
    )


@pytest.mark.parametrize("platform", ["unix", "darwin", "win32"])
def test_the_overrides_win_on_every_platform(platform: Platform, tmp_path: Path) -> None:
    env = {CODEX_MANAGED_DIR_ENV: str(tmp_path / "codex"), GEMINI_SYSTEM_SETTINGS_ENV: "/s.json"}
    assert codex_managed_dir(platform, env) == tmp_path / "codex"
    assert gemini_system_settings(platform, env) == PurePosixPath("/s.json")


def test_gemini_reads_the_injected_platform_s_system_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(GEMINI_SYSTEM_SETTINGS_ENV, raising=False)
    ctx = LoadContext(tmp_path / "project", tmp_path / "home")
    [system] = [layer for layer in layers(ctx, "darwin") if layer.source == "managed"]
    assert system.path == Path("/Library/Application Support/GeminiCli/settings.json")


HOOK = '[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "{}"\n'


@pytest.fixture
def managed_files(managed_dir: Path, tmp_path: Path) -> Path:
    """A requirements hook naming a folder per platform, and a legacy managed config hook."""
    requirements = HOOK.format("admin") + (
        f'[hooks]\nmanaged_dir = "{tmp_path / "unix-hooks"}"\n'
        f'windows_managed_dir = "{tmp_path / "windows-hooks"}"\n'
    )
    (managed_dir / "requirements.toml").write_text(requirements)
    (managed_dir / "managed_config.toml").write_text(HOOK.format("legacy"))
    return tmp_path


@pytest.mark.parametrize(
    ("platform", "folder", "commands"),
    [
        ("unix", "unix-hooks", ["admin", "legacy"]),
        ("darwin", "unix-hooks", ["admin", "legacy"]),
        ("win32", "windows-hooks", ["admin"]),
    ],
)
def test_codex_names_requirement_hooks_and_reads_the_legacy_file_as_its_platform_does(
    managed_files: Path, platform: Platform, folder: str, commands: list[str]
) -> None:
    ctx = LoadContext(managed_files / "project", managed_files / "home")
    hooks = read_layers(ctx, [], platform=platform).hooks
    assert [hook.command for hook in hooks] == commands
    assert hooks[0].source == managed_files / folder
