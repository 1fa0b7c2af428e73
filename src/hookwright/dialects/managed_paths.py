"""Where Codex CLI and Gemini CLI read an administrator's settings, per platform: one table,
`MANAGED` (shown in docs/codex.md and docs/gemini.md).

From each CLI's source (Codex's config loader; Gemini CLI's ``getSystemSettingsPath``, whose
three paths the 0.61.0 bundle holds): Codex's managed folder (``requirements.toml``,
``config.toml``, ``hooks.json``) is ``/etc/codex`` on Linux and macOS and
``%ProgramData%\\OpenAI\\Codex`` on Windows, where its legacy ``managed_config.toml`` is not
read; Gemini's system settings are ``/etc/gemini-cli/settings.json``, ``/Library/Application
Support/GeminiCli/settings.json`` on macOS and ``C:\\ProgramData\\gemini-cli\\settings.json`` on
Windows. ``$HOOKWRIGHT_CODEX_MANAGED_DIR`` stands for Codex's folder (the legacy file then lies
in it too) and ``$GEMINI_CLI_SYSTEM_SETTINGS_PATH`` for Gemini's file, as Gemini CLI reads it.
What no file holds is not read: Codex's macOS managed preferences (``com.openai.codex``,
``config_toml_base64`` and ``requirements_toml_base64``, read through CoreFoundation) and its
cloud-managed requirements (fetched from OpenAI for a signed-in workspace).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath, PurePosixPath, PureWindowsPath
from types import MappingProxyType
from typing import Final, Literal

Platform = Literal["unix", "darwin", "win32"]
CODEX_MANAGED_DIR_ENV: Final = "HOOKWRIGHT_CODEX_MANAGED_DIR"
GEMINI_SYSTEM_SETTINGS_ENV: Final = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"
#: Codex's Windows fallback when ``%ProgramData%`` is not known.
_PROGRAM_DATA: Final = r"C:\ProgramData"


@dataclass(frozen=True, slots=True)
class ManagedPaths:
    """One platform's row. `codex_dir` None: under ``%ProgramData%`` (`codex_managed_dir`)."""

    codex_dir: PurePath | None
    #: The legacy managed config's name in the managed folder; None: not read there.
    codex_legacy: str | None
    gemini_settings: PurePath
    #: The key of ``requirements.toml``'s ``[hooks]`` naming the folder managed hooks live in.
    codex_hooks_dir_key: str


_UNIX_CODEX: Final = PurePosixPath("/etc/codex")
MANAGED: Final[Mapping[Platform, ManagedPaths]] = MappingProxyType(
    {
        "unix": ManagedPaths(
            _UNIX_CODEX,
            "managed_config.toml",
            PurePosixPath("/etc/gemini-cli/settings.json"),
            "managed_dir",
        ),
        "darwin": ManagedPaths(
            _UNIX_CODEX,
            "managed_config.toml",
            PurePosixPath("/Library/Application Support/GeminiCli/settings.json"),
            "managed_dir",
        ),
        "win32": ManagedPaths(
            None,
            None,
            PureWindowsPath(r"C:\ProgramData\gemini-cli\settings.json"),
            "windows_managed_dir",
        ),
    }
)


def platform_of(name: str | None = None) -> Platform:
    """The table's row for `name` (default this machine's ``sys.platform``)."""
    name = sys.platform if name is None else name
    if name == "darwin":
        return "darwin"
    return "win32" if name == "win32" else "unix"


def codex_managed_dir(platform: Platform, environ: Mapping[str, str] | None = None) -> PurePath:
    """Codex's managed folder on `platform` (``$HOOKWRIGHT_CODEX_MANAGED_DIR`` when set)."""
    env = os.environ if environ is None else environ
    if env.get(CODEX_MANAGED_DIR_ENV):
        return PurePath(env[CODEX_MANAGED_DIR_ENV])
    folder = MANAGED[platform].codex_dir
    if folder is not None:
        return folder
    return PureWindowsPath(env.get("ProgramData") or _PROGRAM_DATA, "OpenAI", "Codex")


def gemini_system_settings(
    platform: Platform, environ: Mapping[str, str] | None = None
) -> PurePath:
    """Gemini CLI's system settings file on `platform` (``$GEMINI_CLI_SYSTEM_SETTINGS_PATH``
    when set)."""
    env = os.environ if environ is None else environ
    if env.get(GEMINI_SYSTEM_SETTINGS_ENV):
        return PurePath(env[GEMINI_SYSTEM_SETTINGS_ENV])
    return MANAGED[platform].gemini_settings
