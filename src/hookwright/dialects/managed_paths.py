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

On macOS Codex also reads the ``com.openai.codex`` preferences an MDM profile forces
(``config_toml_base64``, ``requirements_toml_base64``; `dialects.codex.preferences`): macOS
keeps them in ``/Library/Managed Preferences/<user>/com.openai.codex.plist`` (the user's, which
wins) and ``/Library/Managed Preferences/com.openai.codex.plist``.
``$HOOKWRIGHT_CODEX_MANAGED_PREFERENCES`` stands for those files on every platform. What no
file holds is not read: Codex's cloud-managed requirements (fetched from OpenAI for a
signed-in workspace).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath, PurePosixPath, PureWindowsPath
from types import MappingProxyType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Literal, TypeAlias

Platform: TypeAlias = "Literal['unix', 'darwin', 'win32']"
CODEX_MANAGED_DIR_ENV: Final = "HOOKWRIGHT_CODEX_MANAGED_DIR"
CODEX_MANAGED_PREFERENCES_ENV: Final = "HOOKWRIGHT_CODEX_MANAGED_PREFERENCES"
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
    #: Codex's managed preference files, the first winning (``{user}``: the user's name).
    codex_preferences: tuple[str, ...] = ()


_UNIX_CODEX: Final = PurePosixPath("/etc/codex")
_MANAGED_PREFERENCES: Final = "/Library/Managed Preferences"
_CODEX_DOMAIN_FILE: Final = "com.openai.codex.plist"
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
            (
                f"{_MANAGED_PREFERENCES}/{{user}}/{_CODEX_DOMAIN_FILE}",
                f"{_MANAGED_PREFERENCES}/{_CODEX_DOMAIN_FILE}",
            ),
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


def codex_managed_preferences(
    platform: Platform, environ: Mapping[str, str] | None = None, user: str | None = None
) -> list[PurePath]:
    """Codex's managed preference files on `platform`, the first winning key by key
    (``$HOOKWRIGHT_CODEX_MANAGED_PREFERENCES`` alone when set); none off macOS."""
    env = os.environ if environ is None else environ
    if env.get(CODEX_MANAGED_PREFERENCES_ENV):
        return [PurePath(env[CODEX_MANAGED_PREFERENCES_ENV])]
    templates = MANAGED[platform].codex_preferences
    name = user if user is not None else _user_name(env)
    return [
        PurePosixPath(template.format(user=name))
        for template in templates
        if name or "{user}" not in template
    ]


def _user_name(env: Mapping[str, str]) -> str:
    """The login name macOS files a user's managed preferences under ('' when unknown)."""
    name = env.get("USER") or env.get("LOGNAME") or ""
    return "" if "/" in name or name in {".", ".."} else name


def gemini_system_settings(
    platform: Platform, environ: Mapping[str, str] | None = None
) -> PurePath:
    """Gemini CLI's system settings file on `platform` (``$GEMINI_CLI_SYSTEM_SETTINGS_PATH``
    when set)."""
    env = os.environ if environ is None else environ
    if env.get(GEMINI_SYSTEM_SETTINGS_ENV):
        return PurePath(env[GEMINI_SYSTEM_SETTINGS_ENV])
    return MANAGED[platform].gemini_settings
