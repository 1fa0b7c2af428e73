"""Which permission mode a session starts in, as Claude Code 2.1.240 picks it (measured).

The candidates, first usable one wins: the mode given explicitly (``--permission-mode``),
then ``permissions.defaultMode`` of the highest-precedence settings file that sets a valid one
(managed > ``--config`` > local > project > user), else ``default``. ``manual`` means
``default``. A ``bypassPermissions`` candidate is skipped while a settings file sets
``permissions.disableBypassPermissionsMode: "disable"``.

Trust: the project's own settings files count only once its folder is trusted (hookwright's
boundary; Claude Code's ``-p`` never asks and applies them). ``auto`` is refused from project
and local settings as Claude Code refuses it; hookwright has no auto mode, so from other files
it means ``default`` with a warning. A ``bypassPermissions`` chosen by a settings file applies,
as in Claude Code, but never silently: a warning names the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from hookwright.config.loading import LoadContext
from hookwright.config.trust import TrustPolicy
from hookwright.dialects.claude_code.sources import SettingsFile, by_precedence, read_settings
from hookwright.runtime.permissions import MODES, PermissionMode

BYPASS = "bypassPermissions"
#: Settings files Claude Code lets grant auto mode.
AUTO_SOURCES = frozenset({"managed", "flag", "user"})


@dataclass(frozen=True, slots=True)
class ModeChoice:
    mode: PermissionMode
    #: The settings file the mode came from; None when given explicitly or by default.
    source: Path | None = None
    #: One line each, for the user: settings ignored and why, a bypass from settings.
    notes: tuple[str, ...] = ()


def _setting(settings: SettingsFile, key: str) -> Any:
    block = settings.data.get("permissions")
    return block.get(key) if isinstance(block, dict) else None


def _from_settings(
    files: Sequence[SettingsFile], notes: list[str]
) -> tuple[PermissionMode, Path] | None:
    """The valid ``defaultMode`` of the highest-precedence file that sets one."""
    for settings in by_precedence(files):
        value = _setting(settings, "defaultMode")
        if value is None:
            continue
        where = f"{settings.path}: permissions.defaultMode"
        if value == "manual":
            value = "default"
        if value == "auto":
            if settings.kind not in AUTO_SOURCES:
                notes.append(
                    f"warning: {where}: auto is ignored: only managed, user and --config "
                    "settings may grant it"
                )
                continue
            notes.append(f"warning: {where}: auto mode is not supported; using default")
            value = "default"
        if value not in MODES:
            notes.append(
                f"warning: {where}: unknown permission mode {value!r} "
                f"(use one of: {', '.join(MODES)}); ignored"
            )
            continue
        return cast(PermissionMode, value), settings.path
    return None


def choose_mode(
    explicit: PermissionMode | None, files: Sequence[SettingsFile], trust: TrustPolicy
) -> ModeChoice:
    """The session's mode from an explicit choice and the settings files `trust` trusts."""
    trusted = [f for f in files if trust.trusts(f.trust_root)]
    notes: list[str] = []
    candidates: list[tuple[PermissionMode, Path | None]] = []
    if explicit is not None:
        candidates.append((explicit, None))
    if (configured := _from_settings(trusted, notes)) is not None:
        candidates.append(configured)
    disabled = next(
        (f.path for f in trusted if _setting(f, "disableBypassPermissionsMode") == "disable"),
        None,
    )
    for mode, source in candidates:
        if mode == BYPASS and disabled is not None:
            notes.append(
                f"warning: {disabled}: permissions.disableBypassPermissionsMode: "
                "bypassPermissions is disabled by settings; not used"
            )
            continue
        if mode == BYPASS and source is not None:
            notes.append(
                f"warning: {source}: permissions.defaultMode: bypassPermissions: "
                "every tool call runs without asking"
            )
        return ModeChoice(mode, source, tuple(notes))
    return ModeChoice("default", None, tuple(notes))


def session_mode(
    explicit: PermissionMode | None,
    project_dir: Path,
    home: Path,
    trust: TrustPolicy,
    config_files: Sequence[Path] = (),
) -> ModeChoice:
    """`choose_mode` over the Claude Code settings files of a project (read problems are
    reported by hook loading, not here)."""
    files, _ = read_settings(LoadContext(project_dir, home, config_files))
    return choose_mode(explicit, files, trust)
